"""Actions about the episode itself: waiting and giving up."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nesyworld.world.actions.base import Action
from nesyworld.world.registry import ACTIONS

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


@ACTIONS.register("nop")
class Nop(Action):
    """Do nothing for one step (NPC controllers use it too)."""

    def apply(self, world: World, agent: int, arg: Any) -> float:
        return self.cost


@ACTIONS.register("give_up")
class GiveUp(Action):
    """End the episode as a failure; lets an agent stop early instead of timing out."""

    def apply(self, world: World, agent: int, arg: Any) -> float:
        world.state.gave_up = True
        return self.cost
