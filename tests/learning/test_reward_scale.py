"""PPO scales rewards only where it computes returns: the batch and the statistics keep the
env's units, and a bad scale is refused."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from tianshou.data import Batch, ReplayBuffer

from nesyworld.learning import PPOConfig
from nesyworld.learning.algorithms.ppo import ScaledRewardPPO, build_ppo


def filled_buffer(rewards: list[float]) -> ReplayBuffer:
    buffer = ReplayBuffer(len(rewards))
    for i, r in enumerate(rewards):
        last = i == len(rewards) - 1
        buffer.add(Batch(obs={"obs": np.zeros(3, np.float32), "mask": np.ones(2, np.int8)},
                         act=0, rew=r, terminated=last, truncated=False,
                         obs_next={"obs": np.zeros(3, np.float32),
                                   "mask": np.ones(2, np.int8)}, info={}))
    return buffer


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_returns_scale_and_the_batch_keeps_env_rewards(scale: float) -> None:
    ppo = build_ppo(3, gym.spaces.Discrete(2), PPOConfig(reward_scale=scale, gamma=1.0,
                                                         gae_lambda=1.0))
    assert isinstance(ppo, ScaledRewardPPO) and ppo.reward_scale == scale
    rewards = [-1.0, -1.0, 1000.0]
    buffer = filled_buffer(rewards)
    batch, indices = buffer.sample(0)
    order = np.argsort(indices)
    out = ppo._add_returns_and_advantages(batch, buffer, indices)
    assert np.allclose(np.asarray(out.rew)[order], rewards)  # restored in env units
    returns = np.asarray(out.returns)[order]
    assert returns[0] == pytest.approx(998.0 * scale, rel=1e-5)  # undiscounted return-to-go


def test_reward_scale_must_be_positive() -> None:
    with pytest.raises(ValueError, match="reward_scale"):
        PPOConfig(reward_scale=0.0)
