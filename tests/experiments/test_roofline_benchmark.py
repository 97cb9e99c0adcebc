"""The FLOP ceilings: the count of a tiny PPO equals the hand-computed one, the matmul clock
restores torch's threads, and the CLI, run tiny, prints every row with finite ceilings. No
speed is asserted."""

from __future__ import annotations

import json
import math
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from nesyworld.experiments.benchmarks import roofline
from nesyworld.experiments.benchmarks.roofline import Matmul, MatmulClock, count_training_flops
from nesyworld.learning import PPOConfig, TrainConfig

D, A, H = 5, 3, 8  # observation size, actions, the one hidden layer


class Tiny(gym.Env[np.ndarray, np.int64]):
    """Random observations, every action legal, episodes of 3 steps."""

    observation_space = gym.spaces.Box(0.0, 1.0, (D,), np.float32)
    action_space = gym.spaces.Discrete(A)

    def reset(self, *, seed: int | None = None, options: Any = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.t = 0
        return self.observation_space.sample(), {"action_mask": np.ones(A, bool)}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.t += 1
        done = self.t >= 3
        return (self.observation_space.sample(), 1.0, done, False,
                {"action_mask": np.ones(A, bool), "success": done})


def linear(rows: int, n_in: int, n_out: int) -> int:
    return 2 * rows * n_in * n_out


def forward(rows: int, n_out: int) -> int:
    """One MLP D -> H -> n_out."""
    return linear(rows, D, H) + linear(rows, H, n_out)


def backward(rows: int, n_out: int) -> int:
    """Its backward: each layer's weight gradient, and the input gradient of every layer but
    the first (the observation needs none)."""
    return linear(rows, D, H) + 2 * linear(rows, H, n_out)


@pytest.mark.parametrize("chunks", [1, 2])
def test_ppo_count_is_the_hand_computed_one(chunks: int) -> None:
    n, passes = 16, 3
    config = TrainConfig(step_budget=64, epoch_length=n, collect_chunk=n, num_envs=2,
                         vector_env="dummy", progress=False, eval_episodes=1)
    ppo = PPOConfig(hidden_sizes=(H,), batch_size=4, epochs_per_update=passes)
    count = count_training_flops(config, ppo, env_factory=Tiny, chunks=chunks)
    collection = forward(n, A)  # the actor samples every step (and keeps the log-probs)
    per_pass = forward(n, A) + backward(n, A) + forward(n, 1) + backward(n, 1)
    assert count.env_steps == chunks * n
    # PPO before its passes: the critic on each chunk's obs, and on obs_next only where an
    # episode or the env's part of the chunk ended (at least once per env, at most every row)
    no_grad = count.flops - chunks * (collection + passes * per_pass)
    rows, rest = divmod(no_grad, forward(1, 1))
    assert rest == 0 and chunks * (n + 2) <= rows <= chunks * 2 * n
    assert count.collection_flops == chunks * collection
    assert sum(mm.flops * calls for mm, calls in count.matmuls) == count.flops
    assert Matmul(4, D, H, b_transposed=True, bias=True) in dict(count.matmuls)  # a minibatch


def test_clock_restores_threads_and_gives_a_rate() -> None:
    old = torch.get_num_threads()
    clock = MatmulClock(repeats=1, min_seconds=1e-4)
    for threads in (1, 2):
        rate = clock.rate([(Matmul(16, 8, 8), 3), (Matmul(8, 8, 4, True, False, True), 1)],
                          threads)
        assert math.isfinite(rate) and rate > 0
        assert torch.get_num_threads() == old


def test_cli_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    roofline.main(["--envs", "2", "--chunk", "16", "--minibatch", "8", "--passes", "1",
                   "--repeats", "1", "--threads", "1", "--skip-recovery", "--json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["name"].split(",")[0] for r in rows] == [
        "PPO training", "PPO+ICM training", "PPO training"]
    for r in rows:
        assert r["mflop_per_step"] > r["collection_mflop_per_step"] > 0, r
        assert r["minimal_ppo_mflop_per_step"] > 0, r
        assert math.isfinite(r["ceiling_1_threads"]) and r["ceiling_1_threads"] > 0, r
        assert r["ceiling_1_threads"] == pytest.approx(
            r["gflops_1_threads"] * 1e3 / r["mflop_per_step"]), r
        assert r["reachable_1_threads"] == (r["ceiling_1_threads"] >= r["target"]), r
        assert r["ceiling_two_cores_ideal"] == pytest.approx(2 * r["ceiling_1_threads"]), r
    assert rows[1]["mflop_per_step"] > rows[0]["mflop_per_step"]  # ICM's networks
