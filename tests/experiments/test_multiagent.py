"""Training several learning agents: a tiny run finishes and reports every learner."""

from __future__ import annotations

import json

import pytest

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.multiagent.run import (
    LearnerView,
    MultiAgentResult,
    MultiAgentTrainConfig,
    evaluate,
    render_table,
    train_multiagent,
)
from nesyworld.world import load_spec

TINY = MultiAgentTrainConfig(steps=200, rounds=1, eval_episodes=3, collect_chunk=100)


@pytest.fixture(scope="module")
def coop_result() -> MultiAgentResult:
    return train_multiagent("coop_pogostick", TINY)


def test_a_tiny_cooperative_run_reports_every_learner(coop_result: MultiAgentResult) -> None:
    r = coop_result
    assert r.mode == "cooperative" and [a.name for a in r.agents] == ["main_1", "helper_2"]
    assert all(a.train_steps == 100 for a in r.agents) and r.train_steps == 200
    # a shared team reward: every learner's return and rate are the team's
    assert len({a.mean_return for a in r.agents}) == 1
    assert all(a.rate == r.team_rate for a in r.agents)
    assert 0.0 <= r.team_rate <= 1.0 and r.episodes == 3
    assert "team success" in str(render_table(r).columns[3].header)


def test_learner_view_drives_the_others_and_reports_wins() -> None:
    spec = load_spec("race_pogostick")
    env = LearnerView(spec, "rival_2", {})
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].shape == (
        env.action_space.n,)
    total, done = 0.0, False
    while not done:
        mask = info["action_mask"].astype(bool)
        obs, reward, term, trunc, info = env.step(int(mask.nonzero()[0][0]))
        total += reward
        done = term or trunc
    assert info["success"] == (info.get("winner") == "rival_2")
    with pytest.raises(ValueError, match="not a learner"):
        LearnerView(spec, "pogoist_102", {})


def test_evaluation_rates_are_win_rates_in_a_race() -> None:
    returns, rates, someone = evaluate(load_spec("race_pogostick"), {}, episodes=4, seed=0)
    assert set(returns) == {"main_1", "rival_2"}
    assert sum(rates.values()) == pytest.approx(someone)  # at most one winner an episode


def test_cli_trains_a_race_and_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["multiagent", "race_pogostick", "--steps", "100", "--rounds", "1",
                 "--episodes", "2", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "competitive"
    assert {a["name"] for a in data["agents"]} == {"main_1", "rival_2"}
    assert all("rate" in a and "mean_return" in a for a in data["agents"])


def test_cli_refuses_a_spec_without_the_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["multiagent", "pogostick", "--steps", "10"]) == 2
    assert "no multiagent: section" in capsys.readouterr().err


def test_cli_reports_a_bad_section_with_its_location(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: coop_pogostick\nmultiagent:\n  mode: teamwork\n")
    assert main(["multiagent", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml:3:9: unknown mode 'teamwork'" in err
