"""N copies of one world, stepped together: compiled kernels when the world compiles, N
ordinary `World`s when it does not (a plugin class, a third-party controller).

Both engines answer the same calls with the same numbers; the envs above them never ask which
one they have. Seeding follows `World`: world i of `reset(seed=s)` is seeded with s + i, and a
reset without a seed continues each world's own stream of episode keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nesyworld.world.batch.advance import StepBuffers, advance_worlds
from nesyworld.world.batch.dynamics import step_worlds
from nesyworld.world.batch.lifelong import LifelongStep
from nesyworld.world.batch.masks import mask_worlds
from nesyworld.world.batch.observe import beam_arrays, lidar_worlds
from nesyworld.world.batch.state import BatchState, reset_worlds
from nesyworld.world.batch.tables import NotCompilable, compile_world, kernel_tables
from nesyworld.world.kernels.keys import stream_of
from nesyworld.world.kernels.layout import MAX_LAYOUT_TRIES
from nesyworld.world.simulation.state import WorldState
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.model import WorldSpec

Seeds = int | Sequence[int | None] | None


class BatchWorld:
    """`num_envs` worlds of one spec. `engine` is "compiled" or "worlds" (why: `why_not`)."""

    def __init__(self, spec: WorldSpec | str | Path, num_envs: int, seed: int | None = None,
                 engine: str | None = None) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if engine not in (None, "compiled", "worlds"):
            raise ValueError(f"engine must be 'compiled', 'worlds' or None, got {engine!r}")
        self.template = World(spec)
        self.spec, self.types, self.num_envs = self.template.spec, self.template.types, num_envs
        self.main = self.template.main
        self.action_names = self.template.action_names()
        self.why_not = ""
        try:
            self.tables = compile_world(self.template)
        except NotCompilable as err:
            if engine == "compiled":
                raise
            self.why_not, engine = str(err), "worlds"
        self.engine = engine or "compiled"
        rows, columns = self.spec.map.size
        self.shape: tuple[int, int] = (rows, columns)
        goal = self.template._goal
        self._goal_ids, self._goal_counts = np.flatnonzero(goal), goal[np.flatnonzero(goal)]
        self._builders: dict[tuple[int, int | None], list[Any]] = {}
        if self.engine == "worlds":
            self.worlds = [World(self.spec, None if seed is None else seed + i)
                           for i in range(num_envs)]
            return
        self.state = BatchState.zeros(num_envs, self.tables)
        self._S, self._K = self.state.arrays(), kernel_tables(self.tables)
        self._L = self.tables.layout.kernel_args()
        self._stream = np.array([stream_of(None if seed is None else seed + i)
                                 for i in range(num_envs)], np.int64)
        self._resets = np.zeros(num_envs, np.int64)
        self._status = np.zeros(num_envs, np.int64)
        self._reset_compiled(np.arange(num_envs))

    # ------------------------------------------------------------------ episodes
    def reset(self, envs: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Start new episodes in worlds `envs`; a seed re-seeds that world, None continues."""
        if self.engine == "worlds":
            for n, s in zip(envs.tolist(), seeds, strict=True):
                self.worlds[n].reset(s)
            return
        for n, s in zip(envs.tolist(), seeds, strict=True):
            if s is None:
                self._resets[n] += 1
            else:
                self._stream[n], self._resets[n] = stream_of(s), 0
        self._reset_compiled(envs)

    def _reset_compiled(self, envs: np.ndarray) -> None:
        status = self._status[:len(envs)]
        h, w = self.shape
        reset_worlds(self._S, self._K, self.state.regions, envs.astype(np.int64), self._stream,
                     self._resets, self._L, h, w, MAX_LAYOUT_TRIES,
                     self.tables.init_inventory, status)
        self._raise_on_layout_failure(status)

    def _raise_on_layout_failure(self, status: np.ndarray) -> None:
        bad = np.flatnonzero(status)
        if len(bad):
            code, which = divmod(int(status[bad[0]]), 65536)
            status[:] = 0
            raise self.tables.layout._error(code, which, self.spec.name)

    # ------------------------------------------------------------------ vector steps
    def advance(self, actions: np.ndarray, out: StepBuffers, cap: int,
                max_range: int | None = None) -> None:
        """One vector-env step (NEXT_STEP autoreset): worlds whose `out.restart` is set
        start a new episode, the others take their action (int64, one per world); then
        rewards, flags, the "lidar" observations and the next masks are written to `out`,
        and `out.restart` marks the episodes that just ended."""
        if self.engine == "worlds":
            self._advance_worlds(actions, out, cap, max_range)
            return
        h, w = self.shape
        r_step, r_goal, r_give_up = self.tables.rewards
        advance_worlds(self._S, self._K, self.state.regions, self._L, self._stream,
                       self._resets, actions, self.main, h, w, MAX_LAYOUT_TRIES,
                       self.tables.init_inventory, self._goal_ids, self._goal_counts,
                       r_step, r_goal, r_give_up, self.tables.max_steps,
                       beam_arrays(*self.shape, max_range), self.tables.n_types, cap, out.obs,
                       out.mask, out.reward, out.terminated, out.truncated, out.ok, out.cost,
                       out.success, out.restart, self._status)
        self._raise_on_layout_failure(self._status)

    def _advance_worlds(self, actions: np.ndarray, out: StepBuffers, cap: int,
                        max_range: int | None) -> None:
        """`advance` for the "worlds" engine, part by part."""
        restart = out.restart.copy()
        stepped = np.flatnonzero(~restart)
        lifelong = LifelongStep(self) if self.spec.lifelong is not None else None
        costs = np.full(self.num_envs, np.nan)
        costs[stepped] = self.step(stepped, actions[stepped])
        if restart.any():
            self.reset(np.flatnonzero(restart), [None] * int(restart.sum()))
        out.success[:] = self.success()
        step, gave_up = self.clock()
        reward = self.spec.reward
        out.reward[:] = reward.step + reward.goal * out.success + reward.give_up * gave_up
        out.terminated[:] = out.success | gave_up
        out.truncated[:] = ~out.terminated & (step >= self.spec.max_steps)
        if lifelong is not None:  # schedule rewards; only giving up ends a lifelong world
            lifelong.finish(out, gave_up)
        out.ok[:] = ~np.isnan(costs)
        out.cost[:] = np.where(out.ok, costs, 0.0)
        out.reward[restart], out.terminated[restart], out.truncated[restart] = 0.0, False, False
        out.ok[restart], out.cost[restart] = True, 0.0
        out.restart[:] = out.terminated | out.truncated
        self.lidar_into(out.obs, cap, max_range)
        self.action_mask_into(out.mask)

    # ------------------------------------------------------------------ stepping
    def step(self, envs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """One round in each world of `envs` (main agent, NPCs, clock); the main action's
        cost per world, NaN where it was refused."""
        costs = np.empty(len(envs), np.float64)
        if self.engine == "worlds":
            for i, (n, a) in enumerate(zip(envs.tolist(), actions.tolist(), strict=True)):
                out = self.worlds[n].step(a)
                costs[i] = out.cost if out.ok else np.nan
            return costs
        h, w = self.shape
        step_worlds(self._S, self._K, envs.astype(np.int64), actions.astype(np.int64),
                    self.main, h, w, costs)
        return costs

    def action_mask_into(self, out: np.ndarray, envs: np.ndarray | None = None) -> None:
        """out[n, j]: the main agent's action j would not be refused in world n now, for the
        worlds `envs` (None: all; the other rows are left as they are)."""
        which = np.arange(self.num_envs) if envs is None else np.asarray(envs, np.int64)
        if self.engine == "worlds":
            for n in which.tolist():
                out[n] = self.worlds[n].action_mask()
            return
        h, w = self.shape
        mask_worlds(self._S, self._K, self.state.regions, self.main, h, w, out, which)

    def lidar_into(self, out: np.ndarray, cap: int, max_range: int | None = None,
                   envs: np.ndarray | None = None) -> None:
        """The main agent's "lidar" observation of the worlds `envs` (None: every world), as
        `NesyGridEnv` makes it; the other rows are left as they are."""
        which = np.arange(self.num_envs) if envs is None else np.asarray(envs, np.int64)
        if self.engine == "worlds":
            builders = self._builders.get((cap, max_range))
            if builders is None:
                from nesyworld.world.observations.builder import (
                    ObservationBuilder,
                    ObservationConfig,
                )

                config = ObservationConfig(kind="lidar", inventory_cap=cap,
                                           lidar_range=max_range)
                builders = self._builders[(cap, max_range)] = [
                    ObservationBuilder(world, world.main, config) for world in self.worlds]
            for n in which.tolist():
                out[n] = builders[n].build()
            return
        cells, dists, ego, offsets = beam_arrays(*self.shape, max_range)
        lidar_worlds(self._S, self.main, self.shape[1], cells, dists, ego, offsets,
                     self.tables.n_types, cap, out, which)

    # ------------------------------------------------------------------ queries
    def success(self) -> np.ndarray:
        """The main agent holds the goal, per world."""
        inv = self.inventory(self.main)
        return np.asarray((inv[:, self._goal_ids] >= self._goal_counts).all(axis=1))

    def inventory(self, agent: int) -> np.ndarray:
        if self.engine == "worlds":
            return np.stack([w.state.inventory[agent] for w in self.worlds])
        return self.state.inventory[:, agent]

    def clock(self) -> tuple[np.ndarray, np.ndarray]:
        """(steps taken, gave up) per world."""
        if self.engine == "worlds":
            return (np.array([w.state.step for w in self.worlds], np.int64),
                    np.array([w.state.gave_up for w in self.worlds], bool))
        return self.state.step, self.state.gave_up

    def export(self, n: int) -> WorldState:
        """World n as a `WorldState` (a copy)."""
        if self.engine == "worlds":
            return self.worlds[n].state.copy()
        return self.state.export(n, self.tables)

    def load(self, n: int, state: WorldState) -> None:
        """Put `state` (a WorldState of this spec) into world n."""
        if self.engine == "worlds":
            self.worlds[n].state = state.copy()
        else:
            self.state.load(n, state, self.tables)
