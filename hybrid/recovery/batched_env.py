"""The recovery env as a Gymnasium vector env on the batched core: N copies, one compiled step.

`RecoveryEnv` (env.py) steps one Python `World` and builds the symbolic abstraction after
every step, about 100 µs a step in Python; recovery training with it is bound by that, not by
the network. Its episodes all start from a handful of saved states, so the copies of a
`BatchWorld` can run them instead: each reset loads a start's state into a copy, and a step
advances every copy, observes and masks them in three compiled calls. The reward needs the
abstract state, which only Python builds (`abstract`), so a step reads a key per copy off the
arrays (abstract_keys.py: everything the abstraction reads, for all copies in a few numpy
calls) and builds the abstraction only for copies whose key changed to one not seen before.
A new abstract state is judged as `RecoveryEnv` judges it (the same targets and planner,
through a `RecoveryEnv` kept as the judge), and each (state, start) is judged once.

Copy for copy this is `RecoveryEnv`: given the same start draws and actions, the same
observations, masks, rewards, terminations, truncations and successes (tests hold it on the
Axe, Fence and Fire failures). Copy i of ``reset(seed=s)`` draws its starts as a
`RecoveryEnv` reset with seed s + i. The wins induction reads (`wins`, `Win`) are the same
too: a winning episode's actions are replayed in the judge's Python world from its start,
which the world's determinism (its randomness is keyed by the episode and the step) makes
the episode itself.

Autoreset is Gymnasium's NEXT_STEP, and ``options={"reset_mask": mask}`` resets only some
copies, as `NesyVectorEnv`. Infos: ``action_mask`` (N, actions) and ``success`` (N,).
`batched_why_not` says when a failure's world cannot run here (its spec does not compile,
its abstraction reads more than the keys hold, noisy or non-LiDAR observations); recovery
then trains on `RecoveryEnv` copies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nesyworld.hybrid.boundary.world_adapter import CopyRecipe
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.abstract_keys import AbstractKeys, state_of, unkeyable
from nesyworld.hybrid.recovery.env import (
    MAX_WINS,
    RecoveryEnv,
    RecoveryEnvConfig,
    SpecRef,
    Win,
    recovery_env_factory,
)
from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import Snapshot
from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.batch.tables import NotCompilable, compile_world
from nesyworld.world.envs.vector_reset import reset_request
from nesyworld.world.spec.model import WorldSpec


def batched_why_not(judge: RecoveryEnv) -> str:
    """Why the recovery env `judge` cannot run on the batched core ('' when it can)."""
    obs = judge.config.observation
    noise = obs.noise if obs.noise is not None else judge.world.spec.observation_noise
    if obs.kind != "lidar" or noise > 0:
        return f"observations of kind {obs.kind!r} with noise {noise} (the core: exact LiDAR)"
    why = unkeyable(judge.world)
    if why:
        return why
    try:
        compile_world(judge.world)
    except NotCompilable as err:
        return str(err)
    return ""


class RecoveryVectorEnv(VectorEnv):
    """`num_envs` copies of a `RecoveryEnv` (the constructor takes its arguments after
    `num_envs`) on one compiled `BatchWorld`."""

    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]
        "autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, *args: Any, **kwargs: Any) -> None:
        self.judge = judge = RecoveryEnv(*args, **kwargs)
        why = batched_why_not(judge)
        if why:
            raise ValueError(f"this recovery cannot run on the batched core: {why}")
        self.num_envs = n = num_envs
        self.batch = BatchWorld(judge.world_spec, n, engine="compiled")
        self.keys = AbstractKeys(self.batch)
        self.config = judge.config
        self.action_names = judge.action_names
        present = self.batch.action_names
        index = np.array([present.index(a) if a in present else -1
                          for a in self.action_names], np.int64)
        self._present, self._columns = index >= 0, np.maximum(index, 0)
        self.single_action_space = judge.action_space
        self.action_space = batch_space(self.single_action_space, n)
        self.single_observation_space = judge.observation_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self._obs = np.zeros((n, *(self.single_observation_space.shape or ())), np.float32)
        self._world_mask = np.zeros((n, len(present)), bool)
        self._mask = np.zeros((n, len(self.action_names)), bool)
        self._starts = [start for start, _ in judge.starts]
        self._start_states = [self._abstract_start(k) for k in range(len(self._starts))]
        self._start = np.zeros(n, np.int64)
        self._t = np.zeros(n, np.int64)
        self._actions = np.zeros((n, max(1, self.config.horizon)), np.int64)
        self._ids: dict[SymbolicState, int] = {}
        """Each abstract state met, numbered: copies compare and judge numbers."""
        self._known: list[SymbolicState] = []
        self._start_ids = [self._id(z) for z in self._start_states]
        self._state = np.full(n, self._start_ids[0], np.int64)
        self._key = np.zeros((n, self.keys.width), np.int64)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._pending = np.zeros(n, bool)
        self._held = np.zeros(n, bool)
        self._by_key: dict[bytes, int] = {}
        self._verdicts: dict[tuple[int, int], bool | None] = {}
        self._every = np.ones(n, bool)
        self._ready = False
        self.env_steps = 0
        """Env steps over the env's lifetime (all copies): the adaptation cost."""
        self.episodes = 0
        self.wins: list[Win] = []
        """The first `MAX_WINS` successful episodes of all copies, step by step."""

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Seed copy i with seed + i (or seed[i]); None continues each copy's generator.
        ``options={"reset_mask": mask}`` resets only the copies where mask is True."""
        seeds, envs = reset_request(self.num_envs, seed, options)
        for i in envs.tolist():
            if seeds[i] is not None:
                self._rngs[i] = seeding.np_random(seeds[i])[0]
        self._restart(envs)
        self._key[envs] = self.keys()[envs]
        self._observe(envs)
        self._pending[envs] = False
        self._ready = True
        return self._obs.copy(), self._info(np.zeros(self.num_envs, bool))

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        actions = self._check(actions)
        n, cfg = self.num_envs, self.config
        active, self._held = ~self._held, np.zeros(n, bool)
        restart = np.flatnonzero(self._pending & active)
        stepped = np.flatnonzero(~self._pending & active)
        reward = np.zeros(n)
        terminated, truncated, success = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
        if len(restart):
            self._restart(restart)
        if len(stepped):
            chosen = actions[stepped]
            self.batch.step(stepped, self._columns[chosen])
            self._actions[stepped, self._t[stepped]] = chosen
            self._t[stepped] += 1
            self.env_steps += len(stepped)
            reward[stepped] = cfg.step_reward
        keys = self.keys()
        moved = stepped[(keys[stepped] != self._key[stepped]).any(axis=1)]
        self._key[restart], self._key[moved] = keys[restart], keys[moved]
        for i in moved.tolist():
            verdict = self._judge(i, keys[i])
            if verdict is True:
                reward[i], terminated[i], success[i] = cfg.success_reward, True, True
                if len(self.wins) < MAX_WINS:
                    self.wins.append(self._replay(i))
            elif verdict is False:
                reward[i], terminated[i] = cfg.dead_end_reward, True
        truncated[stepped] = ~terminated[stepped] & (self._t[stepped] >= cfg.horizon)
        self._observe(np.concatenate([restart, stepped]))
        self._pending[active] = (terminated | truncated)[active]
        return self._obs.copy(), reward, terminated, truncated, self._info(success)

    def hold(self, mask: np.ndarray) -> None:
        """Leave the copies where `mask` is True as they are in the next step (it returns
        reward 0 and no flags for them): a vector env's idle copies (learning's
        VectorEnvAdapter, in evaluation) then take no env steps, which a recovery counts."""
        self._held = np.asarray(mask, bool).copy()

    # ------------------------------------------------------------------ episodes
    def _restart(self, envs: np.ndarray) -> None:
        """Load a start into each copy of `envs`, drawn as `RecoveryEnv.reset` draws it."""
        for i in envs.tolist():
            k = 0
            if len(self._starts) > 1:
                if self._rngs[i] is None:
                    self._rngs[i] = seeding.np_random()[0]
                k = int(self._rngs[i].integers(len(self._starts)))
            self.batch.load(i, self._starts[k].state)
            self._start[i], self._state[i] = k, self._start_ids[k]
        self._t[envs] = 0
        self.episodes += len(envs)

    def _abstract_start(self, k: int) -> SymbolicState:
        world = self.judge.world
        world.restore(self._starts[k])
        return abstract(world)

    def _id(self, z: SymbolicState) -> int:
        if z not in self._ids:
            self._ids[z] = len(self._known)
            self._known.append(z)
        return self._ids[z]

    def _judge(self, i: int, key: np.ndarray) -> bool | None:
        """Copy i's key changed: its abstract state (built only for a key not seen), and if
        that changed, what `RecoveryEnv` would decide there (once per state and start)."""
        raw = key.tobytes()
        state = self._by_key.get(raw)
        if state is None:
            z = state_of(self.batch, i, self.judge.world)
            state = self._by_key[raw] = self._id(z)
        if state == self._state[i]:
            return None
        self._state[i] = state
        start = int(self._start[i])
        if (state, start) not in self._verdicts:
            z = self._known[state]
            target = self.judge.target_of(z, start)
            self._verdicts[state, start] = (None if target is None
                                            else self.judge.verdict(z, target))
        return self._verdicts[state, start]

    def _replay(self, i: int) -> Win:
        """Copy i's episode, just won, as `RecoveryEnv` records it: its actions replayed in
        the judge's world from the same start, with the abstract states around each."""
        start = int(self._start[i])
        world = self.judge.world
        world.restore(self._starts[start])
        z0 = abstract(world)
        steps = []
        for a in self._actions[i, :self._t[i]].tolist():
            name = self.action_names[a]
            world.step(name)
            z1 = abstract(world)
            steps.append((name, z0, z1))
            z0 = z1
        return Win(start, tuple(steps))

    # ------------------------------------------------------------------ helpers
    def _observe(self, envs: np.ndarray) -> None:
        obs = self.config.observation
        self.batch.lidar_into(self._obs, obs.inventory_cap, obs.lidar_range, envs)
        self.batch.action_mask_into(self._world_mask, envs)
        self._mask[envs] = self._world_mask[envs][:, self._columns] & self._present

    def _check(self, actions: Any) -> np.ndarray:
        arr = np.asarray(actions)
        n, k = self.num_envs, len(self.action_names)
        if arr.shape != (n,) or arr.dtype.kind not in "iu":
            raise ValueError(f"actions must be {n} integers, got {arr.dtype} {arr.shape}")
        arr = arr.astype(np.int64, copy=False)
        if arr.min() < 0 or arr.max() >= k or not self._present[arr].all():
            raise ValueError(f"actions {arr.tolist()}: one is outside Discrete({k}) or names "
                             "an action this world lacks")
        return arr

    def _info(self, success: np.ndarray) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "success": success,
                "_action_mask": self._every, "_success": self._every}


def recovery_vector_env_factory(spec: WorldSpec | SpecRef | CopyRecipe, snapshot: Snapshot,
                                failure: OperatorFailure, kb: KnowledgeBase,
                                config: RecoveryEnvConfig | None = None,
                                **kwargs: Any) -> Callable[[int], RecoveryVectorEnv] | None:
    """`recovery_env_factory`'s batched counterpart: a factory of `RecoveryVectorEnv`s of n
    copies (learning.train's `vector_env_factory`), or None when this failure's world
    cannot run on the batched core (`batched_why_not`): train on `RecoveryEnv`s then."""
    single = recovery_env_factory(spec, snapshot, failure, kb, config or RecoveryEnvConfig(),
                                  **kwargs)
    if not isinstance(single, partial) or batched_why_not(single()):
        return None  # (the factory is always a partial: the check names its type)
    return partial(_copies, single.args, single.keywords)


def _copies(args: tuple[Any, ...], kwargs: dict[str, Any], num_envs: int) -> RecoveryVectorEnv:
    """A picklable factory's body: `RecoveryVectorEnv(num_envs, *args, **kwargs)`."""
    return RecoveryVectorEnv(num_envs, *args, **kwargs)
