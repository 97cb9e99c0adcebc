"""`nesyworld generality` on two cases with tiny budgets: one novelty that breaks the plan and
one that does not; what is recorded, the tally, the table, and a rerun that runs nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.generality import GeneralityConfig, generality_table, run_suite, tally

TINY = GeneralityConfig(step_budget=300, max_episodes=2, eval_episodes=1)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("generality") / "cases.jsonl"
    return out, run_suite(["axe", "chest"], TINY, out)


def test_a_breaking_novelty_is_detected_at_its_first_failure(suite) -> None:
    _, records = suite
    axe, chest = records
    assert axe["breaks_plan"] and not axe["plan_succeeds"]
    assert axe["detected_kind"] == "failure" and "break_oak_log" in axe["detected_at"]
    assert not chest["breaks_plan"] and chest["plan_succeeds"] and chest["detected_at"] is None
    assert chest["how"] == "plan copes" and chest["recovered"]
    # the default agent repairs the Axe from the refusal, within the tiny budget
    assert axe["how"] == "repaired" and axe["recovered"]
    assert "break_oak_log" in axe["repaired_operators"]


def test_records_are_consistent(suite) -> None:
    _, records = suite
    for r in records:
        assert r["recovered"] == (r["s_post"] >= TINY.recovered_at)
        assert (r["t_adapt"] is None) == (not r["adapted"])
        assert r["how"] in ("repaired", "learned", "repaired and learned", "plan copes",
                            "replanned", "not recovered")
    counts = tally(records)
    assert counts["cases"] == 2 and counts["breaking_cases"] == 1
    assert counts["recovered"] == sum(r["recovered"] for r in records)


def test_table_names_every_case_and_the_tally(suite) -> None:
    _, records = suite
    console = Console(width=200, record=True)
    console.print(generality_table(records))
    text = console.export_text()
    assert "axe" in text and "chest" in text
    assert f"recovered {tally(records)['recovered']}/2" in text


def test_a_rerun_resumes_and_runs_nothing(suite, capsys: pytest.CaptureFixture[str]) -> None:
    out, records = suite
    lines = out.read_text().splitlines()
    code = main(["generality", "axe", "chest", "--budget", "300", "--max-episodes", "2",
                 "--eval-episodes", "1", "--out", str(out), "--json"])
    assert code == 0
    assert out.read_text().splitlines() == lines  # nothing was run again
    printed = json.loads(capsys.readouterr().out)
    assert [r["case"] for r in printed["records"]] == ["axe", "chest"]
    assert printed["tally"] == tally(records)
