"""Building the initial map from a spec: border, rooms, walls, doors, placements, agents."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nesyworld.world.kernels.layout import LayoutPlan
from nesyworld.world.simulation.catalog import TypeCatalog
from nesyworld.world.spec.model import WorldSpec


@dataclass
class Layout:
    """A freshly built map with the agents written in, and where each agent stands."""

    grid: np.ndarray
    pos: np.ndarray
    under: np.ndarray
    facing: np.ndarray


def build_layout(plan: LayoutPlan, key: int, spec_name: str = "") -> Layout:
    """The initial map of the episode with this key (see `LayoutPlan`): objects and agents
    placed where the key's hashes rank them, redrawn until nothing is sealed off."""
    h, w = plan.shape
    n = len(plan.agent_type)
    grid = np.empty(h * w, np.int16)
    pos, under, facing = np.zeros((n, 2), np.int32), np.zeros(n, np.int16), np.zeros(n, np.int8)
    plan.build_into(key, grid, pos, under, facing, spec_name)
    return Layout(grid.reshape(h, w), pos, under, facing)


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


def fixed_grid(spec: WorldSpec, types: TypeCatalog) -> np.ndarray:
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


def placement_area(spec: WorldSpec, room: str | None) -> np.ndarray:
    """Where random placement may put things: inside `room` (any room when None, the whole
    map when there are none), never next to a door, so that nothing seals a room off."""
    m = spec.map
    inside = np.zeros(tuple(m.size), bool)
    rooms = [m.room(room)] if room is not None else list(m.rooms)
    if not rooms:
        inside[:] = True
    for box in rooms:
        inside[box.start[0]:box.end[0] + 1, box.start[1]:box.end[1] + 1] = True
    for door in m.doors:
        r, c = door.at
        inside[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] = False
    return inside


def free_cells(grid: np.ndarray, spec: WorldSpec, room: str | None) -> np.ndarray:
    """Empty (air) cells of `placement_area(spec, room)`, in row-major order."""
    return np.argwhere((grid == 0) & placement_area(spec, room))
