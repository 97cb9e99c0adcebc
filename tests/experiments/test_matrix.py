"""The novelty x scenario matrix: a tiny real run (2 scenarios x 2 novelties x 1 seed), its
tables and NovPhy means, n/a for a novelty that cannot apply, resuming, and located config
errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.matrix import run as matrix_mod
from nesyworld.experiments.matrix.config import load_matrix, shipped_matrices
from nesyworld.experiments.matrix.run import MatrixTable, matrix_tables, run_matrix
from nesyworld.world.errors import SpecError

TINY = """\
name: tiny
scenarios: [pogostick_tap, pogostick_diamond_block]
novelties: [axe, multi_room]
agents: [planning]
seeds: 1
episodes: 1
"""


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, int]:
    """The CLI run once, with --json (shared by the tests that read its outputs)."""
    root = tmp_path_factory.mktemp("matrix")
    cfg = root / "tiny.yaml"
    cfg.write_text(TINY)
    out = root / "tiny.jsonl"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = main(["matrix", str(cfg), "--out", str(out), "--json"])
    return out, json.loads(buf.getvalue()), status


def test_every_scenario_meets_every_novelty(tiny_run: tuple[Path, dict, int]) -> None:
    out, summary, status = tiny_run
    assert status == 0
    table = summary["tables"][0]
    assert table["rows"] == ["pogostick_tap", "pogostick_diamond_block"]
    assert table["columns"] == ["none", "axe", "multi_room"]
    cells = table["cells"]
    assert cells["pogostick_tap"]["none"] == 1.0
    assert cells["pogostick_tap"]["axe"] == 0.0  # the tap needs planks: trees need the axe
    assert cells["pogostick_diamond_block"]["axe"] == 1.0  # no tree in this task
    # no trader to keep in place in this scenario: the novelty cannot apply
    assert cells["pogostick_diamond_block"]["multi_room"] is None
    assert "pogostick_diamond_block/multi_room" in summary["not_applicable"]
    assert "multi_room.yaml" in summary["not_applicable"]["pogostick_diamond_block/multi_room"]
    # NovPhy's summaries leave out n/a cells and the baseline column
    assert table["row_means"]["pogostick_tap"] == 0.5
    assert table["row_means"]["pogostick_diamond_block"] == 1.0
    assert table["column_means"]["axe"] == 0.5
    assert table["column_means"]["multi_room"] == 1.0
    assert len(out.read_text().splitlines()) == 6  # 2 scenarios x 3 columns


def test_csv_and_heatmap_are_written(tiny_run: tuple[Path, dict, int]) -> None:
    _, summary, _ = tiny_run
    with open(summary["csv"], encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    cell = {(r["scenario"], r["novelty"]): r["success_rate"] for r in rows}
    assert cell[("pogostick_diamond_block", "multi_room")] == "n/a"
    assert cell[("pogostick_tap", "axe")] == "0.00"
    assert cell[("mean", "axe")] == "0.50"
    png = Path(summary["png"][0])
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_rerun_runs_nothing(tiny_run: tuple[Path, dict, int],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    out, _, _ = tiny_run
    before = out.read_text()

    def boom(*args: object, **kwargs: object) -> dict:
        raise AssertionError("a finished cell was run again")

    monkeypatch.setattr(matrix_mod, "run_cell", boom)
    config = load_matrix(out.with_suffix(".yaml"))
    records = run_matrix(config, out)
    assert len(records) == 6 and out.read_text() == before


def test_changed_settings_and_errors_are_redone(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple] = []

    def fake(config, agent, scenario, novelty, seed, cache=None):
        calls.append((scenario, novelty))
        status = "error" if novelty == "axe" and len(calls) <= 6 else "ok"
        return {"key": matrix_mod.cell_key(agent, scenario, novelty, seed), "agent": agent,
                "scenario": scenario, "novelty": novelty, "seed": seed, "status": status,
                "success_rate": 1.0, "settings": config.settings()}

    monkeypatch.setattr(matrix_mod, "run_cell", fake)
    out = tmp_path / "r.jsonl"
    config = load_matrix(TINY)
    run_matrix(config, out)
    assert len(calls) == 6
    run_matrix(config, out)  # only the cells that raised
    assert calls[6:] == [("pogostick_tap", "axe"), ("pogostick_diamond_block", "axe")]
    noisy = load_matrix(TINY + "observation: {noise: 0.2}\n")
    run_matrix(noisy, out)  # other settings: everything again
    assert len(calls) == 8 + 6


def test_table_means_skip_missing_cells() -> None:
    t = MatrixTable("planning", ("a", "b"), ("none", "x", "y"),
                    {("a", "none"): 1.0, ("a", "x"): 0.2, ("a", "y"): 0.6, ("b", "x"): 1.0})
    assert t.row_mean("a") == pytest.approx(0.4)
    assert t.row_mean("b") == 1.0
    assert t.column_mean("y") == 0.6 and t.column_mean("none") == 1.0
    assert t.overall() == pytest.approx(0.6)
    assert matrix_tables(load_matrix(TINY), [])[0].overall() is None


def test_shipped_matrix_loads() -> None:
    assert "matrix" in shipped_matrices()
    config = load_matrix("matrix")
    assert len(config.scenarios) >= 3 and "axe" in config.novelties
    assert len(config.cells()) == len(config.scenarios) * (len(config.novelties) + 1) * \
        len(config.agents) * len(config.seeds)


@pytest.mark.parametrize(("change", "line", "expected"), [
    ("observation: {noise: 1.5}\n", 7, "a number between 0 and 1"),
    ("observation: {noise: high}\n", 7, "a number between 0 and 1"),
])
def test_bad_noise_is_a_located_error(tmp_path: Path, change: str, line: int,
                                      expected: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(TINY + change)
    with pytest.raises(SpecError) as info:
        load_matrix(cfg)
    assert f"bad.yaml:{line}:" in str(info.value) and expected in str(info.value)


@pytest.mark.parametrize(("old", "new", "words"), [
    ("agents: [planning]", "agents: [planning, rl]", "bad.yaml:4:20: unknown agent 'rl'"),
    ("[pogostick_tap,", "[pogostick_tapp,", "bad.yaml:2:13: unknown scenario"),
    ("[axe,", "[axes,", "bad.yaml:3:13: unknown novelty 'axes'"),
    ("seeds: 1", "seeds: 0", "bad.yaml:5:8: value out of range"),
])
def test_bad_config_is_a_located_error(tmp_path: Path, old: str, new: str, words: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(TINY.replace(old, new))
    with pytest.raises(SpecError, match=words.replace("[", r"\[")):
        load_matrix(cfg)


def test_cli_reports_a_bad_config_with_its_place(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(TINY + "observation: {noise: 2}\n")
    assert main(["matrix", str(cfg)]) == 2
    assert "bad.yaml:7:" in capsys.readouterr().err
