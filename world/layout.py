"""Building the initial map from a spec: border, rooms, walls, doors, placements, agents."""

from __future__ import annotations

import numpy as np

from nesyworld.world.catalog import TypeCatalog
from nesyworld.world.errors import SpecError
from nesyworld.world.spec import WorldSpec


def build_grid(spec: WorldSpec, types: TypeCatalog, rng: np.random.Generator) -> np.ndarray:
    """The static map (no agents yet), with random placements drawn from `rng`."""
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
        tid = types.id(placement.type)
        for cell in placement.at:
            grid[cell] = tid
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
