"""Importing this module registers every built-in entity class, action class and controller."""

from nesyworld.world import actions  # noqa: F401
from nesyworld.world.entities import classes, controllers  # noqa: F401
