"""The spec compiled to integer ids and numpy tables, so the step loop never touches strings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nesyworld.world.spec.model import WorldSpec


@dataclass(frozen=True)
class TypeCatalog:
    """Concrete entity types by id (air is 0), with per-type lookup tables."""

    names: tuple[str, ...]
    index: dict[str, int]
    passable: np.ndarray  # bool (T,): agents may walk onto it
    automatic: frozenset[int]  # types an agent takes from beside it (an automatic collect)
    glyphs: tuple[str, ...]
    colors: tuple[tuple[int, int, int] | None, ...]

    @classmethod
    def from_spec(cls, spec: WorldSpec) -> TypeCatalog:
        names = spec.concrete_types
        index = {n: i for i, n in enumerate(names)}
        passable = np.array([not spec.entity_types[n].blocks_movement for n in names], bool)
        automatic = frozenset(i for i, n in enumerate(names)
                              if (rule := spec.entity_types[n].collect) and rule.automatic)
        glyphs = _glyphs(spec, names)
        colors = tuple(spec.entity_types[n].color for n in names)
        return cls(names, index, passable, automatic, glyphs, colors)

    def __len__(self) -> int:
        return len(self.names)

    def id(self, name: str) -> int:
        return self.index[name]


def _glyphs(spec: WorldSpec, names: tuple[str, ...]) -> tuple[str, ...]:
    """One distinct character per type: declared glyphs first, then letters of the name
    (upper case for solid types), then a fallback pool, so ASCII maps stay unambiguous."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for n in names:
        g = spec.entity_types[n].glyph or ("." if n == "air" else None)
        if g:
            out[n] = g
            used.add(g)
    pool = "0123456789$%&*=?@~!;:"
    for n in names:
        if n in out:
            continue
        solid = spec.entity_types[n].blocks_movement
        letters = [ch.upper() if solid else ch.lower() for ch in n if ch.isalpha()]
        letters += [ch.lower() if solid else ch.upper() for ch in n if ch.isalpha()]
        g = next((ch for ch in [*letters, *pool] if ch not in used), "?")
        out[n] = g
        used.add(g)
    return tuple(out[n] for n in names)
