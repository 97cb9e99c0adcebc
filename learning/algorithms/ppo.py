"""PPO for a discrete, masked action space on tianshou 2.

tianshou 2 splits what 1.x called a policy into a `Policy` (the actor: obs -> action
distribution, used by the Collector) and an `Algorithm` (the update rule: losses, optimiser).
Here the policy is tianshou's `DiscreteActorPolicy` over our `MaskedActor` (Categorical from
masked logits) and the algorithm is tianshou's `PPO`, with one Adam optimiser over actor and
critic (tianshou builds it from an `OptimizerFactory`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.a2c import A2CTrainingStats
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import TorchOptimizerFactory
from tianshou.data import Batch, ReplayBuffer
from tianshou.data.types import (
    BatchWithAdvantagesProtocol,
    LogpOldProtocol,
    RolloutBatchProtocol,
)

from nesyworld.learning.algorithms.eager_adam import eager_adam_class
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.learning.config import PPOConfig

__all__ = ["ScaledRewardPPO", "UpdatePolicy", "build_ppo", "foreach_adam", "minibatch_view"]


def foreach_adam(lr: float) -> TorchOptimizerFactory:
    """Adam (torch's defaults otherwise) with its multi-tensor ("foreach") implementation.

    Why: on CPU torch defaults to updating each parameter tensor in its own Python-level
    loop; with three layers per network that loop was a tenth of a minibatch-64 gradient
    step. The foreach update does the same arithmetic (bit-identical weights, checked in
    tests/learning/test_fast_path.py), batched over the tensors. It is torch's Adam without
    the import of torch's compiler (learning/algorithms/eager_adam.py).
    """
    return TorchOptimizerFactory(eager_adam_class(), lr=lr, foreach=True)


NO_GRAD_BATCH = 8192
"""Rows per network call when PPO computes values and old log-probs before its passes
(tianshou's `max_batchsize`, 256 by default). Those calls carry no gradient, so their size is
only speed: a 4,096-step chunk took 48 small calls instead of 3 (the rows come out
bit-identical, checked in tests/learning/test_fast_path.py)."""

MINIBATCH_KEYS = ("act", "adv", "logp_old", "returns", "v_s")
"""What tianshou's PPO loss reads from a minibatch besides the observation."""


def _tensor(value: Any) -> torch.Tensor:
    return value if torch.is_tensor(value) else torch.as_tensor(np.asarray(value))


def minibatch_view(batch: Batch) -> Batch:
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


class ScaledRewardPPO(PPO):
    """tianshou's PPO with rewards multiplied by a constant where returns are computed.

    Only the batch given to the update is scaled, and only while its returns and advantages
    are computed, so the collector's episode returns (and the convergence test) stay in the
    env's units, and ICM's intrinsic reward, added before this point, is scaled with the
    extrinsic one (their ratio stays the paper's).
    """

    def __init__(self, *args: Any, reward_scale: float = 1.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reward_scale = reward_scale

    def _add_returns_and_advantages(
        self, batch: RolloutBatchProtocol, buffer: ReplayBuffer, indices: np.ndarray
    ) -> BatchWithAdvantagesProtocol:
        if self.reward_scale == 1.0:
            return super()._add_returns_and_advantages(batch, buffer, indices)
        original = batch.rew
        batch.rew = original * self.reward_scale
        try:
            return super()._add_returns_and_advantages(batch, buffer, indices)
        finally:
            batch.rew = original

    def _preprocess_batch(  # type: ignore[override]
        self, batch: RolloutBatchProtocol, buffer: ReplayBuffer, indices: np.ndarray
    ) -> LogpOldProtocol:
        with no_draws(self.policy):
            return super()._preprocess_batch(batch, buffer, indices)

    def _update_with_batch(  # type: ignore[override]
        self, batch: LogpOldProtocol, batch_size: int | None, repeat: int
    ) -> A2CTrainingStats:
        if not self.recompute_adv:  # recomputing reads the whole batch again at every pass
            batch = minibatch_view(batch)  # type: ignore[assignment]
        with no_draws(self.policy):
            return super()._update_with_batch(batch, batch_size, repeat)


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
    critic = ValueCritic(obs_dim, config.hidden_sizes)
    policy = UpdatePolicy(
        actor=actor,
        deterministic_eval=deterministic_eval,
        action_space=action_space,
    )
    return ScaledRewardPPO(
        reward_scale=config.reward_scale,
        policy=policy,
        critic=critic,
        optim=foreach_adam(config.lr),
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
