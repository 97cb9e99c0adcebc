"""Reports on a few synthetic records: table 2 means, the CSV, the figure 4 PNGs, the paper's
table shipped as data, and the comparison with it."""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from rich.console import Console

from nesyworld.experiments.protocol.paper_table2 import (
    comparison_table,
    load_paper_table2,
    paper_comparison,
    spread_side,
)
from nesyworld.experiments.protocol.report import (
    Stat,
    mean_curve,
    plot_curves,
    print_table2,
    read_records,
    table2_markdown,
    table2_rows,
    write_csv,
    write_report,
)

INJECT = 10_000


def make_record(agent: str, novelty: str, seed: int, *, s_immediate: float = 0.0,
                adapt_after: int | None = 2000, s_post: float = 0.95, t_post: float = 50.0,
                status: str = "ok") -> dict[str, Any]:
    """Pre: three epochs up to S=1 at the injection (t=40). Post: the immediate point, epochs
    of 1000 steps, converged `adapt_after` steps after the injection (never when None)."""
    def pt(phase: str, epoch: int, steps: int, rate: float, mean: float = 40.0,
           converged: bool = False) -> dict[str, Any]:
        return {"phase": phase, "epoch": epoch, "env_steps": steps, "actions": steps // 2,
                "cpu_seconds": steps / 1000, "success_rate": rate, "mean_steps": mean,
                "episodes": 10, "converged": converged}

    curve = [pt("pre", 1, INJECT - 2000, 0.5), pt("pre", 2, INJECT - 1000, 0.9),
             pt("pre", 3, INJECT, 1.0, converged=True), pt("post", 0, INJECT, s_immediate)]
    end = adapt_after or 3000
    for epoch, steps in enumerate(range(1000, end + 1, 1000), start=1):
        done = adapt_after is not None and steps == adapt_after
        curve.append(pt("post", epoch, INJECT + steps, 1.0 if done else s_immediate,
                        converged=done))
    curve.append(pt("post", len(curve), INJECT + end, s_post, t_post,
                    converged=adapt_after is not None))
    spec = {"agent": agent, "domain": "pogostick", "novelty": novelty, "seed": seed,
            "protocol": {"pre_steps": 10_000, "post_steps": 3000}}
    record = {"key": f"{agent}/pogostick/{novelty}/{seed}", "spec": spec, "status": status,
              "error": "", "wall_seconds": 1.0, "curve": curve, "detections": [],
              "novelty": {"env_steps": INJECT, "actions": INJECT // 2, "cpu_seconds": 10.0}}
    if status != "ok":
        record.update(curve=[], error="Traceback...\nRuntimeError: planner died")
        del record["novelty"]
    return record


@pytest.fixture
def records() -> list[dict[str, Any]]:
    axe = [make_record("rapidlearn+", "axe", s, adapt_after=a, s_post=p, t_post=t)
           for s, (a, p, t) in enumerate([(1000, 1.0, 50.0), (2000, 0.9, 60.0),
                                          (3000, 0.8, 70.0), (None, 0.2, 80.0)])]
    chest = [make_record("transfer_rl", "chest", s, s_immediate=1.0, t_post=36.0)
             for s in range(2)]
    planning = [make_record("planning", "axe", 0, adapt_after=None, s_post=0.0)]
    failed = [make_record("rapidlearn+", "axe", 9, status="error")]
    return axe + chest + planning + failed


def test_table2_rows_mean_std_and_adapted_counts(records: list[dict[str, Any]]) -> None:
    rows = {(r.novelty, r.agent): r for r in table2_rows(records)}
    assert list(rows) == [("axe", "rapidlearn+"), ("axe", "planning"),
                          ("chest", "transfer_rl")]  # the paper's order, failed run left out
    axe = rows[("axe", "rapidlearn+")]
    assert axe.seeds == 4 and (axe.adapted, axe.not_adapted, axe.not_needed) == (3, 1, 0)
    # T_adapt over the three adapted seeds only: 1000, 2000, 3000
    assert axe.t_adapt_env_steps.mean == pytest.approx(2000)
    assert axe.t_adapt_env_steps.std == pytest.approx(np.std([1000, 2000, 3000]))
    assert axe.t_adapt_env_steps.n == 3 and axe.adapted_text == "3/4"
    assert axe.s_post.mean == pytest.approx(0.725)
    assert axe.s_post.std == pytest.approx(np.std([1.0, 0.9, 0.8, 0.2]))
    assert axe.delta_t.mean == pytest.approx(65 - 40)
    assert (axe.i_novelty.mean, axe.i_novelty.std) == (1.0, 0.0)
    chest = rows[("chest", "transfer_rl")]
    assert chest.t_adapt_text == "not needed" and chest.t_adapt_env_steps is None
    assert chest.adapted_text == "–" and chest.delta_t.mean == pytest.approx(-4.0)
    assert rows[("axe", "planning")].t_adapt_text == "not adapted"


def test_table_printers_show_the_paper_layout(records: list[dict[str, Any]]) -> None:
    rows = table2_rows(records)
    console = Console(record=True, width=220)
    print_table2(rows, console)
    text = console.export_text()
    assert "2000 ± 816" in text and "not needed" in text and "not adapted" in text
    markdown = table2_markdown(rows)
    lines = markdown.strip().splitlines()
    assert len(lines) == 2 + len(rows)
    assert lines[2].startswith("| axe | rapidlearn+ | 4 | 1.00 ± 0.00 | 1.00 ± 0.00 |")
    assert lines[3].startswith("|  | planning |")  # novelty named once per block


def test_csv_has_one_row_a_run_with_every_metric(records: list[dict[str, Any]],
                                                 tmp_path: Path) -> None:
    path = write_csv(records, tmp_path / "out" / "metrics.csv")
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert len(rows) == len(records)
    assert {r["key"] for r in rows} == {r["key"] for r in records}
    by_key = {r["key"]: r for r in rows}
    adapted = by_key["rapidlearn+/pogostick/axe/1"]
    assert (adapted["adaptation"], adapted["t_adapt_env_steps"]) == ("adapted", "2000")
    assert adapted["t_adapt_actions"] == "1000" and float(adapted["s_post"]) == 0.9
    stuck = by_key["rapidlearn+/pogostick/axe/3"]
    assert (stuck["adaptation"], stuck["t_adapt_env_steps"]) == ("not adapted", "")
    failed = by_key["rapidlearn+/pogostick/axe/9"]
    assert failed["status"] == "error" and failed["error"] == "RuntimeError: planner died"
    assert failed["s_pre"] == "" and failed["seed"] == "9"


def test_plot_curves_writes_png_svg_and_pdf_per_novelty(records: list[dict[str, Any]],
                                                        tmp_path: Path) -> None:
    paths = plot_curves(records, tmp_path)
    assert [p.name for p in paths] == [f"figure4_{n}.{f}" for n in ("axe", "chest")
                                       for f in ("png", "svg", "pdf")]
    for path in paths[1::3]:
        svg = path.read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "</svg>" in svg
        assert "<dc:date>" not in svg  # no time stamp: a rerun writes the same file
    for path in paths[2::3]:
        pdf = path.read_bytes()
        assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-64:]
        assert b"/CreationDate" not in pdf
    again = plot_curves(records, tmp_path / "again")
    assert [p.read_bytes() for p in paths if p.suffix != ".png"] == \
        [p.read_bytes() for p in again if p.suffix != ".png"]
    for path in paths[::3]:
        with Image.open(path) as image:
            assert image.format == "PNG" and image.size[0] > 300 and image.size[1] > 200
            assert len(set(np.asarray(image.convert("L")).ravel().tolist())) > 10  # drawn


def test_mean_curve_holds_finished_seeds_at_their_last_value() -> None:
    early, late = make_record("rl", "axe", 0, adapt_after=1000), make_record("rl", "axe", 1)
    x, mean, std = mean_curve([early, late], "post", 0, 3000)
    assert x.tolist() == [0, 1000, 2000]
    # early: 0, then (1.0 + 0.95) / 2 at 1000 (the converged point and the final evaluation
    # share the step), held at 2000; late: 0, 0, then the same average at 2000
    assert mean.tolist() == pytest.approx([0.0, 0.4875, 0.975])
    assert std.tolist() == pytest.approx([0.0, 0.4875, 0.0])


def test_paper_table2_ships_every_novelty_and_agent() -> None:
    paper = load_paper_table2()
    novelties = ("axe", "chest", "distance", "fence", "fire_floating")
    agents = ("rapidlearn+", "rapidlearn", "transfer_rl+icm", "transfer_rl")
    assert sorted((p.novelty, p.agent) for p in paper) == sorted(
        itertools.product(novelties, agents))
    rows = {(p.novelty, p.agent): p for p in paper}
    fire = rows[("fire_floating", "transfer_rl")]  # NovelGym's fire: the bucket floats
    assert (fire.t_adapt.mean, fire.t_adapt.std, fire.delta_t.mean) == (127200, 37932, 103.3)
    assert rows[("distance", "rapidlearn")].paper_novelty == "Trader"
    assert fire.paper_novelty == "Fire"
    assert rows[("axe", "transfer_rl+icm")].paper_agent == "Transfer RL (PPO)+ICM"
    hybrid_chest = rows[("chest", "rapidlearn+")]
    assert hybrid_chest.s_pre.mean == 1 and hybrid_chest.t_adapt is None
    assert all("table 2" in p.source for p in paper)


def test_paper_comparison_sets_ours_beside_the_paper(records: list[dict[str, Any]]) -> None:
    comparisons = paper_comparison(table2_rows(records))
    assert {(c.novelty, c.agent) for c in comparisons} == {("axe", "rapidlearn+"),
                                                           ("chest", "transfer_rl")}
    t_adapt = next(c for c in comparisons if c.agent == "rapidlearn+" and "T_adapt" in c.metric)
    assert (t_adapt.ours, t_adapt.paper) == ("2000 ± 816", "71040 ± 17413")
    assert t_adapt.ratio == pytest.approx(2000 / 71040) and "3/4" in t_adapt.note
    assert t_adapt.note.endswith("below the paper's spread")  # 2000 < 71040 - 17413
    chest = next(c for c in comparisons if c.agent == "transfer_rl" and "T_adapt" in c.metric)
    assert (chest.ours, chest.paper, chest.ratio, chest.note) == ("not needed", "24000 ± 0",
                                                                  None, "")
    impact = next(c for c in comparisons if c.agent == "transfer_rl" and "I_nov" in c.metric)
    assert impact.paper == "0.01 ± 0.009"  # the paper's figures as printed, not rounded


def test_a_mean_outside_the_papers_sd_is_flagged() -> None:
    paper = Stat(mean=169440.0, std=97949.0, n=10)
    assert spread_side(80000, paper, 0) == ""  # within 1 sd: what reseeding could give
    assert spread_side(60000, paper, 0) == "below the paper's spread"
    assert spread_side(270000, paper, 0) == "above the paper's spread"
    certain = Stat(mean=1.0, std=0.0, n=10)  # sd 0: the band is the printed rounding
    assert spread_side(0.996, certain, 2) == ""
    assert spread_side(0.98, certain, 2) == "below the paper's spread"


def test_an_unmasked_agent_is_compared_with_the_papers_agent(
        records: list[dict[str, Any]]) -> None:
    """The paper's RL agents had no action masks: our unmasked variant is that agent."""
    renamed = [dict(r, spec=dict(r["spec"], agent="transfer_rl_unmasked"))
               if r["spec"]["agent"] == "transfer_rl" else r for r in records]
    comparisons = paper_comparison(table2_rows(renamed))
    chest = next(c for c in comparisons if c.agent == "transfer_rl_unmasked"
                 and "I_nov" in c.metric)
    assert chest.paper == "0.01 ± 0.009"


def test_write_report_and_read_records(records: list[dict[str, Any]], tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    # a failed run that a resume redid, this time to the end (without adapting)
    retried = make_record("rapidlearn+", "axe", 9, adapt_after=None, s_post=0.2)
    results.write_text("\n".join(json.dumps(r) for r in [*records, retried]) + "\n")
    loaded = read_records(results)
    assert len(loaded) == len(records) and loaded[-1]["status"] == "ok"
    paths = write_report(loaded, tmp_path / "report")
    assert set(paths) == {"csv", "markdown", "figure4_axe", "figure4_chest",
                          "figure4_axe.svg", "figure4_chest.svg", "figure4_axe.pdf",
                          "figure4_chest.pdf"}
    assert all(p.exists() and p.stat().st_size > 0 for p in paths.values())
    text = paths["markdown"].read_text()
    assert "2000 ± 816" in text and '"post_steps": 3000' in text
    # run by run: the retried seed 9 with its redone record, best success where not adapted
    assert ("| axe | rapidlearn+ | 1,000 (1.00) | 2,000 (0.90) | 3,000 (0.80) | not adapted "
            "(best 0.20) | not adapted (best 0.20) |") in text
    # these fake runs used budgets of their own: never set beside the paper's figures
    assert "Not compared: these runs used the custom protocol" in text
    assert "71040 ± 17413" not in text
    at_paper = [dict(r, spec={**r["spec"], "protocol": {"post_steps": 3000}})
                if r.get("spec") else r for r in loaded]  # the paper's fixed values
    # records of hybrid agents that name no regime are the oracle's: not set beside the paper
    text = write_report(at_paper, tmp_path / "oracle")["markdown"].read_text()
    assert "Protocol: paper" in text and "71040 ± 17413" not in text
    assert "oracle (recorded before the regimes were named)" in text
    closed = [dict(r, knowledge="closed") for r in at_paper]
    text = write_report(closed, tmp_path / "paper")["markdown"].read_text()
    assert "Knowledge regime of the hybrid agents: closed" in text and "71040 ± 17413" in text


def test_mean_curve_holds_a_seed_between_its_evaluations() -> None:
    # a straight line between two evaluations would draw learning that nobody measured
    sparse = {"novelty": {"env_steps": 0}, "curve": [
        {"phase": "post", "env_steps": 0, "success_rate": 0.0},
        {"phase": "post", "env_steps": 4000, "success_rate": 1.0}]}
    dense = {"novelty": {"env_steps": 0}, "curve": [
        {"phase": "post", "env_steps": s, "success_rate": 0.5} for s in (0, 2000, 4000)]}
    x, mean, _ = mean_curve([sparse, dense], "post", 0, 4000)
    assert x.tolist() == [0, 2000, 4000]
    assert mean.tolist() == pytest.approx([0.25, 0.25, 0.75])


@pytest.mark.parametrize("width", [80, 100])
def test_terminal_tables_fit_narrow_terminals_without_cutting(
        records: list[dict[str, Any]], width: int) -> None:
    rows = table2_rows(records)
    console = Console(record=True, width=width)
    print_table2(rows, console)
    console.print(comparison_table(paper_comparison(rows)))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    assert "rapidlearn+" in text and "not needed" in text  # names whole, never folded
    assert "S_pre" in text and "T_adapt" in text


def test_terminal_tables_keep_one_line_cells_when_wide(records: list[dict[str, Any]]) -> None:
    console = Console(record=True, width=250)
    print_table2(table2_rows(records), console)
    assert "2000 ± 816" in console.export_text()


def test_read_records_names_the_line_and_field_of_a_damaged_record(
        records: list[dict[str, Any]], tmp_path: Path) -> None:
    from nesyworld.world.errors import SpecError

    good = [r for r in records if r.get("status", "ok") == "ok"]
    bad = json.loads(json.dumps(good[1]))
    bad["curve"][2]["success_rate"] = "high"
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [good[0], bad]) + "\n")
    with pytest.raises(SpecError) as err:
        read_records(path)
    message = str(err.value)
    assert message.startswith(f"{path}:2:1: not a usable number (at 'curve[2].success_rate')")
    assert "expected a number from 0 to 1" in message and "\n" not in message
    path.write_bytes(json.dumps(good[0]).encode() + b'\n\x80\n')
    with pytest.raises(SpecError, match=f"{path}:2:1: a byte that is not UTF-8"):
        read_records(path)
    with pytest.raises(SpecError, match="no such results file"):
        read_records(tmp_path / "missing.jsonl")


