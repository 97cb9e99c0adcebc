"""Reading scent: the `scent:` section (decay, diffusion, dimensions) and each entity type's
`scent:` vector, checked where they are written.

The field follows Jelly Bean World's difference equation (its eq. 2), which only settles when
decay + 4 x diffusion < 1: anything else grows without bound, so such settings are refused
here rather than showing up as overflowing observations hundreds of steps later.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from nesyworld.world.spec.bounds import MAX_SCENT_DIMS

if TYPE_CHECKING:
    from nesyworld.world.spec.reader import SpecReader

SCENT_KEYS = {"decay", "diffusion", "dims"}
DEFAULT_DECAY = 0.4  # λ, the JBW paper's configuration tables
DEFAULT_DIFFUSION = 0.14  # α, same tables
DEFAULT_DIMS = 3
MAX_SCENT = 1e6  # what one thing gives off: the settled field is `gain` times a sum of these


@dataclass(frozen=True)
class ScentSpec:
    """How scent spreads, and what each concrete type gives off (types absent: nothing)."""

    decay: float = DEFAULT_DECAY
    diffusion: float = DEFAULT_DIFFUSION
    dims: int = DEFAULT_DIMS
    vectors: Mapping[str, tuple[float, ...]] = field(
        default_factory=lambda: MappingProxyType({}))

    @property
    def gain(self) -> float:
        """1 / (1 - decay - 4 diffusion): how far the settled field can exceed one source."""
        return 1.0 / (1.0 - self.decay - 4.0 * self.diffusion)


def parse_scent(rd: SpecReader, raw: Any, raw_types: Mapping[str, Any]) -> ScentSpec | None:
    """The spec's scent, or None when neither the section nor any type mentions scent."""
    declared = {n: t["scent"] for n, t in raw_types.items()
                if isinstance(t, dict) and t.get("scent") is not None}
    if raw is None and not declared:
        return None
    sec = rd.mapping(raw, ("scent",), SCENT_KEYS, nullable=True)
    decay = rd.number(sec.get("decay", DEFAULT_DECAY), ("scent", "decay"))
    diffusion = rd.number(sec.get("diffusion", DEFAULT_DIFFUSION), ("scent", "diffusion"))
    dims = rd.integer(sec.get("dims", DEFAULT_DIMS), ("scent", "dims"), minimum=1,
                      maximum=MAX_SCENT_DIMS)
    for key, value in (("decay", decay), ("diffusion", diffusion)):
        if value < 0:
            raise rd.fail(("scent", key), f"negative {key}", found=value,
                          expected="a number >= 0")
    if decay + 4 * diffusion >= 1:
        raise rd.fail(("scent",), "unstable scent: the field would grow without bound",
                      found=f"decay + 4 x diffusion = {decay + 4 * diffusion:g}",
                      expected="decay + 4 x diffusion < 1 (the paper's 0.4 and 0.14 give 0.96)")
    own: dict[str, tuple[float, ...]] = {}
    for name, vec in declared.items():
        path = ("entity_types", name, "scent")
        if not isinstance(vec, list) or len(vec) != dims:
            raise rd.fail(path, "wrong type", found=vec,
                          expected=f"a list of {dims} numbers (scent.dims)")
        values = tuple(rd.number(v, (*path, i), maximum=MAX_SCENT) for i, v in enumerate(vec))
        for i, v in enumerate(values):
            if v < 0:
                raise rd.fail((*path, i), "negative scent", found=vec[i],
                              expected="a number >= 0")
        own[name] = values
    vectors = {}
    for name, t in raw_types.items():  # a type without its own scent takes its nearest
        if isinstance(t, dict) and t.get("abstract"):  # ancestor's (a category's scent)
            continue
        source = _nearest(name, own, raw_types)
        if source is not None:
            vectors[name] = own[source]
    return ScentSpec(decay, diffusion, dims, MappingProxyType(vectors))


def _nearest(name: str, own: Mapping[str, Any], raw_types: Mapping[str, Any]) -> str | None:
    frontier, seen = [name], set()
    while frontier:
        t = frontier.pop(0)
        if t in own:
            return t
        if t in seen or not isinstance(raw_types.get(t), dict):
            continue
        seen.add(t)
        parents = raw_types[t].get("parents") or []
        frontier.extend([parents] if isinstance(parents, str) else parents)
    return None
