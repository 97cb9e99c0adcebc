"""Lifelong worlds (a world that never resets): regrowth of used resources and the
reward schedules of the `lifelong:` spec section.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.lifelong.regrowth import regrow
    from nesyworld.world.lifelong.rewards import LifelongRewards

_EXPORTS = {
    "regrow": "regrowth",
    "LifelongRewards": "rewards",
}
__all__ = [
    "LifelongRewards", "regrow",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
