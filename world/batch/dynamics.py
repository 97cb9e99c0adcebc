"""One round of N worlds: the main agent's action, every NPC's, then the clock.

Each function here is the batched twin of a built-in action class's `check` + `apply` (or of
`World.set_cell`, `World.end_round`, a controller's `choose`), written over one world's slice
of the stacked state so that numba compiles the loop over worlds. The twins must agree with
the classes exactly; tests/world/test_batch.py steps both side by side on every shipped
domain and novelty. Cells are flat indices (r * W + c).

Only the entry kernel unpacks the state and table tuples (`BatchState.arrays`,
`kernel_tables`); helpers take the arrays they use. Handing a helper a whole tuple cost a
reference count on each of its ~30 arrays per call, several times what the step itself costs.
"""

from __future__ import annotations

import numpy as np

from nesyworld.world.batch.tables import (
    A_BREAK,
    A_CTRL,
    A_N_MOVES,
    A_N_ROT,
    APPROACH,
    APPROACH_FIRST,
    ARG,
    AUTOMATIC,
    BECOMES,
    BREAK,
    BREAK_TOOL,
    BREAKABLE,
    COLLECT,
    CRAFT,
    CTRL_RIVAL,
    CTRL_STATIONARY,
    DEFAULT_HAS,
    DEFAULT_VAL,
    DESELECT,
    DISABLED_MASK,
    DISABLED_VAL,
    GIVE_UP,
    GROWS_AFTER,
    GROWS_SPAWN,
    KIND,
    LEAVES,
    MOVE,
    NOP,
    ON_BREAK_AFTER,
    ON_BREAK_SPAWN,
    PASSABLE,
    PLACE,
    PLACEABLE,
    REMOVES,
    ROTATE,
    RULE_HAS,
    RULE_HOLDING,
    SELECT,
    SETS_MASK,
    SETS_VAL,
    USE,
    WHEN_MASK,
    WHEN_VAL,
)
from nesyworld.world.batch.views import state_views, table_views
from nesyworld.world.batch.walking import approach, approach_first, move_agent
from nesyworld.world.entities.controllers import (
    DRAW_BREAK,
    DRAW_MOVE,
    DRAW_ROTATE,
    DRAW_WHICH_MOVE,
    DRAW_WHICH_ROTATION,
)
from nesyworld.world.kernels.jit import njit
from nesyworld.world.kernels.keys import npc_uniform


@njit(inline=True)
def neighbour(cell: int, d: int, h: int, w: int) -> int:
    """The cell next to `cell` in direction d (0 N, 1 E, 2 S, 3 W), or -1 past the edge."""
    if d == 0:
        return cell - w if cell >= w else -1
    if d == 2:
        return cell + w if cell < (h - 1) * w else -1
    c = cell % w
    if d == 1:
        return cell + 1 if c < w - 1 else -1
    return cell - 1 if c > 0 else -1


@njit(inline=True)
def front_cell(pos: np.ndarray, facing: np.ndarray, n: int, agent: int, h: int, w: int) -> int:
    return neighbour(pos[n, agent, 0] * w + pos[n, agent, 1], facing[n, agent], h, w)


@njit
def schedule(sched: np.ndarray, sched_n: np.ndarray, step: np.ndarray, n: int, after: int,
             cell: int, tid: int, expect: int) -> None:
    m = sched_n[n]
    if m >= sched.shape[1]:
        raise ValueError("batched world: schedule capacity exceeded")
    sched[n, m, 0], sched[n, m, 1], sched[n, m, 2], sched[n, m, 3] = (
        step[n] + after, cell, tid, expect)
    sched_n[n] = m + 1


@njit
def set_cell(grid: np.ndarray, p_has: np.ndarray, p_val: np.ndarray, sched: np.ndarray,
             sched_n: np.ndarray, step: np.ndarray, version: np.ndarray, tt: np.ndarray,
             n: int, cell: int, tid: int) -> None:
    """`World.set_cell`: new content, its default properties, schedules of the old dropped."""
    grid[n, cell] = tid
    m, k = sched_n[n], 0
    for j in range(m):
        if sched[n, j, 1] != cell:
            if k != j:
                sched[n, k, :] = sched[n, j, :]
            k += 1
    sched_n[n] = k
    p_has[n, cell], p_val[n, cell] = tt[tid, DEFAULT_HAS], tt[tid, DEFAULT_VAL]
    version[n] += 1
    if tt[tid, GROWS_SPAWN] >= 0:
        schedule(sched, sched_n, step, n, tt[tid, GROWS_AFTER], cell, tt[tid, GROWS_SPAWN], tid)


