"""A key per copy of a batched world that changes whenever its abstract state may have.

`abstract` (symbolic/derivation/abstraction.py) builds a copy's `SymbolicState` from one
Python `World`, about 40 µs a call after 50 µs to export the copy's state to one; after a
batched step of N copies that would be most of the recovery's per-step work. Most steps do
not change the abstract state at all, so the batched recovery env (batched_env.py) reads the
same ingredients off the batched arrays for every copy at once, in one compiled call
(`key_kernel`), and builds the real abstraction only for copies whose key changed, and then
only for keys it has not seen.

The key holds everything `abstract` reads: the type in front of the main agent, the item it
holds, the count of each type on the map (the floor under agents included), its inventory,
each boolean property's (property, type) pairs and the `spawning` pairs in front. It can be
finer than the abstract state (two keys, one state: the env compares the states it maps
them to), never coarser. Worlds whose abstraction reads more (`facing_<d>` lookaheads, the
door facts) are not keyed: `unkeyable` says why, and their recoveries step Python worlds.
"""

from __future__ import annotations

import numpy as np

from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.world.actions.movement import closed_door_types
from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.kernels.jit import njit
from nesyworld.world.simulation.state import DIRECTIONS
from nesyworld.world.simulation.world import World

MAX_TYPES = 62
"""Types a key's bit masks (properties, spawns) can hold in an int64."""


def unkeyable(world: World) -> str:
    """Why the abstraction of `world`'s spec cannot be keyed off batched arrays ('' if it
    can)."""
    if any(int(getattr(a, "distance", 1)) != 1 for a in world.actions.values()):
        return "actions reach beyond the cell in front (the abstraction looks ahead)"
    if closed_door_types(world.spec):
        return "the map has closed doors (the abstraction reads regions behind them)"
    if len(world.types.names) > MAX_TYPES:
        return f"more than {MAX_TYPES} entity types"
    return ""


class AbstractKeys:
    """Computes the keys of all copies of a compiled `BatchWorld` (`engine == "compiled"`),
    in one compiled call (`key_kernel`)."""

    def __init__(self, batch: BatchWorld) -> None:
        if batch.engine != "compiled":
            raise ValueError("keys are read off the compiled engine's arrays")
        self.batch = batch
        self.n_types = batch.tables.n_types
        self.n_props = len(batch.tables.properties)
        self.width = 3 + 2 * self.n_types + self.n_props
        self._out = np.zeros((batch.num_envs, self.width), np.int64)

    def __call__(self) -> np.ndarray:
        """(N, width) int64: one key a row (a buffer the next call overwrites)."""
        st, (h, w) = self.batch.state, self.batch.shape
        key_kernel(st.grid, st.under, st.inventory, st.selected, st.pos, st.facing,
                   st.prop_has, st.prop_val, st.schedule, st.schedule_len, DIRECTIONS,
                   self.batch.main, h, w, self.n_types, self.n_props, self._out)
        return self._out


@njit
def key_kernel(grid: np.ndarray, under: np.ndarray, inventory: np.ndarray,
               selected: np.ndarray, pos: np.ndarray, facing: np.ndarray,
               prop_has: np.ndarray, prop_val: np.ndarray, schedule: np.ndarray,
               schedule_len: np.ndarray, directions: np.ndarray, main: int, h: int, w: int,
               n_types: int, n_props: int, out: np.ndarray) -> None:
    """Row i of `out`: [type in front, item held, spawning bit mask in front, counts on the
    map (T), inventory (T), per property the bit mask of types with it true]."""
    t = n_types
    for i in range(grid.shape[0]):
        out[i, :] = 0
        for cell in range(h * w):
            out[i, 3 + grid[i, cell]] += 1
            bits = prop_has[i, cell] & prop_val[i, cell]
            if bits != 0:
                for k in range(n_props):
                    if (bits >> k) & 1:
                        out[i, 3 + 2 * t + k] |= np.int64(1) << np.int64(grid[i, cell])
        for a in range(under.shape[1]):
            out[i, 3 + under[i, a]] += 1
        for k in range(t):
            out[i, 3 + t + k] = inventory[i, main, k]
        out[i, 1] = selected[i, main]
        d = facing[i, main]
        r, c = pos[i, main, 0] + directions[d, 0], pos[i, main, 1] + directions[d, 1]
        if 0 <= r < h and 0 <= c < w:
            cell = r * w + c
            here = grid[i, cell]
            out[i, 0] = here
            spawn = np.int64(0)
            for j in range(schedule_len[i]):
                if schedule[i, j, 1] == cell and schedule[i, j, 3] == here:
                    spawn |= np.int64(1) << schedule[i, j, 2]
            out[i, 2] = spawn


def state_of(batch: BatchWorld, n: int, scratch: World) -> SymbolicState:
    """The abstract state of copy n, built by `abstract` on `scratch` (a World of the same
    spec, whose state is overwritten)."""
    scratch.state = batch.export(n)
    return abstract(scratch)
