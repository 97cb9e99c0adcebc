"""PPO learns the masked gridworld to the optimum within a few thousand env steps."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from nesyworld.learning import PPOConfig, TrainConfig, TrainResult, train


def test_ppo_reaches_the_optimum(trained: TrainResult, grid: SimpleNamespace) -> None:
    result = trained
    assert result.converged
    assert result.env_steps <= 6_000  # "a few thousand" (seed 0 converges at 2500)
    assert result.wall_seconds < 60
    last = result.epochs[-1]
    assert last.success_rate >= 0.9
    assert last.mean_length <= grid.SHORTEST_PATH + 2  # greedy: close to the 12-step optimum
    assert last.mean_reward >= grid.OPTIMAL_RETURN - 2
    # the paper's test: the last eta=5 epochs all pass
    assert all(e.success_rate >= 0.9 and e.mean_reward >= 400 for e in result.epochs[-5:])


def test_epoch_records_are_complete(trained: TrainResult) -> None:
    steps = [e.steps for e in trained.epochs]
    assert steps == sorted(steps) and steps[-1] == trained.env_steps
    assert sum(e.epoch_steps for e in trained.epochs) == trained.env_steps
    assert sum(e.eval_steps for e in trained.epochs) == trained.eval_env_steps
    for e in trained.epochs:
        assert e.steps_per_second > 0
        assert {"loss", "actor_loss", "vf_loss", "ent_loss"} <= set(e.losses)
        assert e.eval_episodes >= 2
    assert [e.converged for e in trained.epochs][-1] is True
    assert "steps_per_second" in trained.epochs[0].as_dict()


def test_trained_policy_handle_runs_without_tianshou(
    trained: TrainResult, grid: SimpleNamespace
) -> None:
    success, steps = grid.greedy_rollout(trained.policy.act)
    assert success and steps <= grid.SHORTEST_PATH + 2


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_ppo_learns_across_seeds(grid: SimpleNamespace, seed: int) -> None:
    result = train(grid.GridWorld, grid.fast_config(seed=seed), PPOConfig(), None)
    assert result.converged and result.env_steps <= 6_000
    assert result.epochs[-1].mean_length <= grid.SHORTEST_PATH + 2


@pytest.mark.slow
def test_paper_routine_with_subprocess_envs(grid: SimpleNamespace) -> None:
    """The default routine (4800-step epochs, 800-step chunks, 2 subprocess envs, 20 eval
    episodes, eta = nu = 5): converges after the minimum of 5 epochs."""
    result = train(grid.GridWorld, TrainConfig(step_budget=50_000, progress=False), PPOConfig())
    assert result.converged
    assert result.env_steps == 5 * 4800
    assert all(e.eval_episodes >= 20 for e in result.epochs)