@njit
def fire_due(grid: np.ndarray, p_has: np.ndarray, p_val: np.ndarray, sched: np.ndarray,
             sched_n: np.ndarray, step: np.ndarray, version: np.ndarray, tt: np.ndarray,
             n: int) -> None:
    """The rest of `World.end_round`, once the clock moved: due changes happen in order."""
    m, now = sched_n[n], step[n]
    due = 0
    for j in range(m):
        if sched[n, j, 0] <= now:
            due += 1
    if due == 0:
        return
    fired = np.empty((due, 4), np.int64)
    d = k = 0
    for j in range(m):
        if sched[n, j, 0] <= now:
            fired[d, :] = sched[n, j, :]
            d += 1
        else:
            sched[n, k, :] = sched[n, j, :]
            k += 1
    sched_n[n] = k
    for d in range(due):
        if grid[n, fired[d, 1]] == fired[d, 3]:
            set_cell(grid, p_has, p_val, sched, sched_n, step, version, tt, n, fired[d, 1],
                     fired[d, 2])


@njit(inline=True)
def disabled(grid: np.ndarray, p_has: np.ndarray, p_val: np.ndarray, tt: np.ndarray, n: int,
             cell: int) -> bool:
    """Some `disabled_when` property of the thing in `cell` holds its disabling value."""
    tid = grid[n, cell]
    mask = tt[tid, DISABLED_MASK] & p_has[n, cell]
    return (~(p_val[n, cell] ^ tt[tid, DISABLED_VAL]) & mask) != 0


@njit(inline=True)
def rule_allows(grid: np.ndarray, inv: np.ndarray, sel: np.ndarray, p_has: np.ndarray,
                p_val: np.ndarray, rt: np.ndarray, consumes: np.ndarray, items: np.ndarray,
                n: int, agent: int, r: int, cell: int) -> bool:
    """`_Interaction.check` passes: rule `r` (0 collect, 1 use) of the thing in `cell`."""
    tid = grid[n, cell]
    if not rt[r, tid, RULE_HAS]:
        return False
    hid = rt[r, tid, RULE_HOLDING]
    if hid >= 0 and (sel[n, agent] != hid or inv[n, agent, hid] < 1):
        return False
    wm = rt[r, tid, WHEN_MASK]
    if (p_has[n, cell] & wm) != wm or (p_val[n, cell] & wm) != rt[r, tid, WHEN_VAL]:
        return False
    for i in range(items.shape[2]):
        t = items[r, tid, i]
        if t < 0:
            break
        if inv[n, agent, t] < consumes[r, tid, t]:
            return False
    return True


@njit(inline=True)
def exchange_allows(grid: np.ndarray, pos: np.ndarray, facing: np.ndarray, inv: np.ndarray,
                    p_has: np.ndarray, p_val: np.ndarray, tt: np.ndarray, need: np.ndarray,
                    items: np.ndarray, partner: np.ndarray, n: int, agent: int, row: int,
                    h: int, w: int) -> bool:
    """`_Exchange.check` passes: its partner `distance` cells ahead with empty cells between
    (`_partner_cell`), usable, and the inputs in the inventory."""
    p = partner[row, 0]
    if p >= 0:
        cell = front_cell(pos, facing, n, agent, h, w)
        if partner[row, 1] != 1 and cell >= 0:
            d = facing[n, agent]
            for _ in range(partner[row, 1] - 1):
                if grid[n, cell] != 0:
                    cell = -1
                    break
                cell = neighbour(cell, d, h, w)
                if cell < 0:
                    break
        if cell < 0 or grid[n, cell] != p or disabled(grid, p_has, p_val, tt, n, cell):
            return False
    for i in range(items.shape[1]):
        t = items[row, i]
        if t < 0:
            break
        if inv[n, agent, t] < need[row, t]:
            return False
    return True


