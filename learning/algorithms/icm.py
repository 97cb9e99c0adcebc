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

from concurrent.futures import Future

import gymnasium as gym
import torch
import torch.nn.functional as F
from tianshou.algorithm.algorithm_base import OnPolicyAlgorithm, TrainingStats
from tianshou.algorithm.modelbased.icm import ICMOnPolicyWrapper, ICMTrainingStats
from tianshou.data import to_torch
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
    """`ICMOnPolicyWrapper` that also reports the mean intrinsic reward, and that takes its
    gradient step early, on the update's second thread, where there is one.

    Why early: the ICM's step reads only what its own pass over the batch computed, so it
    can run while the wrapped PPO computes values and advantages, instead of after PPO's
    passes. Its loss and step are tianshou's `_icm_update`, term for term; the weights come
    out the same, bit for bit (tests/learning/test_fast_path.py)."""

    _last_intrinsic: float = 0.0
    _early: tuple[Future[None], tuple[float, float, float]] | None = None
    """The early step under way, and its (loss, forward loss, inverse loss)."""

    def _icm_preprocess_batch(self, batch: RolloutBatchProtocol) -> None:
        super()._icm_preprocess_batch(batch)
        self._last_intrinsic = float(batch.policy.mse_loss.mean().item()) * self.reward_scale
        pool = getattr(self.wrapped_algorithm, "update_pool", None)
        if pool is not None:
            loss, forward_loss, inverse_loss = self._icm_losses(batch)
            values = (loss.item(), forward_loss.item(), inverse_loss.item())
            self._early = (pool.submit(self.optim.step, loss), values)

    def _icm_losses(self, batch: RolloutBatchProtocol
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(loss, forward loss, inverse loss) of the batch, as tianshou's `_icm_update`."""
        act_hat = batch.policy.act_hat
        act = to_torch(batch.act, dtype=torch.long, device=act_hat.device)
        inverse_loss = F.cross_entropy(act_hat, act).mean()
        forward_loss = batch.policy.mse_loss.mean()
        loss = ((1 - self.forward_loss_weight) * inverse_loss
                + self.forward_loss_weight * forward_loss) * self.lr_scale
        return loss, forward_loss, inverse_loss

    def _update_with_batch(self, batch: RolloutBatchProtocol, batch_size: int | None,
                           repeat: int) -> TrainingStats:
        try:
            return super()._update_with_batch(batch, batch_size, repeat)
        finally:
            early, self._early = self._early, None
            if early is not None:
                early[0].result()

    def _icm_update(
        self, batch: RolloutBatchProtocol, original_stats: TrainingStats
    ) -> CuriosityStats:
        if self._early is None:
            stats = super()._icm_update(batch, original_stats)
            values = (stats.icm_loss, stats.icm_forward_loss, stats.icm_inverse_loss)
        else:
            step, values = self._early
            self._early = None
            step.result()
        return CuriosityStats(
            original_stats,
            icm_loss=values[0],
            icm_forward_loss=values[1],
            icm_inverse_loss=values[2],
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
