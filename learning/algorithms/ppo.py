"""PPO for a discrete, masked action space on tianshou 2.

tianshou 2 splits what 1.x called a policy into a `Policy` (the actor: obs -> action
distribution, used by the Collector) and an `Algorithm` (the update rule: losses, optimiser).
Here the policy is tianshou's `DiscreteActorPolicy` over our `MaskedActor` (Categorical from
masked logits) and the algorithm is tianshou's `PPO`, with one Adam optimiser over actor and
critic (tianshou builds it from an `OptimizerFactory`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.a2c import A2CTrainingStats
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import TorchOptimizerFactory
from tianshou.data import Batch, ReplayBuffer, to_torch_as
from tianshou.data.batch import BatchProtocol
from tianshou.data.types import (
    BatchWithAdvantagesProtocol,
    LogpOldProtocol,
    RolloutBatchProtocol,
)

from nesyworld.learning.algorithms.eager_adam import eager_adam_class
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.learning.algorithms.ppo_passes import (
    ChunkTensors,
    LossSettings,
    SplitStep,
    run_passes,
)
from nesyworld.learning.config import PPOConfig

__all__ = [
    "RecordingOptimizerFactory",
    "ScaledRewardPPO",
    "UpdatePolicy",
    "build_ppo",
    "fused_adam",
    "minibatch_view",
    "update_thread",
]


class RecordingOptimizerFactory(TorchOptimizerFactory):
    """tianshou's factory of a torch optimizer, keeping the last optimizer it made.

    Why: a split gradient step (`ppo_passes.SplitStep`) zeroes, clips and steps the
    optimizer itself, and tianshou's `Algorithm.Optimizer` does not hand out the one it
    wraps."""

    created: torch.optim.Optimizer | None = None

    def create_instances(self, module: torch.nn.Module) -> tuple[torch.optim.Optimizer, Any]:
        optimizer, scheduler = super().create_instances(module)
        self.created = optimizer
        return optimizer, scheduler


def fused_adam(lr: float) -> RecordingOptimizerFactory:
    """Adam (torch's defaults otherwise) with its fused implementation: one compiled pass over
    each parameter tensor for the whole update.

    Why: the per-tensor and multi-tensor ("foreach") updates run Adam's arithmetic as a
    dozen separate torch operations per tensor, and torch's `sqrt` of an exact 0 runs on a
    slow path (6x a nonzero's, measured on torch 2.13, AVX-512). Moments that stay exactly 0
    are common here: inputs that read 0 throughout a run (the placeholder slots of the
    paper's RL baselines, the types a recovery never sees) give their first-layer columns a
    gradient of exactly 0. On the recovery's networks with half the first layer's inputs at
    0, a step took 435 us with foreach and 142 us fused (one thread, 2026-11-30). The
    fused update does Adam's arithmetic in another order, so its weights differ from the
    per-tensor Adam's in the last bits (tests/learning/test_fast_path.py). It is torch's Adam
    without the import of torch's compiler (learning/algorithms/eager_adam.py).
    """
    return RecordingOptimizerFactory(eager_adam_class(), lr=lr, fused=True)


NO_GRAD_BATCH = 8192
"""Rows per network call when PPO computes values and old log-probs before its passes
(tianshou's `max_batchsize`, 256 by default). Those calls carry no gradient, so their size is
only speed: a 4,096-step chunk took 48 small calls instead of 3 (the rows come out
bit-identical, checked in tests/learning/test_fast_path.py)."""

MINIBATCH_KEYS = ("act", "adv", "logp_old", "returns", "v_s")
"""What tianshou's PPO loss reads from a minibatch besides the observation."""


def _tensor(value: Any) -> torch.Tensor:
    return value if torch.is_tensor(value) else torch.as_tensor(np.asarray(value))


def minibatch_view(batch: BatchProtocol) -> Batch:
    """The part of a preprocessed batch that PPO's minibatches read, as tensors.

    Why: tianshou splits the whole batch into minibatches, indexing every field (obs_next,
    rewards, flags, infos, ICM's per-transition outputs) at every gradient step, and the
    networks then convert the numpy observation and mask to tensors again each time. On small
    networks that bookkeeping cost as much as the gradient step. Same values, same order,
    same minibatches (the shuffle draws one permutation of the same length).
    """
    obs = batch.obs
    if isinstance(obs, Batch):
        fields = {"obs": _tensor(obs.obs).float()}
        if "mask" in obs.get_keys():
            fields["mask"] = _tensor(obs.mask).bool()
        obs = Batch(fields)
    else:
        obs = _tensor(obs).float()
    return Batch(obs=obs, info=Batch(), **{k: batch[k] for k in MINIBATCH_KEYS})


class UpdatePolicy(DiscreteActorPolicy):
    """tianshou's DiscreteActorPolicy that draws no action where only its distribution is
    read.

    Why: inside a training step the policy always samples, and PPO calls it on every
    minibatch of its passes and on the whole chunk for the old log-probs, only to read
    `.dist`: a 2,048-row sample per gradient step, thrown away (a fifth of the update's time
    beside the minimal PPO, experiments/benchmarks/training.py). While `drawing` is False
    the forward pass returns the distribution and the most probable action instead. The
    thrown-away draws also advanced torch's random stream; without them later draws differ,
    as a different seed's would."""

    drawing: bool = True

    def forward(self, batch: Any, state: Any = None) -> Any:
        if self.drawing:
            return super().forward(batch, state)
        logits, hidden = self.actor(batch.obs, state=state, info=batch.info)
        dist = self.dist_fn(logits)
        return Batch(logits=logits, act=dist.mode, state=hidden, dist=dist)


@contextmanager
def no_draws(policy: Any) -> Iterator[None]:
    """The update's passes: distributions only (UpdatePolicy)."""
    if not isinstance(policy, UpdatePolicy):
        yield
        return
    policy.drawing = False
    try:
        yield
    finally:
        policy.drawing = True


def _chunk_ends(buffer: ReplayBuffer, indices: np.ndarray) -> np.ndarray | None:
    """The rows of a whole rollout chunk (rollout.py's buffer, read in order) whose `obs_next`
    is not the next row's `obs`; None for any other buffer or reading."""
    ends = getattr(buffer, "ends", None)
    if ends is None or len(indices) != len(buffer) or not np.array_equal(
            indices, np.arange(len(buffer))):
        return None
    return np.asarray(ends(), bool)


def _collected_log_probs(batch: BatchProtocol) -> np.ndarray | None:
    """Log-probabilities the rollout stored beside the actions it sampled, if it did."""
    policy = batch.get("policy")
    if not isinstance(policy, Batch) or "logp_old" not in policy.get_keys():
        return None
    return np.asarray(policy.logp_old, np.float32)


class ScaledRewardPPO(PPO):
    """tianshou's PPO with rewards multiplied by a constant where returns are computed.

    Only the batch given to the update is scaled, and only while its returns and advantages
    are computed, so the collector's episode returns (and the convergence test) stay in the
    env's units, and ICM's intrinsic reward, added before this point, is scaled with the
    extrinsic one (their ratio stays the paper's).
    """

    def __init__(self, *args: Any, reward_scale: float = 1.0, critic_warmup_steps: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reward_scale = reward_scale
        # `PPOConfig.critic_warmup_steps`: the env steps trained on so far count it down
        self.critic_warmup_steps = critic_warmup_steps
        self.steps_trained = 0
        # the torch optimizer of `optim` where its factory kept it (`fused_adam`), and the
        # pool `update_thread` sets: what a split gradient step needs
        factory = kwargs.get("optim")
        self.torch_optimizer = factory.created if isinstance(
            factory, RecordingOptimizerFactory) else None
        self.max_grad_norm: float | None = kwargs.get("max_grad_norm")
        self.update_pool: ThreadPoolExecutor | None = None

    def _add_returns_and_advantages(
        self, batch: RolloutBatchProtocol, buffer: ReplayBuffer, indices: np.ndarray
    ) -> BatchWithAdvantagesProtocol:
        original = batch.rew
        if self.reward_scale != 1.0:
            batch.rew = original * self.reward_scale
        try:
            ends = _chunk_ends(buffer, indices)
            if ends is None:
                return super()._add_returns_and_advantages(batch, buffer, indices)
            return self._returns_from_one_pass(batch, buffer, indices, ends)
        finally:
            batch.rew = original

    def _returns_from_one_pass(
        self, batch: RolloutBatchProtocol, buffer: ReplayBuffer, indices: np.ndarray,
        ends: np.ndarray,
    ) -> BatchWithAdvantagesProtocol:
        """tianshou's A2C returns and advantages, with the critic run over `obs` once.

        Why: tianshou runs the critic over `obs` and again over `obs_next`, but in a whole
        collected chunk `obs_next` of a row is the next row's `obs` except where an episode
        or the chunk ended (`ends`); only those rows need a pass of their own. The rest is
        A2C's own code path: the same GAE, return scaling and fields.
        """
        rows = np.flatnonzero(ends)
        # one pass over the chunk's observations and the ended rows' next ones, in pieces of
        # `max_batchsize` rows (a row's value is the same in any piece, up to float rounding)
        both = Batch.cat([batch.obs, batch.obs_next[rows]]) if len(rows) else batch.obs
        with torch.no_grad():
            values = torch.cat([self.critic(both[i:i + self.max_batchsize])
                                for i in range(0, len(both), self.max_batchsize)]).flatten()
        n = len(batch)
        batch.v_s = values[:n]
        v = values[:n].cpu().numpy()
        v_next = np.empty_like(v)
        v_next[:-1] = v[1:]
        v_next[rows] = values[n:].cpu().numpy()
        if self.return_scaling:
            scale = np.sqrt(self.ret_rms.var + self._eps)
            v, v_next = v * scale, v_next * scale
        returns, advantages = self.compute_episodic_return(
            batch, buffer, indices, v_next, v, gamma=self.gamma, gae_lambda=self.gae_lambda)
        if self.return_scaling:
            batch.returns = returns / np.sqrt(self.ret_rms.var + self._eps)
            self.ret_rms.update(returns)
        else:
            batch.returns = returns
        batch.returns = to_torch_as(batch.returns, batch.v_s)
        batch.adv = to_torch_as(advantages, batch.v_s)
        return cast(BatchWithAdvantagesProtocol, batch)

    def _preprocess_batch(
        self, batch: RolloutBatchProtocol, buffer: ReplayBuffer, indices: np.ndarray
    ) -> LogpOldProtocol:
        collected = _collected_log_probs(batch)
        if collected is None:
            with no_draws(self.policy):
                return super()._preprocess_batch(batch, buffer, indices)
        # the rollout kept each action's log-probability as it sampled it (rollout.py):
        # PPO's pass of the actor over the whole chunk would compute the same numbers
        if self.recompute_adv:
            self._buffer, self._indices = buffer, indices
        batch = self._add_returns_and_advantages(batch, buffer, indices)
        batch.act = to_torch_as(batch.act, batch.v_s)
        batch.logp_old = to_torch_as(collected, batch.v_s)
        return cast(LogpOldProtocol, batch)

    def _update_with_batch(  # type: ignore[override]
        self, batch: LogpOldProtocol, batch_size: int | None, repeat: int
    ) -> A2CTrainingStats:
        actor, critic = self.policy.actor, self.critic
        if self.recompute_adv or not isinstance(actor, MaskedActor) \
                or not isinstance(critic, ValueCritic):
            # recomputing reads the whole batch again at every pass; other networks are
            # called through tianshou's interface
            with no_draws(self.policy):
                return super()._update_with_batch(batch, batch_size, repeat)
        chunk = ChunkTensors.of(minibatch_view(batch))
        split = None
        if self.update_pool is not None and self.torch_optimizer is not None:
            split = SplitStep(self.update_pool, self.torch_optimizer, self.max_grad_norm)
        settings = self.loss_settings
        if self.steps_trained < self.critic_warmup_steps:
            settings = replace(settings, train_actor=False)
        self.steps_trained += len(chunk.obs)
        return run_passes(actor, critic, self.optim.step, chunk, settings,
                          batch_size, repeat, split)

    @property
    def loss_settings(self) -> LossSettings:
        return LossSettings(eps_clip=self.eps_clip, dual_clip=self.dual_clip,
                            value_clip=self.value_clip,
                            advantage_normalization=self.advantage_normalization,
                            vf_coef=self.vf_coef, ent_coef=self.ent_coef, eps=self._eps)


@contextmanager
def update_thread(ppo: PPO) -> Iterator[None]:
    """Inside: a second thread for `ppo`'s update (`TrainConfig.update_thread`). Each
    gradient step runs the critic's half there (`ppo_passes.SplitStep`), and an ICM around
    `ppo` takes its own step there while PPO prepares its passes (icm.py). Other algorithms
    are left as they are, and so are the gradient steps of a PPO whose optimiser
    `fused_adam` did not make (a warning says so: the thread would then buy little)."""
    if not isinstance(ppo, ScaledRewardPPO):
        yield
        return
    if ppo.torch_optimizer is None:
        warnings.warn("update_thread: this PPO's optimiser was not made by fused_adam, so "
                      "its gradient steps stay on one thread (only an ICM's step moves)",
                      RuntimeWarning, stacklevel=3)
    with ThreadPoolExecutor(1, thread_name_prefix="nesyworld-update") as pool:
        ppo.update_pool = pool
        try:
            yield
        finally:
            ppo.update_pool = None


def build_ppo(
    obs_dim: int,
    action_space: gym.spaces.Discrete,
    config: PPOConfig,
    deterministic_eval: bool = True,
) -> PPO:
    """A fresh PPO algorithm (actor, critic, optimiser) for flat observations of `obs_dim`.

    `deterministic_eval`: outside a training step (evaluation) the policy takes the most
    probable legal action; inside one (collection for training) it always samples.
    """
    n_actions = int(action_space.n)
    actor = MaskedActor(obs_dim, n_actions, config.hidden_sizes, config.action_prior)
    critic = ValueCritic(obs_dim, config.critic_sizes)
    policy = UpdatePolicy(
        actor=actor,
        deterministic_eval=deterministic_eval,
        action_space=action_space,
    )
    return ScaledRewardPPO(
        reward_scale=config.reward_scale,
        critic_warmup_steps=config.critic_warmup_steps,
        policy=policy,
        critic=critic,
        optim=fused_adam(config.lr),
        eps_clip=config.eps_clip,
        dual_clip=config.dual_clip,
        value_clip=config.value_clip,
        advantage_normalization=config.advantage_normalization,
        recompute_advantage=config.recompute_advantage,
        vf_coef=config.vf_coef,
        ent_coef=config.ent_coef,
        max_grad_norm=config.max_grad_norm,
        gae_lambda=config.gae_lambda,
        gamma=config.gamma,
        return_scaling=config.return_scaling,
        max_batchsize=NO_GRAD_BATCH,
    )
