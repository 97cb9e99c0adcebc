"""Procedural levels: a fresh map per episode from a seed and a few numbers (Jelly Bean World's
procedural map, NovPhy's task generator).

A spec with `map.generate` fixes only the map's size, how many rooms it has and how densely
each entity type fills it. Every episode key then draws its own rooms (a binary space
partition: each split walls one rectangle in two and opens one door in the new wall, so the
rooms form a tree and are always connected) and its own object counts (binomial in the free
cells, never below `min_counts`, which is how a spec keeps the objects its goal needs). The
draw is a pure function of the key, so the same seed gives the same map on every run and
machine, and `realize` turns it into an ordinary spec whose `LayoutPlan` places objects and
agents with the same soundness checks as any hand-written map.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from nesyworld.world.errors import SpecError
from nesyworld.world.spec.model import (
    DoorSpec,
    PlacementSpec,
    RoomSpec,
    WallSpec,
    WorldSpec,
    frozen_counts,
)

if TYPE_CHECKING:
    from nesyworld.world.kernels.layout import LayoutPlan

MIN_ROOM = 3  # the narrowest side a generated room may have (room for a thing and a path)
GENERATE_TRIES = 50  # room layouts drawn per key before giving up (each is checked connected)

Rect = tuple[int, int, int, int]  # r0, c0, r1, c1, inclusive


@dataclass(frozen=True)
class GenerateSpec:
    """What `map.generate` asks for; the rooms and counts themselves are drawn per episode."""

    size: tuple[int, int]
    rooms: int = 1
    densities: Mapping[str, float] = field(default_factory=dict)
    min_counts: Mapping[str, int] = field(default_factory=frozen_counts)
    wall: str = "bedrock"
    door: str = "door"
    extra: tuple[PlacementSpec, ...] = ()  # `map.objects`: added to every drawn map


@dataclass(frozen=True)
class GeneratedMap:
    """One episode's draw: room rectangles, the walls between them, their doors, and counts."""

    rooms: tuple[RoomSpec, ...]
    walls: tuple[WallSpec, ...]
    doors: tuple[DoorSpec, ...]
    counts: Mapping[str, int]


def interior(size: tuple[int, int], border: bool) -> Rect:
    inset = 1 if border else 0
    return (inset, inset, size[0] - 1 - inset, size[1] - 1 - inset)


def fits(size: tuple[int, int], rooms: int, border: bool) -> bool:
    """Whether `rooms` rooms of at least MIN_ROOM a side, one wall apart, can share the map:
    an area bound (the partition itself retries when a draw paints itself into a corner)."""
    r0, c0, r1, c1 = interior(size, border)
    ih, iw = r1 - r0 + 1, c1 - c0 + 1
    if ih < MIN_ROOM or iw < MIN_ROOM:
        return False
    return rooms * (MIN_ROOM + 1) ** 2 <= (ih + 1) * (iw + 1)


def _rng(key: int, attempt: int) -> np.random.Generator:
    return np.random.default_rng([int(key) & 0xFFFFFFFF, attempt, 0x6E657379])


def _split(rng: np.random.Generator, rects: list[Rect], doors: set[tuple[int, int]]
           ) -> tuple[tuple[tuple[int, int], tuple[int, int]], tuple[int, int]] | None:
    """Split the largest splittable rectangle along its longer side at a random line whose
    ends do not butt onto an existing door (that would block the door from one side)."""
    order = sorted(range(len(rects)), key=lambda i: -(rects[i][2] - rects[i][0] + 1)
                   * (rects[i][3] - rects[i][1] + 1))
    for i in order:
        r0, c0, r1, c1 = rects[i]
        h, w = r1 - r0 + 1, c1 - c0 + 1
        axes = [a for a, n in (("row", h), ("col", w)) if n >= 2 * MIN_ROOM + 1]
        if not axes:
            continue
        axis = "row" if h > w else "col" if w > h else str(rng.choice(axes))
        if axis not in axes:
            axis = axes[0]
        if axis == "row":
            lines = [r for r in range(r0 + MIN_ROOM, r1 - MIN_ROOM + 1)
                     if (r, c0 - 1) not in doors and (r, c1 + 1) not in doors]
        else:
            lines = [c for c in range(c0 + MIN_ROOM, c1 - MIN_ROOM + 1)
                     if (r0 - 1, c) not in doors and (r1 + 1, c) not in doors]
        if not lines:
            continue
        line = int(rng.choice(lines))
        if axis == "row":
            door = (line, int(rng.integers(c0, c1 + 1)))
            a, b = (r0, c0, line - 1, c1), (line + 1, c0, r1, c1)
            wall = ((line, c0), (line, c1))
        else:
            door = (int(rng.integers(r0, r1 + 1)), line)
            a, b = (r0, c0, r1, line - 1), (r0, line + 1, r1, c1)
            wall = ((r0, line), (r1, line))
        rects[i:i + 1] = [a, b]  # the wall's two ends, and the door
        return wall, door
    return None


