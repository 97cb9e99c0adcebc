"""ICM wraps PPO, trains on the gridworld and reports its losses and intrinsic reward."""

from __future__ import annotations

from types import SimpleNamespace

from nesyworld.learning import ICMConfig, PPOConfig, train
from nesyworld.learning.algorithms.icm import CuriosityWrapper


def test_icm_wraps_ppo_and_learns(grid: SimpleNamespace) -> None:
    result = train(grid.GridWorld, grid.fast_config(seed=1), PPOConfig(), ICMConfig())
    assert isinstance(result.learner.algorithm, CuriosityWrapper)
    assert result.learner.algorithm.wrapped_algorithm is result.learner.ppo
    for epoch in result.epochs:
        for key in ("icm_loss", "icm_forward_loss", "icm_inverse_loss", "intrinsic_reward"):
            assert key in epoch.losses
        assert epoch.losses["intrinsic_reward"] > 0
        assert {"actor_loss", "vf_loss"} <= set(epoch.losses)  # PPO's stats still there
    # It learns here too (seed 1 converges at about 4000 of the 10000-step budget).
    assert result.converged
    assert result.epochs[-1].mean_length <= grid.SHORTEST_PATH + 2
