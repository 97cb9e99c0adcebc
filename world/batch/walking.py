"""Walking in one of N worlds: moving an agent, and the two orders of `approach`.

The batched twins of `World.move_agent` and `Approach.execute` (world/actions/movement.py),
apart from the rest of a round (dynamics.py) because `approach` is the one action that
searches the map. Cells are flat indices (r * W + c).
"""

from __future__ import annotations

import numpy as np

from nesyworld.world.batch.tables import PASSABLE
from nesyworld.world.kernels.jit import njit


@njit(inline=True)
def move_agent(grid: np.ndarray, pos: np.ndarray, under: np.ndarray, n: int, agent: int,
               cell: int, w: int) -> None:
    old = pos[n, agent, 0] * w + pos[n, agent, 1]
    tid = grid[n, old]
    grid[n, old] = under[n, agent]
    under[n, agent] = grid[n, cell]
    grid[n, cell] = tid
    pos[n, agent, 0], pos[n, agent, 1] = cell // w, cell % w


@njit(inline=True)
def walk_length(came_from: np.ndarray, start: int, end: int) -> int:
    """Steps of the searched walk from `start` to `end`."""
    length, node = 0, end
    while node != start:
        length += 1
        node = came_from[node]
    return length


@njit
def approach(grid: np.ndarray, pos: np.ndarray, facing: np.ndarray, under: np.ndarray,
             tt: np.ndarray, nbrs: np.ndarray, n: int, agent: int, tid: int, w: int) -> int:
    """`Approach.execute`: walk to the first cell next to a `tid` that a breadth-first search
    meets (N, E, S, W order) and face it; the path length, or -1 when none is reachable.
    Cells are judged as the search reaches them, so a short walk reads a few cells only."""
    start = pos[n, agent, 0] * w + pos[n, agent, 1]
    for d in range(4):
        nb = nbrs[start, d]
        if nb >= 0 and grid[n, nb] == tid:
            facing[n, agent] = d
            return 0
    n_cells = grid.shape[1]
    came_from = np.full(n_cells, -1, np.int64)  # -1: not reached yet
    queue = np.empty(n_cells, np.int64)
    came_from[start] = start
    queue[0], head, tail = start, 0, 1
    while head < tail:
        cur = queue[head]
        head += 1
        for d in range(4):
            nxt = nbrs[cur, d]
            if nxt < 0 or came_from[nxt] >= 0 or not tt[grid[n, nxt], PASSABLE]:
                continue
            came_from[nxt] = cur
            for e in range(4):  # next to a target: the walk ends here, facing it
                nb = nbrs[nxt, e]
                if nb >= 0 and nb != start and grid[n, nb] == tid:
                    move_agent(grid, pos, under, n, agent, nxt, w)
                    facing[n, agent] = e
                    return walk_length(came_from, start, nxt)
            queue[tail] = nxt
            tail += 1
    return -1


@njit
def approach_first(grid: np.ndarray, pos: np.ndarray, facing: np.ndarray, under: np.ndarray,
                   tt: np.ndarray, nbrs: np.ndarray, n: int, agent: int, tid: int,
                   w: int) -> int:
    """`Approach.execute` with `order: first`: walk beside the first `tid` in map order that
    has a reachable side (its first in N, E, S, W order) and face it; the path length, or -1
    when none is reachable. Every reachable cell is found first, as `search_first_adjacent`
    (world/simulation/walkable.py) does."""
    start = pos[n, agent, 0] * w + pos[n, agent, 1]
    n_cells = grid.shape[1]
    came_from = np.full(n_cells, -1, np.int64)
    queue = np.empty(n_cells, np.int64)
    came_from[start] = start
    queue[0], head, tail = start, 0, 1
    while head < tail:
        cur = queue[head]
        head += 1
        for d in range(4):
            nxt = nbrs[cur, d]
            if nxt >= 0 and came_from[nxt] < 0 and tt[grid[n, nxt], PASSABLE]:
                came_from[nxt] = cur
                queue[tail] = nxt
                tail += 1
    for t in range(n_cells):
        if t == start or grid[n, t] != tid:
            continue
        for e in range(4):
            side = nbrs[t, e]
            if side >= 0 and came_from[side] >= 0:
                if side != start:
                    move_agent(grid, pos, under, n, agent, side, w)
                facing[n, agent] = (e + 2) % 4
                return walk_length(came_from, start, side)
    return -1
