"""PPO for a discrete, masked action space on tianshou 2.

tianshou 2 splits what 1.x called a policy into a `Policy` (the actor: obs -> action
distribution, used by the Collector) and an `Algorithm` (the update rule: losses, optimiser).
Here the policy is tianshou's `DiscreteActorPolicy` over our `MaskedActor` (Categorical from
masked logits) and the algorithm is tianshou's `PPO`, with one Adam optimiser over actor and
critic (tianshou builds it from an `OptimizerFactory`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import ReplayBuffer
from tianshou.data.types import BatchWithAdvantagesProtocol, RolloutBatchProtocol

from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.learning.config import PPOConfig

__all__ = ["ScaledRewardPPO", "build_ppo"]


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
    policy = DiscreteActorPolicy(
        actor=actor,
        deterministic_eval=deterministic_eval,
        action_space=action_space,
    )
    return ScaledRewardPPO(
        reward_scale=config.reward_scale,
        policy=policy,
        critic=critic,
        optim=AdamOptimizerFactory(lr=config.lr),
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
    )
