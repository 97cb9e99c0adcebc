"""The hybrid agent from the command line, and the adaptation study (`nesyworld
adaptation`), smoke-sized."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from nesyworld.experiments.adaptation.run import (
    AdaptationRunSpec,
    load_done,
    run_one,
    summary_rows,
    sweep,
)
from nesyworld.experiments.adaptation.run import main as experiment_main
from nesyworld.experiments.cli.main import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_hybrid_run_learns_saves_and_reloads(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    out = run_json(capsys, "run", "pogostick", "--novelty", "axe", "--agent", "rapidlearn+",
                   "--budget", "2500", "--adapt-episodes", "1", "--episodes", "2", "--json",
                   "--save", str(tmp_path))
    assert out["learned_operators"] == ["learned_break_oak_log_1"]
    assert out["env_steps"] > out["learning_steps"] > 0  # agent steps counted too
    assert out["env_steps"] == (out["episode_steps"] + out["learning_steps"]
                                + out["learner_evaluation_steps"])
    assert out["protocol"] == "light" and out["seed"] == 0
    assert out["t_adapt"] is None and out["verdict"].startswith("not adapted: the cap of 1")
    assert len(out["recoveries"]) == 1 and out["recoveries"][0]["plan_uses_it"]
    assert 0.0 <= out["post_novelty_success_rate"] <= 1.0 and out["post_novelty_episodes"] == 2
    assert (tmp_path / "policies" / "learned_break_oak_log_1.pt").exists()

    again = run_json(capsys, "run", "pogostick", "--novelty", "axe", "--agent",
                     "rapidlearn+", "--kb", str(tmp_path), "--adapt-episodes", "1",
                     "--episodes", "1", "--json")
    assert again["learning_steps"] == 0 and again["recoveries"] == []
    assert again["learned_operators"] == ["learned_break_oak_log_1"]


@pytest.mark.parametrize(("argv", "knowledge", "refusals"), [
    ((), "closed", "explained"),
    (("--refusals", "silent"), "closed", "silent"),
    (("--knowledge", "oracle"), "oracle", "explained"),
])
def test_run_names_its_knowledge_regime(capsys: pytest.CaptureFixture[str],
                                        argv: tuple[str, ...], knowledge: str,
                                        refusals: str) -> None:
    out = run_json(capsys, "run", "pogostick", "--novelty", "axe", "--agent",
                   "repair+rapidlearn+", "--adapt-episodes", "1", "--episodes", "1", "--json",
                   *argv)
    assert (out["knowledge"], out["refusals"]) == (knowledge, refusals)
    (repair,) = out["recoveries"]
    assert repair["repair"] == "require" and out["learned_operators"] == []
    # the closed agent found select_axe by trying it; the oracle read it from the world
    assert ("induced_select_axe" in repair["operators"]) == (knowledge == "closed")


def test_the_paper_protocol_runs_only_the_closed_regime(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    assert main(["run", "pogostick", "--novelty", "axe", "--agent", "rapidlearn+",
                 "--protocol", "paper", "--knowledge", "oracle"]) == 2
    assert "closed regime" in capsys.readouterr().err


def test_hybrid_run_prints_failure_learning_and_operator(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    assert main(["run", "pogostick", "--novelty", "chest", "--agent", "rapidlearn",
                 "--adapt-episodes", "1", "--episodes", "1"]) == 0
    out = capsys.readouterr().out
    assert "evaluating the adapted agent, frozen, on 1 episodes" in out
    assert "rapidlearn agent on pogostick + chest" in out
    assert "new action 'approach_plastic_chest' available" in out


def test_sweep_records_resumes_and_summarises(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.jsonl"
    configs = [AdaptationRunSpec(novelty="chest", seed=0, eval_episodes=2, max_episodes=5)]
    records = sweep(configs, out, workers=1)
    assert records[0]["key"] == "pogostick/chest/rapidlearn+/closed/0"
    assert (records[0]["knowledge"], records[0]["refusals"]) == ("closed", "explained")
    assert records[0]["recoveries"] == [] and records[0]["post_novelty_success_rate"] == 1.0
    assert set(load_done(out)) == {configs[0].key}
    lines = out.read_text().splitlines()
    assert sweep(configs, out, workers=1) == records  # resumed: nothing ran again
    assert out.read_text().splitlines() == lines
    (row,) = summary_rows(records)
    assert row["novelty"] == "chest" and row["protocol"] == "light"
    assert row["recoveries_median"] == 0

    assert experiment_main(["--novelties", "chest", "--seeds", "1", "--eval-episodes", "2",
                            "--workers", "1", "--out", str(out), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["novelty"] == "chest" and rows[0]["seeds"] == 1
    # the module's main is `nesyworld adaptation`, the same study
    assert main(["adaptation", "--novelties", "chest", "--seeds", "1", "--eval-episodes", "2",
                 "--workers", "1", "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == rows


def test_the_adaptation_command_refuses_bad_values_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.jsonl"
    assert main(["adaptation", "--novelties", "axx", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'axe'" in err
    assert main(["adaptation", "--seeds", "0"]) == 2
    assert "--seeds" in capsys.readouterr().err
    assert not out.exists()


def test_runs_that_did_not_adapt_are_counted_apart_not_averaged_in() -> None:
    def record(t_adapt: int | None) -> dict:
        return {"config": {"novelty": "axe", "agent": "rapidlearn+"}, "t_adapt": t_adapt,
                "post_novelty_success_rate": 1.0, "recoveries": [{}], "wall_seconds": 1.0}

    (row,) = summary_rows([record(3_000), record(5_000), record(None)])
    assert (row["seeds"], row["adapted"], row["t_adapt_median"]) == (3, 2, 4_000)
    assert "paper" not in " ".join(map(str, row))  # the light protocol is not the paper's


def test_ppo_settings_reach_the_recoveries_and_name_their_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import nesyworld.hybrid as hybrid

    seen = {}

    class Built(Exception):
        pass

    def agent(env: object, kb: object, config: object, recovery: object, **kw: object) -> None:
        seen["ppo"] = recovery.ppo  # type: ignore[attr-defined]
        raise Built

    monkeypatch.setattr(hybrid, "HybridAgent", agent)
    spec = AdaptationRunSpec(novelty="axe", minibatch=128, passes=4)
    with pytest.raises(Built):
        run_one(spec)
    assert (seen["ppo"].batch_size, seen["ppo"].epochs_per_update) == (128, 4)
    with pytest.raises(Built):
        run_one(AdaptationRunSpec(novelty="axe"))
    assert (seen["ppo"].batch_size, seen["ppo"].epochs_per_update) == (128, 8)

    # an oracle run keeps the key older results files (made before the regimes were named,
    # with the oracle's knowledge) hold; a setting is a run of its own
    assert AdaptationRunSpec(novelty="axe", knowledge="oracle").key == "pogostick/axe/rapidlearn+/0"
    assert AdaptationRunSpec(novelty="axe").key == "pogostick/axe/rapidlearn+/closed/0"
    assert spec.key == "pogostick/axe/rapidlearn+/128x4/closed/0"
    assert spec.setting.endswith("128x4 closed")

    def record(config: AdaptationRunSpec) -> dict:
        return {"config": asdict(config), "t_adapt": 1_000, "post_novelty_success_rate": 1.0,
                "recoveries": [{}], "wall_seconds": 1.0}

    rows = summary_rows([record(spec), record(AdaptationRunSpec(novelty="axe"))])
    assert sorted(r["agent"] for r in rows) == ["rapidlearn+ 128x4 closed", "rapidlearn+ closed"]


def test_the_novelty_bias_and_planner_reach_the_agent_and_name_their_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import nesyworld.hybrid as hybrid

    seen = {}

    class Built(Exception):
        pass

    def agent(env: object, kb: object, config: object, recovery: object, **kw: object) -> None:
        seen["planning"], seen["recovery"] = config, recovery
        seen["knowledge"], seen["refusals"] = kw["knowledge"], env.unwrapped.refusals  # type: ignore[attr-defined]
        raise Built

    monkeypatch.setattr(hybrid, "HybridAgent", agent)
    spec = AdaptationRunSpec(novelty="fire", novelty_bias=0.0, planner="in-process")
    with pytest.raises(Built):
        run_one(spec)
    assert seen["recovery"].novelty_bias == 0.0
    assert seen["planning"].planner == "in-process"
    with pytest.raises(Built):
        run_one(AdaptationRunSpec(novelty="fire"))
    assert seen["recovery"].novelty_bias == 2.0 and seen["planning"] is None
    assert (seen["knowledge"], seen["refusals"]) == ("closed", "explained")
    assert spec.key == "pogostick/fire/rapidlearn+/bias0/in-process/closed/0"
    assert AdaptationRunSpec(novelty="fire").key == "pogostick/fire/rapidlearn+/closed/0"
    with pytest.raises(Built):
        run_one(AdaptationRunSpec(novelty="fire", knowledge="oracle", refusals="silent"))
    assert (seen["knowledge"], seen["refusals"]) == ("oracle", "silent")
    assert AdaptationRunSpec(novelty="fire", knowledge="oracle", refusals="silent").key == (
        "pogostick/fire/rapidlearn+/silent-refusals/0")
