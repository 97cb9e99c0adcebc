"""Entity classes (the defaults a family of types starts from) and the controllers
that drive non-player agents.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.entities.classes import EntityClass
    from nesyworld.world.entities.controllers import Controller

_EXPORTS = {
    "EntityClass": "classes",
    "Controller": "controllers",
}
__all__ = [
    "Controller", "EntityClass",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
