"""The critic probe (experiments/probe/critic_probe.py): its advantages are the learner's,
normalised as PPO normalises them, and it scores every step it played."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from tianshou.algorithm.algorithm_base import Algorithm
from tianshou.data import Batch, ReplayBuffer

from nesyworld.experiments.probe.critic_probe import gae, main, probe_critic
from nesyworld.hybrid.baselines.rl_agents import RLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("critic") / "fresh.pt"
    RLAgent(NesyGridEnv("pogostick"), KnowledgeBase.from_world("pogostick"),
            RLConfig(action_masks=False)).save(path)
    return path


@pytest.mark.parametrize("terminated", [True, False])
def test_gae_is_what_the_learner_computes(terminated: bool) -> None:
    rng = np.random.default_rng(0)
    n = 7
    rewards, values, last = rng.normal(size=n), rng.normal(size=n), float(rng.normal())
    buffer = ReplayBuffer(n)
    for t in range(n):
        end = t == n - 1
        buffer.add(Batch(obs=t, act=0, rew=rewards[t], terminated=end and terminated,
                         truncated=end and not terminated, obs_next=t + 1, info={}))
    batch, indices = buffer.sample(0)
    following = np.append(values[1:], last)  # tianshou masks it where the episode terminated
    _, expected = Algorithm.compute_episodic_return(batch, buffer, indices, following, values,
                                                    gamma=0.9, gae_lambda=0.8)
    ours = gae(rewards, values, 0.0 if terminated else last, 0.9, 0.8)
    np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-6)


def test_every_step_is_scored_and_the_advantages_are_normalised(fresh: Path) -> None:
    result = probe_critic(fresh, "fire_floating", episodes=2, max_steps=12, seed=3)
    assert (result.episodes, result.steps, result.successes) == (2, 24, 0)
    assert math.isnan(result.success_advantage_carried)
    assert sum(row.steps for row in result.actions) == 24
    steps = [row.steps for row in result.actions]
    assert steps == sorted(steps, reverse=True)
    for critic in ("carried", "fresh"):  # PPO's normalisation: the sample's mean is 0
        weighted = sum(row.steps * getattr(row, critic) for row in result.actions)
        assert abs(weighted / result.steps) < 1e-5
    assert result.start_value_carried != result.start_value_fresh


def test_the_cli_prints_json_and_refuses_a_missing_file_in_one_line(
        fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(fresh), "--novelty", "fire_floating", "--episodes", "1", "--max-steps", "5",
          "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["steps"] == 5 and data["actions"]
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "none.pt"), "--novelty", "fire_floating"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("critic_probe: ") and err.count("\n") == 1
