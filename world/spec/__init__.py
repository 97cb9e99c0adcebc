"""World specs as data: the YAML reader that keeps where every value came from, the
validating loader, the typed spec model, and one module per optional spec section
(generation, lifelong, observation, scent, teams).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.world.spec.loader import load_spec
    from nesyworld.world.spec.model import WorldSpec
    from nesyworld.world.spec.reader import SpecReader

__getattr__, __all__ = lazy_exports(__name__, {
    "loader": ["load_spec"],
    "model": ["WorldSpec"],
    "reader": ["SpecReader"],
})
