"""Lean on-policy collection: N envs stepped together, one actor call per step, arrays out.

Why not tianshou's Collector for training: per step it builds several nested `Batch`es,
copies them into a `VectorReplayBuffer` env by env and converts each observation dict back
to tensors; on small networks and fast envs that bookkeeping, not the env or the network,
was most of a training step (see experiments/benchmarks/training.py). `Rollout` keeps the
Collector's semantics (sampled actions from the same actor, an ended episode's env reset at
once, episodes running on across chunks, the same torch random stream) so a run gives the
same transitions; it only stores them in preallocated (T, N) arrays, and hands tianshou's PPO
a `RolloutBuffer` laid out as the Collector's buffer would be (env by env, in time order).

Two kinds of envs: a tianshou `BaseVectorEnv` of `ActionMaskObservation`-wrapped single envs
(`TianshouEnvs`), or the Gymnasium vector env inside a `VectorEnvAdapter`, driven directly so
that observations and masks stay (N, ...) arrays (`GymVectorEnvs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch
from gymnasium.vector.utils import iterate
from tianshou.data import Batch, ReplayBuffer
from tianshou.env import BaseVectorEnv

from nesyworld.learning.algorithms import categorical
from nesyworld.learning.algorithms.masking import flatten_observation, illegal_action_rows
from nesyworld.learning.algorithms.networks import MaskedActor
from nesyworld.learning.training.vector_adapter import VectorEnvAdapter

__all__ = [
    "ChunkStats", "GymVectorEnvs", "Rollout", "RolloutBuffer", "StepEnvs", "TianshouEnvs",
    "stack_observations", "step_envs",
]

Arrays = tuple[np.ndarray, np.ndarray]
"""(observations (k, D) float32, legal-action masks (k, A) int8) of k envs."""
StepArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""obs, mask, reward (float64), terminated, truncated, success (bool), all (N, ...)."""


class StepEnvs(Protocol):
    """N envs stepped together, in the encoding the networks take."""

    num_envs: int

    def reset(self, ids: np.ndarray | None = None) -> Arrays: ...

    def step(self, actions: np.ndarray) -> StepArrays:
        """obs, mask, reward (float64), terminated, truncated, success (bool), all (N, ...)."""
        ...


def stack_observations(dicts: Any) -> Arrays:
    """Per-env {"obs", "mask"} dicts (ActionMaskObservation's form) as two stacked arrays."""
    return (np.stack([d["obs"] for d in dicts]), np.stack([d["mask"] for d in dicts]))


class TianshouEnvs:
    """A tianshou vector env of single envs wrapped by `ActionMaskObservation` (see envs.py)."""

    def __init__(self, venv: BaseVectorEnv) -> None:
        self.venv = venv
        self.num_envs = len(venv)

    def reset(self, ids: np.ndarray | None = None) -> Arrays:
        obs, _ = self.venv.reset(env_id=ids)
        return stack_observations(obs)

    def step(self, actions: np.ndarray) -> StepArrays:
        obs, rew, term, trunc, infos = self.venv.step(actions)
        success = np.array([bool(i.get("success", False)) for i in infos])
        return (*stack_observations(obs), np.asarray(rew, np.float64), np.asarray(term, bool),
                np.asarray(trunc, bool), success)


