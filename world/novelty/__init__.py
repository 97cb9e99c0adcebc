"""Novelties: composable transformations of a world spec, loaded from YAML
(`transforms`) and injected into a running env on a schedule (`injection`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.world.novelty.transforms import (
        Novelty,
        apply_novelties,
        load_novelty,
        register_transform,
    )

__getattr__, __all__ = lazy_exports(__name__, {
    "transforms": ["Novelty", "apply_novelties", "load_novelty", "register_transform"],
})
