"""Entity classes: the defaults a family of entity types starts from.

A spec entry names its class (`class: floor`); the class supplies defaults the entry may
override. Third-party packages add classes with `@ENTITIES.register(...)` or the
`nesyworld.entities` entry-point group.
"""

from __future__ import annotations

from typing import Any, ClassVar

from nesyworld.world.registry import ENTITIES


class EntityClass:
    """Base class: a solid block that stays where it is."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"blocks_movement": True}
    registered_name: ClassVar[str]


@ENTITIES.register("block")
class Block(EntityClass):
    """Solid map content: walls, trees, ores."""


@ENTITIES.register("floor")
class Floor(EntityClass):
    """Walkable cells: air, doors."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"blocks_movement": False}


@ENTITIES.register("item")
class Item(EntityClass):
    """Things that live in inventories (planks, sticks); solid if ever placed."""


@ENTITIES.register("station")
class Station(EntityClass):
    """A block recipes need to be faced, such as the crafting table."""


@ENTITIES.register("actor")
class Actor(EntityClass):
    """Types of agents: the player, traders, the rival; they occupy their cell."""


@ENTITIES.register("category")
class Category(EntityClass):
    """An abstract type used only to group others in the hierarchy (breakable, log, ...)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"abstract": True}