class GymVectorEnvs:
    """The Gymnasium vector env behind a `VectorEnvAdapter`, stepped with (N,) action arrays.

    Encodes like the adapter (and so like `ActionMaskObservation`) but for all N envs in numpy
    calls: flat float32 observations, int8 masks from infos[mask_key] (all legal where absent),
    the adapter's `max_episode_steps`, and partial resets through ``reset_mask``.
    """

    def __init__(self, adapter: VectorEnvAdapter) -> None:
        self.venv = adapter.venv
        self.num_envs = adapter.env_num
        self.n_actions = adapter.n_actions
        self.space = adapter.raw_observation_space
        self.mask_key, self.success_key = adapter.mask_key, adapter.success_key
        self.limit = adapter.max_episode_steps
        self._elapsed = np.zeros(self.num_envs, np.int64)
        self._flat = self.space.shape is not None and len(self.space.shape) == 1 and \
            np.issubdtype(self.space.dtype, np.number)

    def _obs(self, obs: Any) -> np.ndarray:
        if self._flat:
            return np.asarray(obs, dtype=np.float32).reshape(self.num_envs, -1)
        return np.stack([flatten_observation(self.space, o)
                         for o in iterate(self.venv.observation_space, obs)])

    def _info(self, infos: dict[str, Any], key: str, default: np.ndarray) -> np.ndarray:
        if key not in infos:
            return default
        value = np.asarray(infos[key])
        present = infos.get(f"_{key}")
        if present is not None and not np.all(present):
            value = np.where(np.asarray(present, bool).reshape(-1, *[1] * (value.ndim - 1)),
                             value, default)
        return value

    def _arrays(self, obs: Any, infos: dict[str, Any]) -> Arrays:
        return self._obs(obs), self._mask(infos)

    def _mask(self, infos: dict[str, Any]) -> np.ndarray:
        shape = (self.num_envs, self.n_actions)
        if self.mask_key not in infos:
            return np.ones(shape, np.int8)
        mask = self._info(infos, self.mask_key, np.ones(shape, bool))
        if mask.shape != shape:
            raise ValueError(f"info[{self.mask_key!r}] has shape {mask.shape}, expected "
                             f"{shape}")
        return mask.astype(bool, copy=False).astype(np.int8)

    def reset(self, ids: np.ndarray | None = None) -> Arrays:
        which = np.ones(self.num_envs, bool)
        if ids is not None:
            which = np.zeros(self.num_envs, bool)
            which[ids] = True
        options = None if which.all() else {"reset_mask": which}
        obs, infos = self.venv.reset(options=options)
        self._elapsed[which] = 0
        o, m = self._arrays(obs, infos)
        return (o, m) if ids is None else (o[ids], m[ids])

    def step(self, actions: np.ndarray) -> StepArrays:
        dtype = self.venv.single_action_space.dtype
        obs, rew, term, trunc, infos = self.venv.step(np.asarray(actions, dtype=dtype))
        self._elapsed += 1
        trunc = np.asarray(trunc, bool)
        if self.limit is not None:
            trunc = trunc | (self._elapsed >= self.limit)
        success = self._info(infos, self.success_key, np.zeros(self.num_envs, bool))
        return (*self._arrays(obs, infos), np.asarray(rew, np.float64), np.asarray(term, bool),
                trunc, np.asarray(success, bool).reshape(-1))


def step_envs(venv: BaseVectorEnv) -> StepEnvs:
    """The lean stepping interface of a training vector env made by `make_envs`."""
    return GymVectorEnvs(venv) if isinstance(venv, VectorEnvAdapter) else TianshouEnvs(venv)


class RolloutBuffer(ReplayBuffer):
    """A finished rollout of N envs x T steps as the replay buffer tianshou's update reads.

    Laid out env by env, each env's steps in time order, like a full `VectorReplayBuffer` of
    N sub-buffers read with ``sample(0)``; `unfinished_index` names every env's last step
    whose episode goes on, so GAE neither runs across envs nor treats a cut as an end.
    """

    def __init__(self, batch: Batch, steps_per_env: int) -> None:
        super().__init__(len(batch))
        self.set_batch(batch)
        self.steps_per_env = steps_per_env
        self._last = np.arange(steps_per_env - 1, len(batch), steps_per_env)

    def __len__(self) -> int:
        return self.maxsize

    def sample_indices(self, batch_size: int | None) -> np.ndarray:
        if batch_size != 0:
            raise ValueError("a RolloutBuffer is read whole (batch_size 0), in order")
        return np.arange(self.maxsize)

    def unfinished_index(self) -> np.ndarray:
        return self._last[~self.done[self._last]]

    def _boundary(self, index: np.ndarray) -> np.ndarray:
        return self.done[index] | (index % self.steps_per_env == self.steps_per_env - 1)

    def ends(self) -> np.ndarray:
        """Rows whose `obs_next` is not the next row's `obs`: an episode ended there, or the
        env's steps in this chunk did. PPO needs the critic's value of `obs_next` only
        there; elsewhere it is the next row's value of `obs`."""
        return self._boundary(np.arange(self.maxsize))

    def next(self, index: int | np.ndarray) -> np.ndarray:
        index = np.asarray(index)
        return index + ~self._boundary(index)

    def prev(self, index: int | np.ndarray) -> np.ndarray:
        index = np.asarray(index)
        first = index % self.steps_per_env == 0
        before = np.where(first, index, index - 1)
        return np.where(first | self.done[before], index, before)