@njit(inline=True)
def act(grid: np.ndarray, pos: np.ndarray, facing: np.ndarray, under: np.ndarray,
        inv: np.ndarray, sel: np.ndarray, p_has: np.ndarray, p_val: np.ndarray,
        sched: np.ndarray, sched_n: np.ndarray, step: np.ndarray, gave_up: np.ndarray,
        version: np.ndarray, tt: np.ndarray, rt: np.ndarray, rcons: np.ndarray,
        drops: np.ndarray, acts: np.ndarray, need: np.ndarray, delta: np.ndarray,
        partner: np.ndarray, rgives: np.ndarray, costs: np.ndarray, need_items: np.ndarray,
        cons_items: np.ndarray, nbrs: np.ndarray, n: int, agent: int, j: int, w: int) -> float:
    """Run env action j of `agent` in world n: its cost, or NaN when it is refused. (Thirty
    arguments at most: past that CPython passes them as *args, which numba cannot inline.)"""
    h = grid.shape[1] // w
    kind, arg, cost = acts[agent, j, KIND], acts[agent, j, ARG], costs[agent, j]
    if kind == NOP:
        return cost
    if kind == GIVE_UP:
        gave_up[n] = True
        return cost
    if kind == ROTATE:
        facing[n, agent] = (facing[n, agent] + arg) % 4
        return cost
    if kind == MOVE:
        cell = neighbour(pos[n, agent, 0] * w + pos[n, agent, 1], (facing[n, agent] + arg) % 4,
                         h, w)
        if cell < 0 or not tt[grid[n, cell], PASSABLE]:
            return np.nan
        move_agent(grid, pos, under, n, agent, cell, w)
        return cost
    if kind in (APPROACH, APPROACH_FIRST):
        if kind == APPROACH:
            length = approach(grid, pos, facing, under, tt, nbrs, n, agent, arg, w)
        else:
            length = approach_first(grid, pos, facing, under, tt, nbrs, n, agent, arg, w)
        return np.nan if length < 0 else max(cost, float(length))
    if kind == SELECT:
        if inv[n, agent, arg] < 1 or sel[n, agent] == arg:
            return np.nan
        sel[n, agent] = arg
        return cost
    if kind == DESELECT:
        if sel[n, agent] == 0:
            return np.nan
        sel[n, agent] = 0
        return cost
    if kind == CRAFT:
        if not exchange_allows(grid, pos, facing, inv, p_has, p_val, tt, need, need_items, partner,
                               n, agent, arg, h, w):
            return np.nan
        inv[n, agent, :] += delta[arg]
        return cost
    front = front_cell(pos, facing, n, agent, h, w)
    if front < 0:
        return np.nan
    tid = grid[n, front]
    if kind == BREAK:
        tool = tt[tid, BREAK_TOOL]
        if not tt[tid, BREAKABLE] or (tool >= 0 and (sel[n, agent] != tool
                                                     or inv[n, agent, tool] < 1)):
            return np.nan
        leaves = tt[tid, LEAVES]
        set_cell(grid, p_has, p_val, sched, sched_n, step, version, tt, n, front, leaves)
        inv[n, agent, :] += drops[tid]
        if tt[tid, ON_BREAK_SPAWN] >= 0:
            schedule(sched, sched_n, step, n, tt[tid, ON_BREAK_AFTER], front,
                     tt[tid, ON_BREAK_SPAWN], leaves)
        return cost
    if kind in (COLLECT, USE):
        r = kind - COLLECT
        if not rule_allows(grid, inv, sel, p_has, p_val, rt, rcons, cons_items, n, agent, r, front):
            return np.nan
        inv[n, agent, :] += rgives[r, tid] - rcons[r, tid]
        sm = rt[r, tid, SETS_MASK]
        if sm:
            p_has[n, front] |= sm
            p_val[n, front] = (p_val[n, front] & ~sm) | rt[r, tid, SETS_VAL]
        if rt[r, tid, REMOVES]:
            set_cell(grid, p_has, p_val, sched, sched_n, step, version, tt, n, front,
                     rt[r, tid, BECOMES])
        return cost
    if kind == PLACE:
        held = sel[n, agent]
        if held == 0 or not tt[held, PLACEABLE] or inv[n, agent, held] < 1 or tid != 0:
            return np.nan
        inv[n, agent, held] -= 1
        set_cell(grid, p_has, p_val, sched, sched_n, step, version, tt, n, front, held)
        return cost
    return np.nan


