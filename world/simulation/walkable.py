"""Where an agent can walk: the shortest walk to beside a target, and the connected walkable
regions of a map.

Why a module of its own: `Approach` (world/actions/movement.py) searches a path every time it
is taken and asks for the agent's region whenever it masks, and the planning domain's map
facts (symbolic/derivation/map_facts.py) read the same regions, so both are written for speed
on flat cell indices and bit sets, with `pathfinding.py` beside them as the plain reference
they are tested against (tests/world/test_envs.py, tests/world/test_fast_paths.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

__all__ = ["BLOCKED", "FREE", "NEXT_TO_TARGET", "Region", "Regions", "around_bits",
           "cell_neighbours", "cell_states", "edge_bits", "ground_cells", "passable_regions",
           "search_adjacent", "search_first_adjacent", "walk_back"]


@functools.lru_cache(maxsize=8)
def cell_neighbours(h: int, w: int) -> tuple[tuple[int, int, int, int], ...]:
    """Flat indices of each cell's 4-neighbours in N, E, S, W order, -1 past the edge."""
    out = []
    for cur in range(h * w):
        r, c = divmod(cur, w)
        out.append((cur - w if r > 0 else -1, cur + 1 if c < w - 1 else -1,
                    cur + w if r < h - 1 else -1, cur - 1 if c > 0 else -1))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def around_bits(h: int, w: int) -> tuple[int, ...]:
    """For each flat cell, the bit set of it and its 4-neighbours (bit i is cell i)."""
    out = []
    for cell, nbrs in enumerate(cell_neighbours(h, w)):
        bits = 1 << cell
        for nb in nbrs:
            if nb >= 0:
                bits |= 1 << nb
        out.append(bits)
    return tuple(out)


@functools.lru_cache(maxsize=8)
def edge_bits(h: int, w: int) -> tuple[int, int, int]:
    """Bit sets of all cells, of the cells not in the first column and not in the last."""
    every = (1 << (h * w)) - 1
    first = sum(1 << (r * w) for r in range(h))
    return every, every & ~first, every & ~(first << (w - 1))


# `search_adjacent`'s cell states; a cell it has reached holds the cell it was reached from (>= 0)
FREE, BLOCKED, NEXT_TO_TARGET = -1, -2, -3


def cell_states(passable: np.ndarray) -> list[int]:
    """FREE or BLOCKED for each cell, flat, plus one BLOCKED at the end: a neighbour index
    of -1 (past the edge) reads it, so the search needs no separate edge test."""
    out = np.where(passable, FREE, BLOCKED).ravel().tolist()
    out.append(BLOCKED)
    return out


def ground_cells(world: World) -> list[int]:
    """`cell_states` of the map with each agent's cell as the floor it stands on. Moving
    agents leave that as it is, so it is cached on the world by the static map version, like
    `passable_regions`; `Approach` (world/actions/movement.py) puts the agents back in."""
    st = world.state
    cache = getattr(world, "_ground_cache", None)
    if cache is not None and cache[0] == st.static_version and cache[1] is st.grid:
        return cache[2]
    ground = st.grid.copy()
    for (r, c), under in zip(st.pos.tolist(), st.under.tolist(), strict=True):
        ground[r, c] = under
    cells = cell_states(world.types.passable[ground])
    world._ground_cache = (st.static_version, st.grid, cells)  # type: ignore[attr-defined]
    return cells


def search_adjacent(
    cells: list[int], nbrs: tuple[tuple[int, int, int, int], ...], w: int, s: int,
    targets: set[int],
) -> tuple[list[tuple[int, int]], int] | None:
    """`path_to_adjacent` (pathfinding.py) on flat cell indices: the same breadth-first
    order and N, E, S, W tie-breaks, so the same path and facing. Approach runs it every time it is
    taken, and there the per-cell bounds checks, divmods and array scans were most of an env
    step; here a cell costs a list lookup. `cells` (from `cell_states`) is used up: the
    search writes where it came from into the cells it reaches."""
    for d, nb in enumerate(nbrs[s]):
        if nb in targets:
            return [], d
    for t in targets:  # the walkable cells next to a target end the search
        for nb in nbrs[t]:
            if nb >= 0 and cells[nb] == FREE:
                cells[nb] = NEXT_TO_TARGET
    cells[s] = s
    queue = [s]
    for cur in queue:  # a list iterator sees what is appended: a FIFO queue
        for nxt in nbrs[cur]:
            state = cells[nxt]
            if state == FREE:
                cells[nxt] = cur
                queue.append(nxt)
            elif state == NEXT_TO_TARGET:
                cells[nxt] = cur
                d = next(d for d, nb in enumerate(nbrs[nxt]) if nb in targets)
                return walk_back(cells, w, s, nxt), d
    return None


