"""The state of N copies of a world as stacked arrays, and the kernel that resets them.

Field for field this is `WorldState` with a leading world axis; the two things a WorldState
holds as Python objects become arrays: a cell's properties are two bit masks (which
properties it has, and their values), and the schedule is a list of (due, cell, type,
expect) rows per world, in the order `World.schedule` appends them. `export` and `load`
convert one world to and from a `WorldState`, which is how tests compare the two and how a
caller inspects or seeds a batched world.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nesyworld.world.batch.tables import A_SELECTED, DEFAULT_HAS, DEFAULT_VAL, CoreTables
from nesyworld.world.batch.views import state_views
from nesyworld.world.kernels.jit import njit, unmanaged
from nesyworld.world.kernels.keys import episode_key
from nesyworld.world.kernels.layout import layout_kernel
from nesyworld.world.simulation.state import Scheduled, WorldState


@dataclass
class BatchState:
    """Stacked state; `arrays()` is the tuple `S` the kernels index (`S[0]` is the grid...)."""

    grid: np.ndarray  # int16 (N, H*W)
    pos: np.ndarray  # int32 (N, A, 2)
    facing: np.ndarray  # int8 (N, A)
    under: np.ndarray  # int16 (N, A)
    inventory: np.ndarray  # int32 (N, A, T)
    selected: np.ndarray  # int16 (N, A)
    prop_has: np.ndarray  # int64 (N, H*W): bit k set: the cell has property k
    prop_val: np.ndarray  # int64 (N, H*W): bit k: its value
    schedule: np.ndarray  # int64 (N, 2*H*W, 4): due, cell, type, expect
    schedule_len: np.ndarray  # int64 (N,)
    step: np.ndarray  # int64 (N,)
    gave_up: np.ndarray  # bool (N,)
    key: np.ndarray  # int64 (N,): the episode key
    version: np.ndarray  # int64 (N,): `static_version`
    # region cache of the mask kernel: labels, what each region touches, version labelled
    regions: tuple[np.ndarray, np.ndarray, np.ndarray] = field(default=())  # type: ignore[assignment]

    @classmethod
    def zeros(cls, n: int, tables: CoreTables) -> BatchState:
        h, w = tables.shape
        cells, a, t = h * w, len(tables.agent_table), tables.n_types
        return cls(
            np.zeros((n, cells), np.int16), np.zeros((n, a, 2), np.int32),
            np.zeros((n, a), np.int8), np.zeros((n, a), np.int16),
            np.zeros((n, a, t), np.int32), np.zeros((n, a), np.int16),
            np.zeros((n, cells), np.int64), np.zeros((n, cells), np.int64),
            # each cell holds at most two pending changes: set_cell drops the old ones and
            # adds at most one (grows_into), and a break adds its on_break after that
            np.zeros((n, 2 * cells, 4), np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros(n, bool), np.zeros(n, np.int64),
            np.zeros(n, np.int64),
            (np.full((n, cells), -1, np.int32), np.zeros((n, cells, t), bool),
             np.full(n, -1, np.int64)),
        )

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.grid, self.pos, self.facing, self.under, self.inventory, self.selected,
                self.prop_has, self.prop_val, self.schedule, self.schedule_len, self.step,
                self.gave_up, self.key, self.version)

    def export(self, n: int, tables: CoreTables) -> WorldState:
        """World n as a `WorldState` (copies)."""
        h, w = tables.shape
        props = {}
        has, val = self.prop_has[n], self.prop_val[n]
        for cell in np.flatnonzero(has).tolist():
            bits, values = int(has[cell]), int(val[cell])
            props[divmod(cell, w)] = {name: bool(values >> k & 1)
                                      for k, name in enumerate(tables.properties) if bits >> k & 1}
        schedule = [Scheduled(int(d), divmod(int(c), w), int(t), int(e))
                    for d, c, t, e in self.schedule[n, :self.schedule_len[n]].tolist()]
        return WorldState(
            self.grid[n].reshape(h, w).copy(), self.pos[n].copy(), self.facing[n].copy(),
            self.under[n].copy(), self.inventory[n].copy(), self.selected[n].copy(), props,
            schedule, int(self.step[n]), bool(self.gave_up[n]), int(self.version[n]),
            int(self.key[n]))

    def load(self, n: int, state: WorldState, tables: CoreTables) -> None:
        """Make world n `state` (a WorldState of a world of the same spec)."""
        h, w = tables.shape
        if state.grid.shape != (h, w) or state.inventory.shape != self.inventory.shape[1:]:
            raise ValueError(f"a state of shape {state.grid.shape} with {state.inventory.shape} "
                             f"inventories does not fit a world of shape {(h, w)} with "
                             f"{self.inventory.shape[1:]}")
        if len(state.schedule) > self.schedule.shape[1]:
            raise ValueError(f"{len(state.schedule)} scheduled changes; a batched world holds "
                             f"at most {self.schedule.shape[1]}")
        self.grid[n] = state.grid.ravel()
        self.pos[n], self.facing[n], self.under[n] = state.pos, state.facing, state.under
        self.inventory[n], self.selected[n] = state.inventory, state.selected
        self.prop_has[n] = self.prop_val[n] = 0
        bit = {name: k for k, name in enumerate(tables.properties)}
        for (r, c), values in state.props.items():
            for name, value in values.items():
                if name not in bit or not isinstance(value, bool):
                    raise ValueError(f"property {name}={value!r} at {(r, c)} does not fit this "
                                     f"batched world (boolean properties: {tables.properties})")
                self.prop_has[n, r * w + c] |= 1 << bit[name]
                self.prop_val[n, r * w + c] |= int(value) << bit[name]
        self.schedule_len[n] = len(state.schedule)
        for j, s in enumerate(state.schedule):
            self.schedule[n, j] = (s.due, s.cell[0] * w + s.cell[1], s.type_id, s.expect)
        self.step[n], self.gave_up[n], self.key[n] = state.step, state.gave_up, state.key
        self.version[n] = state.static_version
        self.regions[2][n] = -1


@njit
def reset_worlds(S: tuple, K: tuple, R: tuple, envs: np.ndarray, stream: np.ndarray,
                 resets: np.ndarray, L: tuple, h: int, w: int, tries: int,
                 init_inventory: np.ndarray, status: np.ndarray) -> None:
    """`World._initial_state` for each world in `envs`; status[i] = layout status * 2**16 +
    which placement or agent it concerns (0: ok)."""
    grid, pos, facing, under, inv, sel, p_has, p_val, _, sched_n, step, gave_up, keys, \
        version = state_views(S)
    tt, at = unmanaged(K[0]), unmanaged(K[10])
    labelled = unmanaged(R[2])
    for i in range(envs.shape[0]):
        n = envs[i]
        key = episode_key(stream[n], resets[n])
        code, which = layout_kernel(L[0], L[1], L[2], L[3], L[4], L[5], L[6], L[7], L[8], L[9],
                              L[10], L[11], L[12], L[13], key, h, w, tries, grid[n], pos[n],
                              under[n], facing[n])
        status[i] = code * 65536 + which
        inv[n, :, :] = init_inventory
        for a in range(sel.shape[1]):
            sel[n, a] = at[a, A_SELECTED]
        for cell in range(h * w):
            p_has[n, cell] = tt[grid[n, cell], DEFAULT_HAS]
            p_val[n, cell] = tt[grid[n, cell], DEFAULT_VAL]
        sched_n[n], step[n], gave_up[n], keys[n], version[n] = 0, 0, False, key, 0
        labelled[n] = -1