def generate(gen: GenerateSpec, border: bool, key: int, attempt: int = 0) -> GeneratedMap | None:
    """One draw of rooms, walls, doors and counts for an episode key (None: the partition
    ran out of splittable rooms on this attempt)."""
    rng = _rng(key, attempt)
    rects = [interior(gen.size, border)]
    walls: list[WallSpec] = []
    doors: list[DoorSpec] = []
    door_cells: set[tuple[int, int]] = set()
    for _ in range(gen.rooms - 1):
        got = _split(rng, rects, door_cells)
        if got is None:
            return None
        (start, end), door = got
        walls.append(WallSpec(start, end, gen.wall))
        doors.append(DoorSpec(door, gen.door))
        door_cells.add(door)
    free = sum((r1 - r0 + 1) * (c1 - c0 + 1) for r0, c0, r1, c1 in rects)
    counts = {t: int(rng.binomial(free, d)) for t, d in gen.densities.items()}
    for t, n in gen.min_counts.items():
        counts[t] = max(counts.get(t, 0), n)
    r0, c0, r1, c1 = interior(gen.size, border)
    rooms = [RoomSpec("main", (r0, c0), (r1, c1))]
    rooms += [RoomSpec(f"room_{i + 1}", (a, b), (c, d)) for i, (a, b, c, d) in enumerate(rects)]
    return GeneratedMap(tuple(rooms), tuple(walls), tuple(doors), frozen_counts(counts))


def realize(spec: WorldSpec, key: int) -> WorldSpec:
    """The spec with this episode's generated map written in as ordinary rooms, walls, doors
    and placements (and no `generate`): what `LayoutPlan.of` lays out."""
    from nesyworld.world.kernels.layout import count_regions, neighbour_table
    from nesyworld.world.simulation.catalog import TypeCatalog
    from nesyworld.world.simulation.layout import fixed_grid

    gen = spec.map.generate
    if gen is None:
        return spec
    types = TypeCatalog.from_spec(spec)
    h, w = gen.size
    nbrs = neighbour_table(h, w)
    for attempt in range(GENERATE_TRIES):
        drawn = generate(gen, spec.map.border is not None, key, attempt)
        if drawn is None:
            continue
        placements = tuple(PlacementSpec(t, n, None) for t, n in drawn.counts.items() if n > 0)
        placements += gen.extra
        out = replace(spec, map=replace(spec.map, rooms=drawn.rooms, walls=drawn.walls,
                                        doors=drawn.doors, objects=placements, generate=None))
        if count_regions(types.passable[fixed_grid(out, types).ravel()], nbrs) == 1:
            return out
    raise SpecError(f"could not generate {gen.rooms} connected rooms in a {h}x{w} map in "
                    f"{GENERATE_TRIES} tries", key_path="map.generate.rooms",
                    expected="fewer rooms or a larger size")


def realized_plan(plan: LayoutPlan, key: int) -> LayoutPlan:
    """The layout plan of one episode of a generated spec (`plan.generated` holds the spec,
    its catalog and agent order)."""
    from nesyworld.world.kernels.layout import LayoutPlan

    assert plan.generated is not None, "a layout plan of a generated spec"
    spec, types, agent_names = plan.generated
    return LayoutPlan.of(realize(spec, key), types, agent_names)
