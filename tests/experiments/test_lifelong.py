"""The lifelong protocol and `nesyworld lifelong`: reward rate per window over one long run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.lifelong.agents import harvest_script
from nesyworld.experiments.lifelong.run import (
    load_lifelong,
    plot_rates,
    rate_table,
    run_lifelong,
    shipped_lifelong,
)
from nesyworld.world.errors import SpecError


def test_orchard_is_shipped_and_lifelong() -> None:
    assert "orchard" in shipped_lifelong()
    assert load_lifelong("orchard").lifelong is not None


def test_windows_cover_the_run_and_carry_phases() -> None:
    run = run_lifelong("orchard", "random", steps=1100, window=500, seed=1)
    assert [(w.start, w.end) for w in run.windows] == [(0, 500), (500, 1000), (1000, 1100)]
    assert [w.phase for w in run.windows] == ["berries+early", "apples+early", "berries+early"]
    assert run.total_reward == pytest.approx(sum(w.reward for w in run.windows))
    assert run.steps_per_second > 0 and run.gave_up_at is None


def test_the_greedy_agent_follows_the_schedule() -> None:
    """Reading the schedule pays: greedy beats the blind harvest loop, which beats random,
    and greedy never loses reward in the phase that punishes berries."""
    runs = {a: run_lifelong("orchard", a, steps=2000, window=500, seed=0)
            for a in ("random", "scripted", "greedy")}
    assert runs["greedy"].total_reward > runs["scripted"].total_reward
    assert runs["scripted"].total_reward > runs["random"].total_reward
    apples = [w for w in runs["greedy"].windows if w.phase.startswith("apples")]
    assert apples and all(w.reward > 0 for w in apples)


def test_scripted_harvest_loops_over_regrowing_types() -> None:
    script = harvest_script(load_lifelong("orchard"), 7)
    assert script == ["approach_berry_bush", "break", "approach_apple_tree", "break",
                      "approach_mushroom", "break", "approach_berry_bush"]


def test_table_and_plot(tmp_path: Path) -> None:
    runs = [run_lifelong("orchard", a, steps=300, window=100) for a in ("random", "greedy")]
    table = rate_table(runs)
    assert [c.header for c in table.columns] == ["steps", "phase", "random", "greedy"]
    png = plot_rates(runs, tmp_path / "rate.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_episodic_specs_are_refused_with_what_was_expected() -> None:
    with pytest.raises(SpecError, match="no lifelong section") as info:
        load_lifelong("pogostick")
    assert "orchard" in str(info.value)


def test_cli_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "o.png"
    code = main(["lifelong", "orchard", "--agent", "random", "--agent", "greedy", "--steps",
                 "200", "--window", "50", "--plot", str(png), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and png.is_file()
    assert [r["agent"] for r in data["runs"]] == ["random", "greedy"]
    assert len(data["runs"][1]["windows"]) == 4 and data["runs"][1]["steps_per_second"] > 0


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lifelong", "orchard", "--steps", "100", "--window", "50"]) == 0
    out = capsys.readouterr().out
    assert "reward per step" in out and "berries+early" in out


def test_cli_reports_a_bad_section_with_its_place(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(shipped_lifelong()["orchard"]).read_text()
            .replace("period: 500", "period: -500"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert main(["lifelong", str(bad), "--steps", "10"]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml:" in err and "an integer >= 1" in err and "-500" in err
