"""The transfer probe (experiments/probe/transfer_probe.py) on checkpoints made to order: a
fresh near-uniform policy, and the same policy made sure of one action."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from nesyworld.experiments.probe import probe_transfer
from nesyworld.experiments.probe.transfer_probe import main
from nesyworld.hybrid.baselines.rl_agents import RLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.learning import load_checkpoint, save_checkpoint
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("probe") / "fresh.pt"
    agent = RLAgent(NesyGridEnv("pogostick"), KnowledgeBase.from_world("pogostick"),
                    RLConfig(action_masks=False))
    agent.save(path)
    return path


def test_a_fresh_policy_explores_and_the_new_action_is_named(fresh: Path) -> None:
    result = probe_transfer(fresh, "axe", episodes=1, max_steps=15)
    assert result.new_actions == ("select_axe",)
    assert result.steps == 15
    assert result.mean_entropy > 0.8 * result.max_entropy
    assert result.sure_steps == 0.0
    assert 0.0 < result.new_action_probability < 0.2


def test_a_collapsed_policy_is_reported_as_such(fresh: Path, tmp_path: Path) -> None:
    ckpt = load_checkpoint(fresh)
    names = ckpt.metadata["names"]["actions"]
    actor = {k: v.clone() for k, v in ckpt.actor_state.items()}
    last_bias = max((k for k in actor if k.endswith("bias")), key=lambda k: int(k.split(".")[-2]))
    actor[last_bias][names.index("break")] = 100.0  # sure of one action, whatever it sees
    sure = tmp_path / "sure.pt"
    save_checkpoint(sure, dataclasses.replace(ckpt, actor_state=actor))
    result = probe_transfer(sure, "axe", episodes=1, max_steps=12)
    assert result.sure_steps == 1.0
    assert result.mean_entropy < 1e-3
    assert result.new_action_probability < 1e-30
    assert result.new_actions_taken == 0
    # break facing no tree is refused, and the sure policy takes it again every step
    assert result.longest_refused_repeat == result.refused_steps == 12


def test_the_command_prints_json(fresh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(fresh), "--novelty", "axe", "--episodes", "1", "--max-steps", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["steps"] == 3 and out["new_actions"] == ["select_axe"]
    assert math.isfinite(out["mean_entropy"])


def test_a_policy_trained_without_masks_starts_new_actions_as_its_no_op(fresh: Path) -> None:
    """The protocol's paper baselines start a new action as the trained no-op (the paper's
    renamed placeholder), so it is exactly as likely as `nop` at every probed step."""
    paper = probe_transfer(fresh, "axe", episodes=1, max_steps=10)
    assert paper.new_actions_from == "nop"
    assert paper.new_action_mean_probability == pytest.approx(paper.no_op_mean_probability)
    mean = probe_transfer(fresh, "axe", episodes=1, max_steps=10, new_actions_from="")
    assert mean.new_actions_from == ""
    assert mean.new_action_mean_probability != pytest.approx(mean.no_op_mean_probability)


def test_a_prefix_is_played_first_and_what_the_novelty_added_is_counted(fresh: Path) -> None:
    """Approaching and collecting the water bucket first: every episode holds it, the
    policy's own steps are the rest of the budget, and the counts name the new types."""
    result = probe_transfer(fresh, "fire", episodes=2, max_steps=6,
                            prefix=("approach_water_bucket", "collect"))
    assert result.prefix == ("approach_water_bucket", "collect")
    assert result.steps == 2 * 4  # the prefix is played, not probed
    assert result.new_types_held["water_bucket"] == 2
    assert set(result.new_types_held) == set(result.new_types_selected) == {
        "water_bucket", "bucket"}
    assert set(result.new_action_episodes) == set(result.new_actions)
    plain = probe_transfer(fresh, "fire", episodes=2, max_steps=6)
    assert plain.steps == 2 * 6 and plain.prefix == ()


def test_a_prefix_action_the_world_does_not_have_is_refused(fresh: Path) -> None:
    with pytest.raises(ValueError, match="'fly' is not an action of the fire world"):
        probe_transfer(fresh, "fire", episodes=1, max_steps=3, prefix=("fly",))


def test_a_prefix_that_ends_the_episode_leaves_nothing_to_probe(fresh: Path) -> None:
    result = probe_transfer(fresh, "fire", episodes=2, max_steps=6, prefix=("give_up",))
    assert result.steps == 0 and result.successes == 0
