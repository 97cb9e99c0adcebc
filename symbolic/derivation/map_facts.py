"""Facts the abstraction reads off the map's geometry and the schedule, not off properties.

Two spec features change what a plan can do without any property changing:

- closed doors (`map.doors` whose type blocks movement, `closed_door_types`): what is behind
  one cannot be approached until it is opened. The facts are `behind_door(t)` (t is on the
  map, none of it can be walked to, some of it could with every declared door open),
  `partly_behind_door(t)` (some t is reachable only through a door) and `through_<D>(t)`
  (opening *any* D next to the agent's walkable region, whichever one an approach reaches,
  lets the agent walk to some t). They are computed from the state each time, so they stay
  right as things are broken, placed and opened.
- `on_break` spawns: `spawning(t)` says the cell in front holds what a pending spawn of t
  expects (the leaves of a broken block), so waiting there makes t appear.

Regions are found on bit sets, like `passable_regions`, whose walkable map (agents standing on
their floor) they share; only worlds with closed doors pay for the door facts.
"""

from __future__ import annotations

import numpy as np

from nesyworld.world import World
from nesyworld.world.actions.movement import closed_door_types
from nesyworld.world.actions.schema import (
    BEHIND_DOOR,
    PARTLY_BEHIND_DOOR,
    SPAWNING,
    THROUGH_PREFIX,
)
from nesyworld.world.simulation.walkable import passable_regions

Props = frozenset[tuple[str, int]]


def map_facts(world: World, agent: int) -> Props:
    """The door and spawn facts of `agent` in `world` (empty when the spec has neither)."""
    out = door_facts(world, agent)
    pending = spawning_facts(world, agent)
    return out | pending if pending else out


# ------------------------------------------------------------------------------- spawns
def spawn_pairs(world: World) -> frozenset[tuple[int, int]]:
    """(expected type, spawned type) ids of the spec's `on_break` spawns that appear where
    the block was (a regrowth "random" appears elsewhere, so it is no spawn in front)."""
    cached = world.__dict__.get("_spawn_pairs")
    if cached is None or cached[0] is not world.spec:
        types = world.types
        pairs = frozenset(
            (types.id(et.leaves), types.id(et.on_break.spawn))
            for et in world.spec.entity_types.values()
            if et.on_break is not None and et.on_break.regrow != "random"
        )
        cached = (world.spec, pairs)
        world.__dict__["_spawn_pairs"] = cached
    return cached[1]


def spawning_facts(world: World, agent: int) -> Props:
    st = world.state
    if not st.schedule:
        return frozenset()
    pairs = spawn_pairs(world)
    front = world.front(agent)
    if not pairs or front is None:
        return frozenset()
    here = int(st.grid[front])
    return frozenset(
        (SPAWNING, s.type_id)
        for s in st.schedule
        if s.cell == front and s.expect == here and s.regrow != "random"
        and (s.expect, s.type_id) in pairs
    )


# -------------------------------------------------------------------------------- doors
def door_facts(world: World, agent: int) -> Props:
    spec = world.spec
    doors = closed_door_types(spec)
    if not doors:
        return frozenset()
    st = world.state
    key = (st.static_version, id(st.grid), st.pos.tobytes(), agent, spec)
    cached = world.__dict__.get("_door_facts")
    if cached is not None and cached[0] == key:
        return cached[1]
    facts = _door_facts(world, agent, doors)
    world.__dict__["_door_facts"] = (key, facts)
    return facts


def _door_facts(world: World, agent: int, doors: tuple[str, ...]) -> Props:
    st = world.state
    h, w = st.grid.shape
    regions = passable_regions(world)
    walk = regions.walk
    r0, c0 = (int(v) for v in st.pos[agent])
    start = 1 << (r0 * w + c0)
    grow = _Grower(h, w)
    region = regions.of(r0 * w + c0).cells
    declared = 0
    for door in world.spec.map.doors:
        declared |= 1 << (door.at[0] * w + door.at[1])
    star = grow.flood(walk | declared, start)
    cells_of = _cells_by_type(world, agent, regions.ground, w)
    near, near_star = grow.around(region), grow.around(star)
    facts: set[tuple[str, int]] = set()
    partly: set[int] = set()
    for tid, cells in cells_of.items():
        if cells & near_star & ~near:
            partly.add(tid)
            facts.add((PARTLY_BEHIND_DOOR, tid))
            if not cells & near:
                facts.add((BEHIND_DOOR, tid))
    if not partly:
        return frozenset(facts)
    for door_type in doors:
        gates = cells_of.get(world.types.id(door_type), 0) & near
        common: set[int] | None = None
        while gates:
            cell = gates & -gates  # the lowest one
            gates ^= cell
            opened = grow.around(grow.flood(walk | cell, start))
            reach = {tid for tid in partly if cells_of[tid] & opened}
            common = reach if common is None else common & reach
        for tid in common or ():
            facts.add((THROUGH_PREFIX + door_type, tid))
    return frozenset(facts)


def _cells_by_type(world: World, agent: int, ground: np.ndarray, w: int) -> dict[int, int]:
    """Bit set of the cells of each type: the floor under agents, and the other agents
    themselves (an approach may target an agent)."""
    out: dict[int, int] = {}
    for tid in np.unique(ground).tolist():
        bits = np.packbits(ground == tid, bitorder="little").tobytes()
        out[int(tid)] = int.from_bytes(bits, "little")
    st = world.state
    for i, (r, c) in enumerate(st.pos.tolist()):
        if i != agent:
            tid = int(st.grid[r, c])
            out[tid] = out.get(tid, 0) | 1 << (r * w + c)
    return out


class _Grower:
    """4-neighbour growth of bit sets on an h x w map (bit i is flat cell i)."""

    def __init__(self, h: int, w: int) -> None:
        self.w = w
        self.every = (1 << (h * w)) - 1
        first = sum(1 << (r * w) for r in range(h))
        self.not_first = self.every & ~first
        self.not_last = self.every & ~(first << (w - 1))

    def around(self, cells: int) -> int:
        """The cells and their 4-neighbours."""
        w = self.w
        return (cells | (cells >> w) | (cells << w) | ((cells << 1) & self.not_first)
                | ((cells >> 1) & self.not_last)) & self.every

    def flood(self, walkable: int, seed: int) -> int:
        """The connected part of `walkable` that holds `seed`."""
        cells = seed & walkable
        while True:
            grown = self.around(cells) & walkable
            if grown == cells:
                return cells
            cells = grown
