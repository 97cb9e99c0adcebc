"""Tiny real experiments end to end: the protocol's runs through the process pool and
through a local Ray, then `report`'s table, CSV and figure 4 PNGs. (No run here needs to
learn: a learning recovery takes minutes, and the protocol tests cover it.)"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from nesyworld.experiments.cli import main

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


def test_process_pool_experiment_to_table_csv_and_png(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    records, report, out = experiment(tmp_path, capsys, "[planning, rapidlearn+]", "[chest]",
                                      2)
    assert sorted(r["key"] for r in records) == [
        "planning/pogostick/chest/0", "planning/pogostick/chest/1",
        "rapidlearn+/pogostick/chest/0", "rapidlearn+/pogostick/chest/1"]
    assert all(r["status"] == "ok" and r["code_version"] for r in records)
    rows = {r["agent"]: r for r in report["rows"]}
    assert set(rows) == {"planning", "rapidlearn+"}
    assert rows["rapidlearn+"]["seeds"] == 2 and rows["rapidlearn+"]["not_needed"] == 2
    with (out / "metrics.csv").open() as f:
        metrics = list(csv.DictReader(f))
    assert len(metrics) == 4 and {m["adaptation"] for m in metrics} == {"not needed"}
    png = out / "figure4_chest.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Table 2" in (out / "report.md").read_text()


def test_ray_experiment_reports_not_adapted(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray")
    records, report, out = experiment(tmp_path, capsys, "[planning]", "[axe, chest]", 1,
                                      "--backend", "ray")
    assert {r["key"] for r in records} == {"planning/pogostick/axe/0",
                                          "planning/pogostick/chest/0"}
    rows = {r["novelty"]: r for r in report["rows"]}
    assert rows["axe"]["not_adapted"] == 1 and rows["axe"]["t_adapt_env_steps"] is None
    assert rows["chest"]["not_needed"] == 1
    assert (out / "figure4_axe.png").exists() and (out / "metrics.csv").exists()
