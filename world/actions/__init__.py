"""Built-in action classes; importing this package registers them."""

from nesyworld.world.actions import crafting, interact, items, meta, movement
from nesyworld.world.actions.base import Action, GroundedAction

__all__ = ["Action", "GroundedAction"]
