"""World specs as data: the YAML reader that keeps where every value came from
(`yaml_source`), typed located accessors (`reader`), the validating loader (`loader`), the
frozen spec model (`model`), one module per section (`entity_types`, `map_section`,
`agents_section`, and the optional `generation`, `lifelong`, `observation`, `scent`, `teams`)
and the check that the goal is reachable (`reachability`).
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
