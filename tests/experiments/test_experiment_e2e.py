"""A tiny real experiment end to end (two novelties, two seeds): the protocol's runs through
the process pool and through a local Ray, then `report`'s table, CSV and figure 4 PNGs. No
run here needs to learn: a recovery takes tens of seconds, and the hybrid tests cover it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import main

PROTOCOL = """\
domain: pogostick
seeds: {seeds}
workers: 2
protocol:
  pre_steps: 50
  post_steps: 100
  epoch_steps: 50
  eval_episodes: 1
  post_eval_episodes: 2
  eta: 1
  max_episode_steps: 100
"""


def experiment(tmp_path: Path, capsys: pytest.CaptureFixture[str], agents: str,
               novelties: str, seeds: int, *backend: str) -> tuple[list[dict], dict, Path]:
    config = tmp_path / "e2e.yaml"
    config.write_text(f"name: e2e\nagents: {agents}\nnovelties: {novelties}\n"
                      + PROTOCOL.format(seeds=seeds))
    out = tmp_path / "runs.jsonl"
    code = main(["experiment", str(config), "--out", str(out), "--json", *backend])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["error"] == 0, summary
    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    report_dir = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report_dir), "--json"]) == 0
    return records, json.loads(capsys.readouterr().out), report_dir


def check_outputs(records: list[dict], report: dict, out: Path) -> None:
    """Two novelties x two seeds: one the planner cannot adapt to, one it need not."""
    assert sorted(r["key"] for r in records) == [
        "planning/pogostick/axe/0", "planning/pogostick/axe/1",
        "planning/pogostick/chest/0", "planning/pogostick/chest/1"]
    assert all(r["status"] == "ok" and r["code_version"] for r in records)
    rows = {r["novelty"]: r for r in report["rows"]}
    assert rows["axe"]["seeds"] == 2 and rows["axe"]["not_adapted"] == 2
    assert rows["axe"]["t_adapt_env_steps"] is None  # never a number when not adapted
    assert rows["chest"]["not_needed"] == 2
    with (out / "metrics.csv").open() as f:
        metrics = list(csv.DictReader(f))
    assert len(metrics) == 4
    assert sorted(m["adaptation"] for m in metrics) == ["not adapted"] * 2 + ["not needed"] * 2
    for novelty in ("axe", "chest"):
        png = out / f"figure4_{novelty}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Table 2" in (out / "report.md").read_text()


def test_process_pool_experiment_to_table_csv_and_png(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    check_outputs(*experiment(tmp_path, capsys, "[planning]", "[axe, chest]", 2))


def test_ray_experiment_to_table_csv_and_png(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray")
    check_outputs(*experiment(tmp_path, capsys, "[planning]", "[axe, chest]", 2,
                              "--backend", "ray"))


def test_hybrid_agent_through_the_pool(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    records, report, _ = experiment(tmp_path, capsys, "[rapidlearn+]", "[chest]", 1)
    assert records[0]["key"] == "rapidlearn+/pogostick/chest/0"
    assert report["rows"][0]["not_needed"] == 1
