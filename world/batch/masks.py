"""The main agent's action mask for N worlds: `World.action_mask`, batched.

Every entry is exactly whether the action's `check` would pass (the same functions as
`dynamics.act` decide it), except approach, which like `Approach.mask` asks only whether the
target touches the agent's walkable region (an NPC in the only doorway is not seen). Regions
depend on the static map alone (agents count as the floor under them), so each world keeps
its labels and what each region touches until a cell of its map changes (`version`).
"""

from __future__ import annotations

import numpy as np

from nesyworld.world.batch.dynamics import (
    exchange_allows,
    front_cell,
    neighbour,
    rule_allows,
)
from nesyworld.world.batch.tables import (
    APPROACH,
    APPROACH_FIRST,
    ARG,
    BREAK,
    BREAK_TOOL,
    BREAKABLE,
    COLLECT,
    CRAFT,
    DESELECT,
    KIND,
    MOVE,
    PASSABLE,
    PLACE,
    PLACEABLE,
    SELECT,
    USE,
)
from nesyworld.world.batch.views import region_views, state_views, table_views
from nesyworld.world.kernels.jit import njit


@njit
def label_regions(grid: np.ndarray, pos: np.ndarray, under: np.ndarray, version: np.ndarray,
                  tt: np.ndarray, nbrs: np.ndarray, labels: np.ndarray, touching: np.ndarray,
                  labelled: np.ndarray, n: int, w: int) -> None:
    """Walkable regions of world n (agents' cells walkable) and, per region, which types lie
    on a cell with a 4-neighbour in it (the floor under an agent counting as that cell's)."""
    n_cells = grid.shape[1]
    ground = grid[n].copy()
    walk = np.empty(n_cells, np.bool_)
    for cell in range(n_cells):
        walk[cell] = tt[grid[n, cell], PASSABLE] != 0
    for a in range(pos.shape[1]):
        cell = pos[n, a, 0] * w + pos[n, a, 1]
        walk[cell] = True
        ground[cell] = under[n, a]
    labels[n, :] = -1
    touching[n, :, :] = False
    stack = np.empty(n_cells, np.int64)
    count = 0
    for start in range(n_cells):
        if not walk[start] or labels[n, start] >= 0:
            continue
        labels[n, start] = count
        stack[0], top = start, 0
        while top >= 0:
            cur = stack[top]
            top -= 1
            for d in range(4):
                nb = nbrs[cur, d]
                if nb < 0:
                    continue
                touching[n, count, ground[nb]] = True
                if walk[nb] and labels[n, nb] < 0:
                    labels[n, nb] = count
                    top += 1
                    stack[top] = nb
        count += 1
    labelled[n] = version[n]


@njit(inline=True)
def approach_allowed(grid: np.ndarray, pos: np.ndarray, labels: np.ndarray,
                     touching: np.ndarray, n: int, agent: int, tid: int, h: int,
                     w: int) -> bool:
    here = labels[n, pos[n, agent, 0] * w + pos[n, agent, 1]]
    if touching[n, here, tid]:
        return True
    for a in range(pos.shape[1]):  # other agents standing in or next to the region
        if a == agent:
            continue
        cell = pos[n, a, 0] * w + pos[n, a, 1]
        if grid[n, cell] != tid:
            continue
        if labels[n, cell] == here:
            return True
        for d in range(4):
            nb = neighbour(cell, d, h, w)
            if nb >= 0 and labels[n, nb] == here:
                return True
    return False


@njit
def mask_worlds(S: tuple, K: tuple, R: tuple, agent: int, h: int, w: int,
                out: np.ndarray, envs: np.ndarray) -> None:
    """out[n, j]: env action j of `agent` would not be refused in world n now, for the worlds
    `envs` (the other rows are left as they are)."""
    grid, pos, facing, under, inv, sel, p_has, p_val, _, _, _, _, _, version = state_views(S)
    tt, rt, rcons, _, acts, need, _, partner, _, _, _, _, _, _, n_act, need_items, \
        cons_items, nbrs = table_views(K)
    n_actions = n_act[agent]
    labels, touching, labelled = region_views(R)
    for i in range(envs.shape[0]):
        n = envs[i]
        if labelled[n] != version[n]:
            label_regions(grid, pos, under, version, tt, nbrs, labels, touching, labelled, n, w)
        here = pos[n, agent, 0] * w + pos[n, agent, 1]
        front = front_cell(pos, facing, n, agent, h, w)
        ft = grid[n, front] if front >= 0 else -1
        held = sel[n, agent]
        for j in range(n_actions):
            kind, arg = acts[agent, j, KIND], acts[agent, j, ARG]
            if kind == MOVE:
                nb = neighbour(here, (facing[n, agent] + arg) % 4, h, w)
                ok = nb >= 0 and tt[grid[n, nb], PASSABLE] != 0
            elif kind in (APPROACH, APPROACH_FIRST):
                ok = approach_allowed(grid, pos, labels, touching, n, agent, arg, h, w)
            elif kind == BREAK:
                ok = ft >= 0 and tt[ft, BREAKABLE] != 0
                if ok:
                    tool = tt[ft, BREAK_TOOL]
                    ok = tool < 0 or (held == tool and inv[n, agent, tool] >= 1)
            elif kind in (COLLECT, USE):
                ok = ft >= 0 and rule_allows(grid, inv, sel, p_has, p_val, rt, rcons,
                                             cons_items, n, agent, kind - COLLECT, front)
            elif kind == CRAFT:
                ok = exchange_allows(grid, pos, facing, inv, p_has, p_val, tt, need, need_items,
                                     partner, n, agent, arg, h, w)
            elif kind == SELECT:
                ok = inv[n, agent, arg] >= 1 and held != arg
            elif kind == DESELECT:
                ok = held != 0
            elif kind == PLACE:
                ok = (held != 0 and tt[held, PLACEABLE] != 0 and inv[n, agent, held] >= 1
                      and ft == 0)
            else:  # nop, give_up, rotate: never refused
                ok = True
            out[n, j] = ok
