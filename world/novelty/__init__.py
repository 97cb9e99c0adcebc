"""Novelties: composable transformations of a world spec, loaded from YAML
(`transforms`) and injected into a running env on a schedule (`injection`).

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.novelty.transforms import (
        Novelty,
        apply_novelties,
        load_novelty,
        register_transform,
    )

_EXPORTS = {
    "Novelty": "transforms",
    "apply_novelties": "transforms",
    "load_novelty": "transforms",
    "register_transform": "transforms",
}
__all__ = [
    "Novelty", "apply_novelties", "load_novelty", "register_transform",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
