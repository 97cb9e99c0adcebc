"""Evaluation episodes for the convergence test: a lean loop, and tianshou's Collector as reference.

Why not the Collector: `Collector.collect(n_episode=...)` builds nested `Batch`es, copies every
step into a `VectorReplayBuffer` and slices each finished episode back out of it; on small
networks and fast envs that bookkeeping was nearly all of a recovery run's wall time (py-spy).
`LeanEvaluation` makes the env and policy calls the Collector makes, in the same order and with
the same arguments, so the results, the env steps (idle ones included, see vector_adapter.py),
the torch random stream and the envs' state afterwards are the same; it only keeps per-env
returns and lengths in plain lists instead of a buffer. `CollectorEvaluation` is the Collector
path, kept as the reference the equivalence tests compare against (and as a fallback).

What the Collector does with n_episode (tianshou 2, `Collector._collect`), reproduced here:
the first min(N, episodes) envs are "ready"; each step the policy is called on the ready envs'
last observations and only those envs are stepped; envs that end an episode are reset at once
(surplus ones too); then, when fewer episodes remain than ready envs, the first finished envs
leave the ready set. When enough episodes ended, every env is reset, so the next evaluation
starts new episodes. Episode returns are summed step by step from 0.0, as its buffer does.
Lengths are counted, not read back from a buffer, so (unlike the Collector's) they stay right
for an episode longer than the buffer; for every other episode they are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch
from tianshou.algorithm.modelfree.reinforce import ProbabilisticActorPolicy
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.data.collector import StepHook
from tianshou.env import BaseVectorEnv
from tianshou.utils.net.discrete import dist_fn_categorical_from_logits
from tianshou.utils.torch_utils import torch_train_mode

from nesyworld.learning.algorithms import categorical
from nesyworld.learning.algorithms.masking import SUCCESS_INFO_KEY, illegal_action_rows
from nesyworld.learning.algorithms.networks import MaskedActor
from nesyworld.learning.training.rollout import stack_observations
from nesyworld.learning.training.vector_adapter import VectorEnvAdapter

__all__ = ["CollectorEvaluation", "EvalResult", "Evaluation", "LeanEvaluation"]


@dataclass
class EvalResult:
    """The episodes of one evaluation, in the order the Collector reports them."""

    returns: np.ndarray
    lens: np.ndarray
    successes: list[bool]
    collected_steps: int
    """Steps of the envs the evaluation used (the Collector's n_collected_steps)."""
    env_steps: int
    """All env steps taken, including a native vector env's idle envs."""

    @property
    def episodes(self) -> int:
        return len(self.returns)


class Evaluation(Protocol):
    """Runs evaluation episodes on one vector env, from fresh resets each time."""

    def run(self, episodes: int) -> EvalResult: ...


def _idle_steps(venv: BaseVectorEnv) -> int:
    return venv.pop_idle_steps() if isinstance(venv, VectorEnvAdapter) else 0


class _SuccessRecorder(StepHook):
    """Collector step hook recording the success flag of every episode that ends.

    Why a step hook and not the episode batch tianshou hands to CollectStats: that batch is
    sliced from the replay buffer, and the flag belongs to the step that ended the episode.
    """

    def __init__(self) -> None:
        self.flags: list[bool] = []

    def __call__(self, action_batch: Any, rollout_batch: Any) -> None:
        done = np.asarray(rollout_batch.done, dtype=bool)
        if done.any():
            success = rollout_batch.info.get(SUCCESS_INFO_KEY)
            flags = np.zeros(len(done), bool) if success is None else np.asarray(success, bool)
            self.flags.extend(flags[done].tolist())

    def pop(self) -> list[bool]:
        flags, self.flags = self.flags, []
        return flags


class CollectorEvaluation:
    """tianshou's Collector with n_episode (the reference path). `buffer_per_env` must hold a
    whole episode (plus one): tianshou takes episode lengths from the buffer."""

    def __init__(self, venv: BaseVectorEnv, policy: ProbabilisticActorPolicy,
                 buffer_per_env: int) -> None:
        self.success = _SuccessRecorder()
        self.collector: Collector[CollectStats] = Collector(policy, venv, VectorReplayBuffer(
            buffer_per_env * len(venv), len(venv)), on_step_hook=self.success)
        self.collector.reset()

    def run(self, episodes: int) -> EvalResult:
        stats = self.collector.collect(n_episode=episodes)
        self.collector.reset_buffer()
        steps = stats.n_collected_steps
        return EvalResult(np.asarray(stats.returns, float), np.asarray(stats.lens, int),
                          self.success.pop(), steps, steps + _idle_steps(self.collector.env))


class LeanEvaluation:
    """The Collector's n_episode loop without its buffer and batches (module docstring).

    Steps the envs through their tianshou interface (`step(actions, ids)`, `reset(env_id=...)`)
    so a `VectorEnvAdapter` takes exactly the idle steps and partial resets it takes under the
    Collector. Like the Collector, resets every env once at construction.
    """

    def __init__(self, venv: BaseVectorEnv, policy: ProbabilisticActorPolicy) -> None:
        self.venv, self.policy = venv, policy
        self.n = len(venv)
        self._obs, self._mask = self._reset_all()

    def _reset_all(self) -> tuple[np.ndarray, np.ndarray]:
        obs, _ = self.venv.reset()
        return stack_observations(obs)

    @torch.inference_mode()
    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The policy's action as its forward chooses it: the mode outside a training step
        with deterministic_eval (no random draw), else a sample (one draw, as the Collector).
        A `MaskedActor` under tianshou's categorical takes the rollout's lean path
        (rollout.py): the same actions from the same random stream, without a
        `Categorical` built each step."""
        greedy = self.policy.deterministic_eval and not self.policy.is_within_training_step
        actor = self.policy.actor
        if isinstance(actor, MaskedActor) and obs.dtype == np.float32 \
                and self.policy.dist_fn is dist_fn_categorical_from_logits:
            log_probs = categorical.normalize(actor.logits(
                torch.from_numpy(obs), torch.from_numpy(illegal_action_rows(mask))))
            act = categorical.mode(log_probs) if greedy else categorical.draw(log_probs)
            return self.policy.map_action(act)
        logits, _ = actor({"obs": torch.from_numpy(obs), "mask": torch.from_numpy(mask)})
        dist = self.policy.dist_fn(logits)
        return self.policy.map_action((dist.mode if greedy else dist.sample()).cpu().numpy())

    def run(self, episodes: int) -> EvalResult:
        ready = np.arange(min(self.n, episodes))
        obs, mask = self._obs[ready], self._mask[ready]
        ep_ret: list[Any] = [0.0] * self.n
        ep_len = [0] * self.n
        returns: list[float] = []
        lens: list[int] = []
        successes: list[bool] = []
        steps = collected = 0
        with torch_train_mode(self.policy, enabled=False):
            while True:
                act = self._act(obs, mask)
                next_obs, rew, term, trunc, infos = self.venv.step(act, ready)
                obs, mask = stack_observations(next_obs)
                done = np.logical_or(term, trunc)
                steps += len(ready)
                for j, i in enumerate(ready.tolist()):
                    ep_ret[i] += rew[j]  # the buffer's running sum, same types, same order
                    ep_len[i] += 1
                if not done.any():
                    continue
                local = np.flatnonzero(done)
                for j in local.tolist():
                    i = int(ready[j])
                    returns.append(float(ep_ret[i]))
                    lens.append(ep_len[i])
                    successes.append(bool(infos[j].get(SUCCESS_INFO_KEY, False)))
                    ep_ret[i], ep_len[i] = 0.0, 0
                collected += len(local)
                reset_obs, _ = self.venv.reset(env_id=ready[local])
                obs[local], mask[local] = stack_observations(reset_obs)
                if collected >= episodes:
                    break
                surplus = len(ready) - (episodes - collected)
                if surplus > 0:
                    keep = np.ones(len(ready), bool)
                    keep[local[:surplus]] = False
                    ready, obs, mask = ready[keep], obs[keep], mask[keep]
        self._obs, self._mask = self._reset_all()
        return EvalResult(np.asarray(returns, float), np.asarray(lens, int), successes,
                          steps, steps + _idle_steps(self.venv))
