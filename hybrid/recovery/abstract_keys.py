"""A key per copy of a batched world that changes whenever its abstract state may have.

`abstract` (symbolic/derivation/abstraction.py) builds a copy's `SymbolicState` from one
Python `World`, about 30 µs a call; after a batched step of N copies that would be most of
the recovery's per-step Python work. Most steps do not change the abstract state at all, so
the batched recovery env (vector_env.py) reads the same ingredients off the batched arrays
for every copy at once, a few numpy calls for all of them, and builds the real abstraction
only for copies whose key changed, and then only for keys it has not seen.

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
    """Computes the keys of all copies of a compiled `BatchWorld` (`engine == "compiled"`)."""

    def __init__(self, batch: BatchWorld) -> None:
        if batch.engine != "compiled":
            raise ValueError("keys are read off the compiled engine's arrays")
        self.batch = batch
        self.n_types = batch.tables.n_types
        self.n_props = len(batch.tables.properties)
        n = batch.num_envs
        self._offsets = (np.arange(n, dtype=np.int64) * self.n_types)[:, None]
        self._bits = np.int64(1) << np.arange(self.n_types, dtype=np.int64)
        self.width = 3 + 2 * self.n_types + self.n_props

    def __call__(self) -> np.ndarray:
        """(N, width) int64: one key a row."""
        st, main, t = self.batch.state, self.batch.main, self.n_types
        n, (h, w) = self.batch.num_envs, self.batch.shape
        grid = st.grid.astype(np.int64)
        out = np.empty((n, self.width), np.int64)
        counts = np.bincount((grid + self._offsets).ravel(), minlength=n * t)
        counts += np.bincount((st.under.astype(np.int64) + self._offsets).ravel(),
                              minlength=n * t)
        out[:, 3:3 + t] = counts.reshape(n, t)
        out[:, 3 + t:3 + 2 * t] = st.inventory[:, main]
        out[:, 1] = st.selected[:, main]
        step = DIRECTIONS[st.facing[:, main].astype(np.int64)]
        r = st.pos[:, main, 0].astype(np.int64) + step[:, 0]
        c = st.pos[:, main, 1].astype(np.int64) + step[:, 1]
        inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
        cell = np.where(inside, r * w + c, 0)
        here = np.where(inside, grid[np.arange(n), cell], 0)
        out[:, 0] = here
        out[:, 2] = self._spawning(cell, here, inside)
        for k in range(self.n_props):
            true = ((st.prop_has >> k) & (st.prop_val >> k) & 1).astype(bool)
            rows, cells = np.nonzero(true)
            mask = np.zeros(n, np.int64)
            np.bitwise_or.at(mask, rows, self._bits[grid[rows, cells]])
            out[:, 3 + 2 * t + k] = mask
        return out

    def _spawning(self, cell: np.ndarray, here: np.ndarray, inside: np.ndarray) -> np.ndarray:
        """Per copy, the bit mask of types a pending change in front will put there (when the
        cell still holds what it expects): finer than `spawning(t)`, which also asks that the
        pair be one of the spec's spawns."""
        st = self.batch.state
        longest = int(st.schedule_len.max(initial=0))
        out = np.zeros(len(cell), np.int64)
        if longest == 0:
            return out
        sched = st.schedule[:, :longest]
        live = np.arange(longest)[None, :] < st.schedule_len[:, None]
        hit = (live & inside[:, None] & (sched[:, :, 1] == cell[:, None])
               & (sched[:, :, 3] == here[:, None]))
        rows, cols = np.nonzero(hit)
        if len(rows):
            np.bitwise_or.at(out, rows, self._bits[sched[rows, cols, 2]])
        return out


def state_of(batch: BatchWorld, n: int, scratch: World) -> SymbolicState:
    """The abstract state of copy n, built by `abstract` on `scratch` (a World of the same
    spec, whose state is overwritten)."""
    scratch.state = batch.export(n)
    return abstract(scratch)