# ---------------------------------------------------------------- the results file as input


def _lines(path: Path, *records: Any) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records))
    return path


def test_reading_streams_and_keeps_one_record_per_run(tmp_path: Path) -> None:
    """A 200 MB file of tiny records once took 7.5 GB as a list of every line; only the record
    that counts per run is kept now, so memory follows the runs, not the lines."""
    import tracemalloc

    from nesyworld.experiments.protocol.report import read_runs

    error = make_record("planning", "axe", 0, status="error")
    ok = make_record("planning", "axe", 0)
    path = tmp_path / "runs.jsonl"
    with path.open("w") as f:
        f.write((json.dumps(error) + "\n") * 20_000 + json.dumps(ok) + "\n"
                + (json.dumps(error) + "\n") * 20_000)
    assert path.stat().st_size > 10 * 2**20  # as a list: over 100 MB
    tracemalloc.start()
    try:
        read = read_runs(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert list(read.records.values()) == [ok]  # the last ok one counts, as the runner says
    assert peak < 4 * 2**20, f"{peak:,} bytes for one run"


@pytest.mark.parametrize(("lines", "where", "words"), [
    (["OK", '{"key": 3}'], ":2:1: ", "not a run record (an object without a string 'key')"),
    (["OK", "[1, 2]"], ":2:1: ", "not a run record (a JSON list)"),
    (["OK", '{"key": "cut', "OK"], ":2:", "not a JSON record"),
    (['{"key": "k"}'], ":1:1: no runs found: ", "missing field (at 'spec')"),
    (["name: smoke", "agents: [planning]"], ":1:1: no runs found: ", "not a JSON record"),
    (["OK", "\x00{}"], ":2:1: ", "not a JSON record"),
])
def test_records_that_are_not_runs_are_refused_at_their_line(tmp_path: Path,
                                                             lines: list[str], where: str,
                                                             words: str) -> None:
    from nesyworld.world.errors import SpecError

    ok = json.dumps(make_record("planning", "axe", 0))
    path = _lines(tmp_path / "runs.jsonl", *[ok if line == "OK" else line for line in lines])
    with pytest.raises(SpecError) as err:
        read_records(path)
    message = str(err.value)
    assert message.startswith(f"{path}{where}") and words in message, message
    assert "\n" not in message and "smoke" not in message


def test_an_empty_file_holds_no_runs(tmp_path: Path) -> None:
    from nesyworld.world.errors import SpecError

    for text in ("", "\n\n  \n"):
        (tmp_path / "empty.jsonl").write_text(text)
        with pytest.raises(SpecError, match=r"empty\.jsonl: no runs found; expected a JSON-lines"):
            read_records(tmp_path / "empty.jsonl")


def test_a_last_line_cut_short_is_skipped_and_said(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A sweep killed mid-write (or still writing) leaves a last line without its newline;
    a report skips it and says so, and leaves the file as it is."""
    from nesyworld.experiments.cli.main import main
    from nesyworld.experiments.protocol.report import read_runs
    from nesyworld.world.errors import SpecError

    ok = make_record("planning", "axe", 0)
    path = tmp_path / "runs.jsonl"
    cut = json.dumps(make_record("planning", "axe", 1))[:50]
    path.write_text(json.dumps(ok) + "\n" + cut)
    read = read_runs(path)
    assert list(read.records.values()) == [ok] and read.torn_line == 2
    assert main(["report", str(path), "--out", str(tmp_path / "report"), "--json"]) == 0
    err = capsys.readouterr().err
    assert err == (f"nesyworld: note: {path}:2: the last line is a record cut short (a sweep "
                   "killed mid-write, or still writing); skipped\n")
    assert path.read_text().endswith(cut)  # a report never writes its input
    path.write_text(json.dumps(ok) + "\n" + cut + "\n")  # closed by a newline: damage
    with pytest.raises(SpecError, match=r":2:\d+: not a JSON record"):
        read_records(path)


def test_report_refuses_what_holds_no_runs_in_one_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from nesyworld.experiments.cli.main import main

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    config = Path(__file__).resolve().parents[2] / "experiments" / "configs" / "smoke.yaml"
    for path, where in ((empty, f"{empty}: "), (config, f"{config}:1:1: ")):
        code = main(["report", str(path), "--out", str(tmp_path / "out")])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith(f"nesyworld: error: {where}no runs found"), err
        assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_caps_on_lines_and_runs_are_refused_at_the_line_that_crosses_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nesyworld.experiments.protocol import results_file
    from nesyworld.world.errors import SpecError

    monkeypatch.setattr(results_file, "MAX_RECORDS", 5)
    monkeypatch.setattr(results_file, "MAX_RUNS", 3)
    same = make_record("planning", "axe", 0)
    path = _lines(tmp_path / "runs.jsonl", *[same] * 6)
    with pytest.raises(SpecError, match=r":6:1: more than 5 records"):
        read_records(path)
    path = _lines(path, *[make_record("planning", "axe", seed) for seed in range(4)])
    with pytest.raises(SpecError, match=r":4:1: more than 3 runs"):
        read_records(path)
    monkeypatch.setattr(results_file, "MAX_LINE_BYTES", 100)
    path = _lines(path, "x" * 500)
    with pytest.raises(SpecError, match=r":1:1: no runs found: a line of more than 100 bytes"):
        read_records(path)
