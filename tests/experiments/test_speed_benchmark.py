"""The speed benchmark, run tiny: every row is there, its figures are real measurements, its
ratios are oriented as the table says, and --json prints JSON. No speed is asserted (the
targets are for the full run on a quiet machine)."""

from __future__ import annotations

import json
import math

import pytest

from nesyworld.experiments.benchmarks import speed

VECTOR_MODE = "vector_entry_point"  # the native NesyVectorEnv, never a stand-in

SIZES = (1, 4)
ARGS = ["--steps", "200", "--repeats", "1", "--sizes", *map(str, SIZES),
        "--vector-mode", VECTOR_MODE]


def _check(row: dict[str, object]) -> None:
    ours, ref, ratio = (float(row[k]) for k in ("ours", "reference", "ratio"))  # type: ignore[arg-type]
    assert math.isfinite(ours) and ours > 0, row
    assert math.isfinite(ref) and ref > 0, row
    expected = ours / ref if row["higher_is_better"] else ref / ours
    assert ratio == pytest.approx(expected), row
    target = row["target"]
    if target is None:
        assert row["passed"] is None, row
    else:
        met = ours >= target if row["higher_is_better"] else ours <= target  # type: ignore[operator]
        assert row["passed"] is met, row


def test_json_has_every_row_measured_and_oriented(capsys: pytest.CaptureFixture[str]) -> None:
    speed.main(["--json", *ARGS])  # planning included: about 2 s of planner calls
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"]
    names = [r["name"] for r in rows]
    single = [r for r in rows if r["name"].startswith("single env steps/s")]
    assert sorted(r["reference_name"] for r in single) == sorted(
        ["CartPole-v1", speed.GRID])
    assert len({r["ours"] for r in single}) == 1  # one measurement, two references
    for n in SIZES:
        assert f"batched env-steps/s, N={n} ({VECTOR_MODE})" in names
    assert "reset time (seed=None, new layouts)" in names
    assert "cached plannability check (cache hit)" in names
    assert "cold pogostick plan, derive + new Planner, no cache" in names
    assert len(rows) == 2 + len(SIZES) + 1 + 2
    for row in rows:
        _check(row)
    units = {r["name"]: r["unit"] for r in rows}
    assert units["reset time (seed=None, new layouts)"] == "ms"
    assert units["cached plannability check (cache hit)"] == "µs"
    plan = next(r for r in rows if r["name"].startswith("cold pogostick plan"))
    assert plan["note"].startswith("status plan,"), plan
    hit = next(r for r in rows if r["name"].startswith("cached plannability"))
    assert hit["note"].endswith("plannable=True"), hit
    assert out["vector_mode"] == VECTOR_MODE and out["sizes"] == list(SIZES)


def test_skip_planning_drops_only_the_planning_rows(capsys: pytest.CaptureFixture[str]) -> None:
    speed.main(["--json", "--skip-planning", *ARGS])
    names = [r["name"] for r in json.loads(capsys.readouterr().out)["rows"]]
    assert len(names) == 2 + len(SIZES) + 1
    assert not any("plan" in name for name in names)


def test_batched_rows_step_every_env() -> None:
    one = speed.measure_batched(1, 200, 1, mode=VECTOR_MODE)
    four = speed.measure_batched(4, 200, 1, mode=VECTOR_MODE)
    # the same env-steps per round, split over the envs: 200 batch steps of 1, 50 of 4
    assert (one.note, four.note) == ("200 batch steps", "50 batch steps")
    for row in (one, four):
        assert math.isfinite(row.ours) and row.ours > 0
        assert row.target is None and row.passed is None  # the target is for N=256 only


def test_grid_loop_walks_to_its_goal_and_resets() -> None:
    rate, goals = speed.grid_loop(50_000, seed=0)
    assert math.isfinite(rate) and rate > 0
    assert goals > 0
    assert speed.grid_loop(50_000, seed=0)[1] == goals  # the moves come from the seed


def test_time_rows_invert_the_ratio() -> None:
    fast = speed.Row("t", "ms", 1.0, "r", 4.0, False, 2.0)
    slow = speed.Row("t", "ms", 4.0, "r", 1.0, False, 2.0)
    assert (fast.ratio, fast.passed) == (4.0, True)
    assert (slow.ratio, slow.passed) == (0.25, False)
