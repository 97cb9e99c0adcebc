"""Intrinsic curiosity (ICM, Pathak et al. 2017, arXiv:1705.05363) around any on-policy algorithm.

Uses tianshou 2's `ICMOnPolicyWrapper` and `IntrinsicCuriosityModule` as they are; the only
additions are a feature net that reads our Dict observations (the mask is not a feature) and
the mean intrinsic reward in the training stats, so the per-epoch records show how much
curiosity is adding.

How the wrapper works (tianshou 2.0.1): before the wrapped algorithm preprocesses a batch, the
ICM computes the forward-model error per transition and adds reward_scale * error to `rew`;
the wrapped algorithm (PPO) then computes advantages from that reward and updates; then one
ICM gradient step is taken on (1 - w) * inverse loss + w * forward loss; finally the original
reward is restored in the batch.
"""

from __future__ import annotations

import gymnasium as gym
from tianshou.algorithm.algorithm_base import OnPolicyAlgorithm, TrainingStats
from tianshou.algorithm.modelbased.icm import ICMOnPolicyWrapper, ICMTrainingStats
from tianshou.data.types import RolloutBatchProtocol
from tianshou.utils.net.discrete import IntrinsicCuriosityModule

from nesyworld.learning.algorithms.networks import ICMFeatureNet
from nesyworld.learning.algorithms.ppo import fused_adam
from nesyworld.learning.config import ICMConfig

__all__ = ["CuriosityStats", "CuriosityWrapper", "build_icm", "curiosity_module"]


class CuriosityStats(ICMTrainingStats):
    """tianshou's ICM stats plus the mean intrinsic reward per step of the update's batch."""

    def __init__(
        self,
        wrapped_stats: TrainingStats,
        *,
        icm_loss: float,
        icm_forward_loss: float,
        icm_inverse_loss: float,
        intrinsic_reward: float,
    ) -> None:
        # Must be set before super().__init__, which freezes attribute creation.
        self.intrinsic_reward = intrinsic_reward
        super().__init__(
            wrapped_stats,
            icm_loss=icm_loss,
            icm_forward_loss=icm_forward_loss,
            icm_inverse_loss=icm_inverse_loss,
        )


class CuriosityWrapper(ICMOnPolicyWrapper):
    """`ICMOnPolicyWrapper` that also reports the mean intrinsic reward."""

    _last_intrinsic: float = 0.0

    def _icm_preprocess_batch(self, batch: RolloutBatchProtocol) -> None:
        super()._icm_preprocess_batch(batch)
        self._last_intrinsic = float(batch.policy.mse_loss.mean().item()) * self.reward_scale

    def _icm_update(
        self, batch: RolloutBatchProtocol, original_stats: TrainingStats
    ) -> CuriosityStats:
        stats = super()._icm_update(batch, original_stats)
        return CuriosityStats(
            stats.wrapped_stats,
            icm_loss=stats.icm_loss,
            icm_forward_loss=stats.icm_forward_loss,
            icm_inverse_loss=stats.icm_inverse_loss,
            intrinsic_reward=self._last_intrinsic,
        )


def curiosity_module(obs_dim: int, n_actions: int, config: ICMConfig) -> IntrinsicCuriosityModule:
    """A freshly initialised ICM sized by `config`: the feature net phi(s), the forward model
    (phi(s) and the one-hot action, in that order, to phi(s')) and the inverse model (phi(s)
    and phi(s') to the action's logits). A checkpoint's `icm_state` is this module's."""
    feature_net = ICMFeatureNet(obs_dim, config.feature_hidden_sizes, config.feature_dim)
    return IntrinsicCuriosityModule(
        feature_net=feature_net,
        feature_dim=config.feature_dim,
        action_dim=n_actions,
        hidden_sizes=config.model_hidden_sizes,
    )


def build_icm(
    algorithm: OnPolicyAlgorithm,
    obs_dim: int,
    action_space: gym.spaces.Discrete,
    config: ICMConfig,
) -> CuriosityWrapper:
    """Wrap `algorithm` (e.g. PPO) with a fresh ICM sized by `config`."""
    return CuriosityWrapper(
        wrapped_algorithm=algorithm,
        model=curiosity_module(obs_dim, int(action_space.n), config),
        optim=fused_adam(config.lr),
        lr_scale=config.lr_scale,
        reward_scale=config.reward_scale,
        forward_loss_weight=config.forward_loss_weight,
    )
