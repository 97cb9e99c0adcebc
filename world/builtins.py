"""Importing this module registers every built-in entity class, action class and controller."""

from nesyworld.world import actions, controllers, entities  # noqa: F401
