"""World specs as data: the YAML reader that keeps where every value came from, the
validating loader, the typed spec model, and one module per optional spec section
(generation, lifelong, observation, scent, teams).

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.spec.loader import load_spec
    from nesyworld.world.spec.model import WorldSpec
    from nesyworld.world.spec.reader import SpecReader

_EXPORTS = {
    "load_spec": "loader",
    "WorldSpec": "model",
    "SpecReader": "reader",
}
__all__ = [
    "SpecReader", "WorldSpec", "load_spec",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