def walk_back(cells: list[int], w: int, s: int, end: int) -> list[tuple[int, int]]:
    """The cells (row, column) of the searched walk from `s` to `end`, `s` left out."""
    path = []
    node = end
    while node != s:
        path.append(divmod(node, w))
        node = cells[node]
    path.reverse()
    return path


def search_first_adjacent(
    cells: list[int], nbrs: tuple[tuple[int, int, int, int], ...], w: int, s: int,
    targets: list[int],
) -> tuple[list[tuple[int, int]], int] | None:
    """Like `search_adjacent`, but beside the first of `targets` (in their order) that has a
    reachable side rather than the nearest: the walk ends on that target's first reachable
    side in N, E, S, W order. This is NovelGym's `approach`, which goes to the first object
    of the type in its list with a free side (`Approach`'s `order: first`)."""
    cells[s] = s
    queue = [s]
    for cur in queue:  # every walkable cell the agent can reach
        for nxt in nbrs[cur]:
            if cells[nxt] == FREE:
                cells[nxt] = cur
                queue.append(nxt)
    for t in targets:
        for e, side in enumerate(nbrs[t]):
            if side >= 0 and cells[side] >= 0:  # from the side, the target lies the other way
                return walk_back(cells, w, s, side), (e + 2) % 4
    return None


@dataclass(eq=False)
class Region:
    """A connected region of walkable cells, agents counting as the floor they stand on."""

    cells: int  # bit set: bit i is flat cell i
    # per type: some cell of it (under an agent, the floor there) has a 4-neighbour in the
    # region; blocks around it and walkable types in it both count
    touching: np.ndarray


@dataclass(eq=False)
class Regions:
    """The walkable regions of one static map, each found when first asked for, by a flood
    fill on bit sets (a whole breadth-first layer per step). Agents moving leave them as
    they are, so `passable_regions` caches them on the world by the static map version."""

    walk: int  # bit set of walkable cells, agents' cells included
    ground: np.ndarray  # type id of each cell, flat, the floor under agents
    shape: tuple[int, int]
    n_types: int
    found: list[Region]

    def of(self, cell: int) -> Region:
        """The region of a walkable cell."""
        for region in self.found:
            if region.cells >> cell & 1:
                return region
        h, w = self.shape
        every, not_first, not_last = edge_bits(h, w)
        walk = self.walk
        cells = (1 << cell) & walk
        while True:
            grown = (cells | (cells >> w) | (cells << w) | ((cells << 1) & not_first)
                     | ((cells >> 1) & not_last)) & walk
            if grown == cells:
                break
            cells = grown
        # cells with a 4-neighbour in the region, and what they are
        next_to = ((cells >> w) | (cells << w) | ((cells << 1) & not_first)
                   | ((cells >> 1) & not_last)) & every
        bits = np.frombuffer(next_to.to_bytes((h * w + 7) // 8, "little"), np.uint8)
        hit = np.unpackbits(bits, count=h * w, bitorder="little").view(bool)
        touching = np.zeros(self.n_types, bool)
        touching[self.ground[hit]] = True
        region = Region(cells, touching)
        if cells:  # (a cell that is not walkable has no region to keep)
            self.found.append(region)
        return region


def passable_regions(world: World) -> Regions:
    """The walkable regions of the map (agents' cells count as walkable), cached on the
    world by the static map version."""
    st = world.state
    cache = getattr(world, "_region_cache", None)
    if cache is not None and cache[0] == st.static_version and cache[1] is st.grid:
        return cache[2]
    h, w = st.grid.shape
    walk = world.types.passable[st.grid]
    ground = st.grid.ravel().copy()
    for (r, c), under in zip(st.pos.tolist(), st.under.tolist(), strict=True):
        walk[r, c] = True
        ground[r * w + c] = under
    bits = np.packbits(walk.ravel(), bitorder="little").tobytes()
    found = Regions(int.from_bytes(bits, "little"), ground, (h, w), len(world.types), [])
    world._region_cache = (st.static_version, st.grid, found)  # type: ignore[attr-defined]
    return found
