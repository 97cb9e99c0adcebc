"""Named protocols, adaptation verdicts and one vocabulary of counts (docs/COUNTS.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from nesyworld.experiments.protocol.adaptation import adapt_and_evaluate
from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.experiments.protocol.records import PAPER_PROTOCOL, CurvePoint, ProtocolConfig
from nesyworld.experiments.protocol.run import converged
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.world.errors import SpecError

TABLE2 = Path(__file__).resolve().parents[2] / "experiments" / "configs" / "table2.yaml"


def test_the_default_values_are_the_papers_and_are_named_so() -> None:
    assert ProtocolConfig() == PAPER_PROTOCOL and PAPER_PROTOCOL.name == "paper"
    assert ProtocolConfig(epoch_steps=500).name == "custom"
    assert ProtocolConfig(post_steps=10, pretrained="x.pt").name == "paper"  # free fields
    with pytest.raises(ValueError, match=r"not the paper's: eta=3 \(paper: 5\)"):
        ProtocolConfig(name="paper", eta=3)
    with pytest.raises(ValueError, match="protocol 'paper' fixes epoch_steps"):
        ProtocolConfig.paper(epoch_steps=500)


def test_table2_runs_at_the_paper_protocol() -> None:
    config = load_experiment("table2")
    assert config.protocol.name == "paper" and not config.protocol.paper_mismatches()
    assert all(run.protocol.name == "paper" for run in config.runs())


def test_a_config_naming_paper_with_other_values_fails_where_it_says_so(tmp_path: Path
                                                                         ) -> None:
    bad = tmp_path / "t.yaml"
    bad.write_text(TABLE2.read_text().replace("eta: 5", "eta: 3"))
    with pytest.raises(SpecError, match=r"t\.yaml:\d+:\d+: protocol 'paper' with values"):
        load_experiment(bad)
    short = tmp_path / "s.yaml"
    short.write_text("domain: pogostick\nagents: [planning]\nnovelties: [axe]\nseeds: 1\n"
                     "protocol: paper\n")
    assert load_experiment(short).protocol == PAPER_PROTOCOL
    short.write_text(short.read_text().replace("protocol: paper", "protocol: fast"))
    with pytest.raises(SpecError, match=r"s\.yaml:5:\d+: unknown protocol 'fast'"):
        load_experiment(short)


def _points(points: list[tuple[float, float]]) -> list[CurvePoint]:
    return [CurvePoint("post", k, 0, 0, 0.0, rate, 50.0, 100, False, reward)
            for k, (rate, reward) in enumerate(points, 1)]


def test_the_paper_protocol_applies_appendix_a_whole() -> None:
    good = [(0.95, 900.0)] * 5
    assert converged(PAPER_PROTOCOL, _points(good))
    assert not converged(PAPER_PROTOCOL, _points([(0.95, 300.0), *good[1:]]))  # delta_R
    assert not converged(PAPER_PROTOCOL, _points([(1.0, 990.0), *[(0.92, 900.0)] * 5]))  # nu
    assert not converged(PAPER_PROTOCOL, _points(good[1:]))  # eta
    assert converged(PAPER_PROTOCOL, _points([(0.95, math.nan)] * 5))  # old records


def test_the_immediate_post_novelty_point_is_not_an_epoch() -> None:
    immediate = CurvePoint("post", 0, 0, 0, 0.0, 1.0, 50.0, 100, False, 990.0)
    four = _points([(0.95, 900.0)] * 4)
    assert not converged(PAPER_PROTOCOL, [immediate, *four])  # 4 epochs, not 5
    assert converged(PAPER_PROTOCOL, [immediate, *_points([(0.95, 900.0)] * 5)])


# --- the light protocol's verdict ------------------------------------------------------------
@dataclass
class _Recovery:
    learning_steps: int
    evaluation_steps: int

    @property
    def env_steps(self) -> int:
        return self.learning_steps + self.evaluation_steps

    def summary(self) -> dict[str, Any]:
        return {"env_steps": self.env_steps}


@dataclass
class _Env:
    seeds: list[int] = field(default_factory=list)

    def reset(self, seed: int | None = None) -> tuple[int, dict[str, Any]]:
        self.seeds.append(int(seed))  # type: ignore[arg-type]
        return 0, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        return 0, 1.0, True, False, {"success": True}


@dataclass
class _Agent:
    learn_at: set[int]
    learning: bool = True
    recoveries: list[_Recovery] = field(default_factory=list)
    episode: int = 0

    def reset(self, obs: Any, info: Any) -> None:
        if self.learning and self.episode in self.learn_at:
            self.recoveries.append(_Recovery(100, 7))
        self.episode += self.learning

    def act(self, obs: Any, info: Any) -> int:
        return 0

    def observe(self, *args: Any) -> None:
        return None


def test_adaptation_that_keeps_learning_ends_not_adapted_and_says_why() -> None:
    env, agent = _Env(), _Agent(learn_at={0, 20, 33, 43})
    result = adapt_and_evaluate(env, agent, seed=4, max_episodes=60, window=20,
                                eval_episodes=3)
    s = result.summary()
    assert not result.adapted and result.t_adapt is None and s["t_adapt"] is None
    assert s["verdict"].startswith("not adapted: the cap of 60 adaptation episodes")
    assert "episodes 21, 34, 44 restarted the count" in s["verdict"]
    assert s["protocol"] == "light" and s["seed"] == 4
    # every env step the agent caused, the learner's evaluation included
    assert result.env_steps == 60 + 4 * 100 + 4 * 7 == s["env_steps"]
    assert (s["episode_steps"], s["learning_steps"], s["learner_evaluation_steps"]) == (
        60, 400, 28)
    seeds = RunSeeds(4)
    assert env.seeds == [seeds.adaptation(k) for k in range(60)] + [
        seeds.evaluation(k) for k in range(3)]


def test_adaptation_that_settles_is_adapted_with_t_adapt() -> None:
    result = adapt_and_evaluate(_Env(), _Agent(learn_at={0}), seed=0, window=20,
                                eval_episodes=1)
    assert result.adapted and result.t_adapt == result.env_steps == 21 + 107
    assert result.summary()["verdict"] == ("adapted: 20 successes in a row without new "
                                           "learning, after 21 episodes")


def test_a_chunk_of_the_grid_names_agents_and_novelties_of_the_config(
        capsys: pytest.CaptureFixture[str]) -> None:
    from nesyworld.experiments.cli.main import main

    assert main(["experiment", "table2", "--agents", "nobody"]) == 2
    assert "--agents: nobody not in the config's agents" in capsys.readouterr().err
    assert main(["experiment", "table2", "--novelties", "ice"]) == 2
    assert "--novelties: ice not in the config's novelties" in capsys.readouterr().err


def test_run_refuses_what_the_paper_protocol_cannot_take(
        capsys: pytest.CaptureFixture[str]) -> None:
    from nesyworld.experiments.cli.main import main

    for extra in (["--novelty", "axe", "--novelty", "fire"], ["--novelty", "axe", "--budget",
                                                              "10"]):
        assert main(["run", "pogostick", "--agent", "rapidlearn+", "--protocol", "paper",
                     *extra]) == 2
        assert "--protocol paper: needs a hybrid --agent" in capsys.readouterr().err
    assert main(["run", "pogostick", "--seed", "-1"]) == 2
    assert "--seed: expected a run seed in 0.." in capsys.readouterr().err


def test_run_with_the_paper_protocol_reports_the_papers_metrics(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The plumbing only, on a tiny stand-in for the paper's budgets (the real ones take
    minutes): the summary names the protocol, the run seed, the verdict and T_adapt."""
    import json

    from nesyworld.experiments.cli.main import main
    from nesyworld.experiments.protocol import records

    tiny = ProtocolConfig(pre_steps=0, post_steps=60, epoch_steps=60, eval_episodes=1,
                          post_eval_episodes=1, eta=1, nu=0, max_episode_steps=60)
    monkeypatch.setattr(records, "PAPER_PROTOCOL", tiny)
    assert main(["run", "pogostick", "--agent", "rapidlearn+", "--novelty", "chest",
                 "--protocol", "paper", "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["protocol"], out["seed"], out["novelties"]) == ("paper", 2, ["chest"])
    assert out["verdict"] == "not needed" and out["t_adapt"] is None  # chest breaks nothing
    assert out["s_post"] == 1.0 and out["record"]["status"] == "ok"
    assert main(["run", "pogostick", "--agent", "rapidlearn+", "--novelty", "chest",
                 "--protocol", "paper"]) == 0
    text = capsys.readouterr().out
    # the paper prints no figures for the hybrid agents on chest: its cells are "–"
    assert "paper protocol, run seed 0" in text and "T_adapt" in text and "–" in text