@dataclass
class ChunkStats:
    """Episodes that ended during one `Rollout.collect`."""

    steps: int
    returns: list[float] = field(default_factory=list)
    """Env-reward return of each (from its first step, which may lie in an earlier chunk)."""
    successes: list[bool] = field(default_factory=list)


class Rollout:
    """Collects training chunks from `envs` with `actor` (sampling), episode by episode."""

    def __init__(self, envs: StepEnvs, actor: torch.nn.Module) -> None:
        self.envs, self.actor = envs, actor
        self.n = envs.num_envs
        self._obs, self._mask = envs.reset()
        self._returns = np.zeros(self.n)

    @torch.inference_mode()
    def _act(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sample as tianshou's DiscreteActorPolicy does (the same actions from the same
        random stream); also the log-probability of each sampled action, which PPO would
        otherwise compute again over the whole chunk before its passes (`ScaledRewardPPO`).

        Why numpy around the actor: on a recovery's 4 copies each of the dozen small torch
        calls of a draw (masking, sampling, gathering) cost as much as a layer of the actor,
        and acting was a fifth of recovery training; the mask, the argmax of the draw and
        the gather run on arrays instead (`categorical.draw`), the same numbers."""
        x = torch.from_numpy(obs)
        if isinstance(self.actor, MaskedActor) and x.dtype == torch.float32:
            logits = self.actor.logits(x, torch.from_numpy(illegal_action_rows(mask)))
        else:
            logits, _ = self.actor({"obs": x, "mask": torch.from_numpy(mask)})
        log_probs = categorical.normalize(logits)
        act = categorical.draw(log_probs)
        return act, log_probs.numpy()[np.arange(len(act)), act]

    def collect(self, n_step: int) -> tuple[RolloutBuffer, ChunkStats]:
        """At least `n_step` transitions (a multiple of N), as a buffer for one update."""
        t_max = max(1, -(-n_step // self.n))
        n, obs, mask = self.n, self._obs, self._mask
        o_buf = np.empty((t_max, n, obs.shape[1]), obs.dtype)
        m_buf = np.empty((t_max, n, mask.shape[1]), mask.dtype)
        next_o, next_m = np.empty_like(o_buf), np.empty_like(m_buf)
        act = np.empty((t_max, n), np.int64)
        logp = np.empty((t_max, n), np.float32)
        rew = np.empty((t_max, n))
        term, trunc = np.empty((t_max, n), bool), np.empty((t_max, n), bool)
        stats = ChunkStats(steps=t_max * n)
        was_training = self.actor.training
        self.actor.eval()
        try:
            for t in range(t_max):
                o_buf[t], m_buf[t] = obs, mask
                act[t], logp[t] = self._act(obs, mask)
                obs, mask, rew[t], term[t], trunc[t], success = self.envs.step(act[t])
                next_o[t], next_m[t] = obs, mask
                self._returns += rew[t]
                done = term[t] | trunc[t]
                if done.any():
                    ids = np.flatnonzero(done)
                    stats.returns.extend(self._returns[ids].tolist())
                    stats.successes.extend(success[ids].tolist())
                    self._returns[ids] = 0.0
                    obs, mask = obs.copy(), mask.copy()
                    obs[ids], mask[ids] = self.envs.reset(ids)
        finally:
            self.actor.train(was_training)
        self._obs, self._mask = obs, mask

        def env_major(a: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(a.swapaxes(0, 1)).reshape(t_max * n, *a.shape[2:])

        done = term | trunc
        batch = Batch(
            obs=Batch(obs=env_major(o_buf), mask=env_major(m_buf)),
            act=env_major(act), rew=env_major(rew), terminated=env_major(term),
            truncated=env_major(trunc), done=env_major(done),
            obs_next=Batch(obs=env_major(next_o), mask=env_major(next_m)),
            policy=Batch(logp_old=env_major(logp)),
        )
        return RolloutBuffer(batch, t_max), stats
