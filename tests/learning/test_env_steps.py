"""env_steps is exact: it equals the steps the training envs really took."""

from __future__ import annotations

from types import SimpleNamespace

import gymnasium as gym

from nesyworld.learning import EpochRecord, PPOConfig, TrainConfig, train


def _counting_factory(grid: SimpleNamespace) -> tuple[list[list[int]], object]:
    counters: list[list[int]] = []

    def make() -> gym.Env:
        counters.append([0])
        return grid.GridWorld(counter=counters[-1])

    return counters, make


def test_env_steps_counted_exactly(grid: SimpleNamespace) -> None:
    counters, make = _counting_factory(grid)
    # An odd budget and a chunk that does not divide the epoch: the budget is never exceeded.
    config = grid.fast_config(
        step_budget=1001, epoch_length=300, collect_chunk=128, stop_on_convergence=False
    )
    result = train(make, config, PPOConfig(hidden_sizes=(16,)), None)
    # Creation order: one probe env (spaces only), then the training envs, then eval envs.
    n = config.num_envs
    assert len(counters) == 1 + n + min(n, config.eval_episodes)
    assert counters[0][0] == 0
    train_steps = sum(c[0] for c in counters[1 : 1 + n])
    eval_steps = sum(c[0] for c in counters[1 + n :])
    assert result.env_steps == train_steps == 1000  # the largest multiple of 2 envs <= 1001
    assert result.eval_env_steps == eval_steps > 0
    assert result.total_env_steps == sum(c[0] for c in counters)
    assert [e.epoch_steps for e in result.epochs] == [300, 300, 300, 100]


def test_subprocess_vector_env(grid: SimpleNamespace) -> None:
    """The default vector env (one process per env) runs; counts come back via the result."""
    config = grid.fast_config(vector_env="subprocess", step_budget=500, stop_on_convergence=False)
    result = train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None)
    assert result.env_steps == 500
    assert len(result.epochs) == 2


def test_time_limit_wrapper(grid: SimpleNamespace) -> None:
    """max_episode_steps truncates evaluation episodes of an untrained policy."""
    config = grid.fast_config(max_episode_steps=10, step_budget=250, stop_on_convergence=False)
    result = train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None)
    assert result.epochs[0].mean_length <= 10


class _FixedLength(gym.Env):
    """Succeeds at exactly step `length`, whatever the actions (no mask in info)."""

    def __init__(self, length: int = 7) -> None:
        self.observation_space = gym.spaces.Discrete(length + 1)  # flattened to one-hot
        self.action_space = gym.spaces.Discrete(2)
        self.length, self.t = length, 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        super().reset(seed=seed)
        self.t = 0
        return 0, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        self.t += 1
        done = self.t >= self.length
        return self.t, 1.0, done, False, {"success": done} if done else {}


def test_success_of_episodes_spanning_updates() -> None:
    """Episodes (7 steps) longer than each env's share of a chunk (5 steps) span buffer
    resets; their success is still recorded (the env gives the key only at episode end)."""
    config = TrainConfig(
        step_budget=40, epoch_length=20, collect_chunk=10, num_envs=2, vector_env="dummy",
        eval_episodes=2, progress=False, stop_on_convergence=False,
    )  # fmt: skip
    result = train(_FixedLength, config, PPOConfig(hidden_sizes=(8,)), None)
    for epoch in result.epochs:
        assert epoch.train_episodes == 2 and epoch.train_success_rate == 1.0
        assert epoch.success_rate == 1.0 and epoch.mean_reward == 7.0 and epoch.mean_length == 7


def test_on_epoch_callback_can_stop_training(grid: SimpleNamespace) -> None:
    seen: list[int] = []

    def on_epoch(record: EpochRecord) -> bool:
        seen.append(record.epoch)
        return record.epoch == 2

    config = grid.fast_config(step_budget=2000, stop_on_convergence=False)
    result = train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None, on_epoch=on_epoch)
    assert seen == [1, 2] and len(result.epochs) == 2 and result.env_steps == 500


def test_on_chunk_callback_can_stop_training_at_once(grid: SimpleNamespace) -> None:
    chunks: list[int] = []

    def on_chunk(steps: int) -> bool:
        chunks.append(steps)
        return len(chunks) == 3

    config = grid.fast_config(step_budget=2000, epoch_length=500, collect_chunk=100,
                              stop_on_convergence=False)
    result = train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None,
                   on_chunk=on_chunk)
    # stopped inside the first epoch, after its third chunk, with no evaluation run
    assert chunks == [100, 200, 300] and result.env_steps == 300 and not result.epochs
