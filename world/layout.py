"""Building the initial map from a spec: border, rooms, walls, doors, placements, agents."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from nesyworld.world.catalog import TypeCatalog
from nesyworld.world.errors import SpecError
from nesyworld.world.pathfinding import dilate4, label_regions
from nesyworld.world.spec import WorldSpec

MAX_LAYOUT_TRIES = 200


@dataclass
class Layout:
    """A freshly built map with the agents written in, and where each agent stands."""

    grid: np.ndarray
    pos: np.ndarray
    under: np.ndarray
    facing: np.ndarray


def build_layout(spec: WorldSpec, types: TypeCatalog, rng: np.random.Generator,
                 agent_names: tuple[str, ...]) -> Layout:
    """The initial map, objects and agents placed with draws from `rng`.

    Random placement is redrawn (from the same generator, so still deterministic) until it
    seals nothing off: no new unreachable pocket of floor, and no object or agent without an
    open side. Without this, about one layout in a thousand made the task unsolvable.
    """
    base = _fixed_grid(spec, types)
    randomised = any(p.quantity > len(p.at) for p in spec.map.objects) or any(
        spec.agents[n].at is None for n in agent_names)
    walkable = types.passable
    pockets = _base_components(walkable[base].tobytes(), base.shape) if randomised else 0
    for _ in range(MAX_LAYOUT_TRIES):
        grid = _place(spec, types, base, rng)
        fences = surround(spec, types, grid)
        layout = _place_agents(spec, types, grid, rng, agent_names)
        walk = walkable[layout.grid] | fences  # what surrounds things is meant to be broken
        if not randomised or (_components(walk) == pockets
                              and _all_open(layout.grid, base, walkable, fences)):
            return layout
    raise SpecError(
        f"could not place the objects and agents of '{spec.name}' without sealing parts of "
        f"the map off in {MAX_LAYOUT_TRIES} tries", key_path="map.objects",
        expected="fewer objects or larger rooms")


def _place_agents(spec: WorldSpec, types: TypeCatalog, grid: np.ndarray,
                  rng: np.random.Generator, agent_names: tuple[str, ...]) -> Layout:
    n = len(agent_names)
    pos = np.zeros((n, 2), np.int32)
    under = np.zeros(n, np.int16)
    facing = np.zeros(n, np.int8)
    for i, name in enumerate(agent_names):
        a = spec.agents[name]
        if a.at is not None:
            cell = a.at
        else:
            cells = free_cells(grid, spec, a.room)
            if len(cells) == 0:
                raise SpecError(f"no free cell for agent '{name}'",
                                key_path=f"agents.{name}.room",
                                expected="a room with empty cells")
            r, c = cells[rng.integers(len(cells))]
            cell = (int(r), int(c))
        pos[i] = cell
        under[i] = grid[cell]
        grid[cell] = types.id(a.type)
        facing[i] = a.facing if a.facing is not None else int(rng.integers(4))
    return Layout(grid, pos, under, facing)


@functools.lru_cache(maxsize=64)
def _base_components(walk_bytes: bytes, shape: tuple[int, int]) -> int:
    return _components(np.frombuffer(walk_bytes, dtype=bool).reshape(shape))


def _components(walk: np.ndarray) -> int:
    return label_regions(walk)[1]


def _all_open(grid: np.ndarray, base: np.ndarray, walkable: np.ndarray,
              fences: np.ndarray) -> bool:
    """Every randomly placed thing has a walkable (or fenced) side."""
    open_side = dilate4(walkable[grid] | fences)
    placed = (grid != base) & ~walkable[grid] & ~fences
    return bool(np.all(open_side[placed]))


def surround(spec: WorldSpec, types: TypeCatalog, grid: np.ndarray) -> np.ndarray:
    """Put each `map.surround` entry's `with` type on the empty cells around every `target`
    (the Fence novelty); returns the cells it filled. Also used when a novelty arrives
    mid-episode, on the map as it is then."""
    filled = np.zeros(grid.shape, bool)
    h, w = grid.shape
    for rule in spec.map.surround:
        target, fence = types.id(rule.target), types.id(rule.with_)
        for r, c in np.argwhere(grid == target):
            r0, r1, c0, c1 = max(r - 1, 0), min(r + 2, h), max(c - 1, 0), min(c + 2, w)
            ring = grid[r0:r1, c0:c1] == 0
            grid[r0:r1, c0:c1][ring] = fence
            filled[r0:r1, c0:c1] |= ring
    return filled


def _fixed_grid(spec: WorldSpec, types: TypeCatalog) -> np.ndarray:
    m = spec.map
    h, w = m.size
    if m.ascii is not None:
        glyph_to_type = {types.glyphs[i]: i for i in range(len(types))}
        glyph_to_type.update({g: types.id(t) for g, t in m.legend.items()})
        grid = np.array([[glyph_to_type[ch] for ch in row] for row in m.ascii], dtype=np.int16)
    else:
        grid = np.zeros((h, w), dtype=np.int16)
    if m.border:
        b = types.id(m.border)
        grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = b
    for wall in m.walls:
        (r0, c0), (r1, c1) = wall.start, wall.end
        grid[min(r0, r1):max(r0, r1) + 1, min(c0, c1):max(c0, c1) + 1] = types.id(wall.type)
    for door in m.doors:
        grid[door.at] = types.id(door.type)
    for placement in m.objects:
        for cell in placement.at:
            grid[cell] = types.id(placement.type)
    return grid


def _place(spec: WorldSpec, types: TypeCatalog, base: np.ndarray, rng: np.random.Generator
           ) -> np.ndarray:
    grid = base.copy()
    for placement in spec.map.objects:
        tid = types.id(placement.type)
        remaining = placement.quantity - len(placement.at)
        if remaining > 0:
            cells = free_cells(grid, spec, placement.room)
            if len(cells) < remaining:
                raise SpecError(
                    f"cannot place {placement.quantity} {placement.type}: only {len(cells)} "
                    f"free cells in room '{placement.room or 'any'}'",
                    location=None, key_path=f"map.objects.{placement.type}.quantity",
                    expected="a quantity that fits the room",
                )
            chosen = rng.choice(len(cells), size=remaining, replace=False)
            for i in np.sort(chosen):
                grid[tuple(cells[i])] = tid
    return grid


def free_cells(grid: np.ndarray, spec: WorldSpec, room: str | None) -> np.ndarray:
    """Empty (air) cells, inside `room` when given, in row-major order.

    Cells next to a door are never handed out, so random placement cannot seal a room off.
    """
    free = grid == 0
    for door in spec.map.doors:
        r, c = door.at
        free[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] = False
    if room is not None:
        r = spec.map.room(room)
        inside = np.zeros_like(free)
        inside[r.start[0]:r.end[0] + 1, r.start[1]:r.end[1] + 1] = True
        free &= inside
    elif spec.map.rooms:
        inside = np.zeros_like(free)
        for r in spec.map.rooms:
            inside[r.start[0]:r.end[0] + 1, r.start[1]:r.end[1] + 1] = True
        free &= inside
    return np.argwhere(free)
