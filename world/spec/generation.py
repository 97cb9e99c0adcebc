"""Reading `map.generate`: a procedural level's parameters, checked where they are written.

Kept apart from loader.py so the generator's rules (what a density is, how small a map may
be for its rooms) live next to each other; `_map` hands the whole `map` section over when it
has a `generate` key.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from nesyworld.world.simulation.procedural import (
    GENERATE_TRIES,
    MIN_ROOM,
    GenerateSpec,
    fits,
    generate,
    interior,
)
from nesyworld.world.spec.bounds import MAX_ROOMS
from nesyworld.world.spec.model import MapSpec, PlacementSpec, RoomSpec, frozen_counts

if TYPE_CHECKING:
    from nesyworld.world.spec.reader import SpecReader

GENERATE_KEYS = {"size", "rooms", "densities", "min_counts", "wall", "door"}
# what the generator owns: a hand-written entry here (often inherited through `extends`)
# would be silently replaced, so it is refused and the way out named. `objects` stay allowed:
# they are put on every drawn map on top of the densities (a novelty's chest, say).
OWNED = ("size", "rooms", "walls", "doors", "ascii", "legend")


def generated_map(rd: SpecReader, raw: dict[str, Any], types: Mapping[str, Any]) -> MapSpec:
    from nesyworld.world.spec.map_section import (  # it imports this module
        map_size,
        parse_surround,
    )

    """The load-time map of a generated level: its size, border, one `main` room over the
    interior, and `min_counts` as placements (so the goal check sees what is guaranteed)."""
    for key in OWNED:
        if raw.get(key) is not None:
            raise rd.fail(("map", key), f"'map.{key}' cannot be combined with 'map.generate'",
                          key=True, expected=f"no {key} (write '{key}: null' to drop an "
                          "inherited one): the generator draws the layout")
    path = ("map", "generate")
    g = rd.mapping(raw["generate"], path, GENERATE_KEYS)
    if "size" not in g:
        raise rd.fail(path, "missing 'size'", expected="size: [rows, columns]")
    border = raw.get("border", "bedrock")
    if border is not None:
        border = rd.type_name(border, ("map", "border"), types)
    size = map_size(rd, g["size"], (*path, "size"), 2 * (border is not None) + MIN_ROOM)
    rooms = rd.integer(g.get("rooms", 1), (*path, "rooms"), minimum=1, maximum=MAX_ROOMS)
    if not fits(size, rooms, border is not None):
        raise rd.fail((*path, "size"), f"map too small for {rooms} rooms", found=list(size),
                      expected=f"rooms of at least {MIN_ROOM}x{MIN_ROOM} cells, one wall apart: "
                      "a larger size or fewer rooms")
    densities: dict[str, float] = {}
    for name, value in rd.mapping(g.get("densities"), (*path, "densities"),
                                  nullable=True).items():
        where = (*path, "densities", name)
        if name not in types or types[name].get("abstract"):
            raise rd.fail(where, f"unknown entity type '{name}'", found=name, key=True,
                          expected="a concrete type declared under entity_types")
        d = rd.number(value, where)
        if not 0.0 <= d <= 1.0:
            raise rd.fail(where, "density out of range", found=value,
                          expected="a fraction of the free cells between 0 and 1")
        densities[name] = d
    if sum(densities.values()) > 1.0:
        raise rd.fail((*path, "densities"), "densities sum over 1",
                      found=round(sum(densities.values()), 6),
                      expected="fractions of the free cells that add up to at most 1")
    min_counts = rd.counts(g.get("min_counts"), (*path, "min_counts"), types)
    wall = rd.type_name(g.get("wall", border or "bedrock"), (*path, "wall"), types)
    door = "door"
    if rooms > 1 or "door" in g:
        door = rd.type_name(g.get("door", "door"), (*path, "door"), types)
        if _blocks(types[door]):
            raise rd.fail((*path, "door"), f"door type '{door}' blocks movement", found=door,
                          expected="a walkable type (class: floor), or the rooms are sealed")
    r0, c0, r1, c1 = interior(size, border is not None)
    extra = _extra_objects(rd, raw.get("objects"), types, size)
    gen = GenerateSpec(size=size, rooms=rooms, densities=MappingProxyType(densities),
                       min_counts=frozen_counts(min_counts), wall=wall, door=door, extra=extra)
    if all(generate(gen, border is not None, 0, k) is None for k in range(GENERATE_TRIES)):
        raise rd.fail((*path, "rooms"), f"{rooms} rooms do not fit a {size[0]}x{size[1]} map",
                      found=rooms, expected="fewer rooms or a larger size")
    guaranteed = tuple(PlacementSpec(t, n) for t, n in min_counts.items())
    return MapSpec(size=size, border=border, rooms=(RoomSpec("main", (r0, c0), (r1, c1)),),
                   objects=guaranteed + extra,
                   surround=parse_surround(rd, raw, types), generate=gen)


def _extra_objects(rd: SpecReader, raw: Any, types: Mapping[str, Any], size: tuple[int, int]
                   ) -> tuple[PlacementSpec, ...]:
    """`map.objects` on a generated map: counts only (`N` or `{quantity: N}`), since a fixed
    cell could fall on a wall the generator draws."""
    out = []
    for name, oraw in rd.mapping(raw, ("map", "objects"), nullable=True).items():
        path = ("map", "objects", name)
        if name not in types or types[name].get("abstract"):
            raise rd.fail(path, f"unknown entity type '{name}'", found=name, key=True,
                          expected="a concrete type declared under entity_types")
        if isinstance(oraw, int) and not isinstance(oraw, bool):
            oraw = {"quantity": oraw}
        oraw = rd.mapping(oraw, path, {"quantity", "room"})
        if oraw.get("room", "main") not in ("main", None):
            raise rd.fail((*path, "room"), f"unknown room '{oraw['room']}'", found=oraw["room"],
                          expected="main (a generated map's rooms are drawn per episode)")
        out.append(PlacementSpec(name, rd.integer(oraw.get("quantity", 1), (*path, "quantity"),
                                                  maximum=size[0] * size[1])))
    return tuple(p for p in out if p.quantity > 0)


def _blocks(raw_type: Any) -> bool:
    """Whether a raw entity type blocks movement: its own key, else its class's default."""
    from nesyworld.world.registry import ENTITIES

    raw_type = raw_type if isinstance(raw_type, dict) else {}
    if "blocks_movement" in raw_type:
        return bool(raw_type["blocks_movement"])
    cls = raw_type.get("class", "block")
    defaults = ENTITIES.get(cls).DEFAULTS if cls in ENTITIES else {}
    return bool(defaults.get("blocks_movement", True))