@njit(inline=True)
def pick_up_beside(grid: np.ndarray, pos: np.ndarray, inv: np.ndarray, p_has: np.ndarray,
                   p_val: np.ndarray, sched: np.ndarray, sched_n: np.ndarray, step: np.ndarray,
                   version: np.ndarray, tt: np.ndarray, rt: np.ndarray, rgives: np.ndarray,
                   nbrs: np.ndarray, n: int, agent: int, w: int) -> None:
    """`interact.pick_up_beside`: the automatic collect rules of the four cells beside."""
    here = pos[n, agent, 0] * w + pos[n, agent, 1]
    for d in range(4):
        cell = nbrs[here, d]
        if cell >= 0:
            tid = grid[n, cell]
            if tt[tid, AUTOMATIC]:
                inv[n, agent, :] += rgives[0, tid]
                set_cell(grid, p_has, p_val, sched, sched_n, step, version, tt, n, cell,
                         rt[0, tid, BECOMES])


@njit(inline=True)
def choose(key: np.ndarray, step: np.ndarray, at: np.ndarray, probs: np.ndarray,
           moves: np.ndarray, rots: np.ndarray, n: int, agent: int) -> int:
    """The built-in controllers' `choose` (Stationary, RandomWalk, Rival), or -1 to skip."""
    ctrl = at[agent, A_CTRL]
    if ctrl <= CTRL_STATIONARY:
        return -1
    k, now = key[n], step[n]
    if ctrl == CTRL_RIVAL:
        b = at[agent, A_BREAK]
        if b >= 0 and probs[agent, 1] > 0 and npc_uniform(
                k, now, agent, DRAW_BREAK) < probs[agent, 1]:
            return b
        nr = at[agent, A_N_ROT]
        if nr > 0 and npc_uniform(k, now, agent, DRAW_ROTATE) < probs[agent, 2]:
            return rots[agent, int(npc_uniform(k, now, agent, DRAW_WHICH_ROTATION) * nr)]
    if npc_uniform(k, now, agent, DRAW_MOVE) >= probs[agent, 0]:
        return -1
    return moves[agent, int(npc_uniform(k, now, agent, DRAW_WHICH_MOVE) * at[agent, A_N_MOVES])]


@njit
def step_worlds(S: tuple, K: tuple, envs: np.ndarray, actions: np.ndarray, main: int,
                h: int, w: int, costs: np.ndarray) -> None:
    """`World.step` in each world of `envs`: costs[i] is the cost of actions[i] (the main
    agent's, in world envs[i]), NaN if it was refused."""
    grid, pos, facing, under, inv, sel, p_has, p_val, sched, sched_n, step, gave_up, key, \
        version = state_views(S)
    tt, rt, rcons, drops, acts, need, delta, partner, rgives, act_cost, at, probs, moves, \
        rots, _, need_items, cons_items, nbrs = table_views(K)
    n_agents = pos.shape[1]
    for i in range(envs.shape[0]):
        n = envs[i]
        costs[i] = act(grid, pos, facing, under, inv, sel, p_has, p_val, sched, sched_n, step,
                       gave_up, version, tt, rt, rcons, drops, acts, need, delta, partner,
                       rgives, act_cost, need_items, cons_items, nbrs, n, main, actions[i], w)
        if not np.isnan(costs[i]):
            pick_up_beside(grid, pos, inv, p_has, p_val, sched, sched_n, step, version, tt, rt,
                           rgives, nbrs, n, main, w)
        for agent in range(n_agents):
            if agent != main:
                j = choose(key, step, at, probs, moves, rots, n, agent)
                if j >= 0:
                    act(grid, pos, facing, under, inv, sel, p_has, p_val, sched, sched_n, step,
                        gave_up, version, tt, rt, rcons, drops, acts, need, delta, partner,
                        rgives, act_cost, need_items, cons_items, nbrs, n, agent, j, w)
        step[n] += 1
        if sched_n[n]:
            fire_due(grid, p_has, p_val, sched, sched_n, step, version, tt, n)
