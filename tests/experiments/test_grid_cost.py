"""The grid's cost model: the schedule respects the pre-training each run waits for, never
beats its lower bound, and falls with workers until the longest chain is all that is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nesyworld.experiments.benchmarks.grid_cost import (
    grid_cost,
    lower_bound,
    main,
    makespan,
    read_tasks,
)
from nesyworld.experiments.benchmarks.table2_walltime import NOVELTIES, GridTask, estimate

RATES = {"train_steps_per_s": 500.0, "act_steps_per_s": 1000.0, "planning_steps_per_s": 100.0}
RECOVERY = {n: 30.0 for n in NOVELTIES} | {"chest": 0.0}


def _rl_grid(seeds: int = 3, pre: float = 100.0, post: float = 10.0) -> list[GridTask]:
    tasks = []
    for s in range(seeds):
        tasks.append(GridTask(f"pre {s}", pre))
        tasks += [GridTask(f"run {s} {n}", post, after=f"pre {s}") for n in range(5)]
    return tasks


def test_runs_wait_for_their_pretraining() -> None:
    tasks = _rl_grid(seeds=1)
    assert makespan(tasks, 1) == pytest.approx(150.0)
    # five workers cannot start a run before the pre-training has ended
    assert makespan(tasks, 5) == pytest.approx(110.0)
    assert makespan(tasks, 100) == pytest.approx(110.0)


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 7, 16])
def test_the_schedule_never_beats_its_bound(workers: int) -> None:
    tasks = _rl_grid(seeds=4) + [GridTask(f"hybrid {k}", 5.0 + k) for k in range(7)]
    assert makespan(tasks, workers) >= lower_bound(tasks, workers) - 1e-9
    assert makespan(tasks, workers) <= sum(t.seconds for t in tasks) / workers + 110.0


def test_wall_time_falls_with_workers_to_the_longest_chain() -> None:
    cost = grid_cost(_rl_grid(seeds=10), (1, 2, 4, 8, 16, 64))
    assert cost.worker_hours == pytest.approx(10 * 150 / 3600, abs=0.01)
    assert list(cost.wall_hours) == sorted(cost.wall_hours, reverse=True)
    assert cost.wall_hours[-1] == pytest.approx(110 / 3600, abs=0.01)


def test_the_estimate_shares_each_pretraining_among_its_runs() -> None:
    result = estimate(RATES, RECOVERY)
    tasks = [GridTask(**t) for t in result["tasks"]]
    pre = [t for t in tasks if "pre-training" in t.name]
    assert len(pre) == 2 * 10  # two RL agents x ten seeds
    runs = [t for t in tasks if "pre-training" not in t.name]
    assert len(runs) == result["runs"] == 200
    assert all(t.after in {p.name for p in pre} for t in runs if t.name.startswith("transfer"))
    shared = sum(t.seconds for t in tasks) / 3600
    assert shared == pytest.approx(2 * result["wall_hours_with_shared_pretraining"], rel=0.05)


def test_the_cli_checks_its_input_and_draws(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"tasks": [{"name": "a", "seconds": 1, "after": "missing"}]}))
    with pytest.raises(ValueError, match=r"tasks\[0\]\.after"):
        read_tasks(bad)
    with pytest.raises(SystemExit):
        main([str(bad)])
    assert "no task named 'missing'" in capsys.readouterr().err
    good = tmp_path / "estimate.json"
    good.write_text(json.dumps({"tasks": [t.__dict__ for t in _rl_grid()]}))
    assert main([str(good), "--workers", "1", "2", "--out", str(tmp_path / "cost.png")]) == 0
    assert (tmp_path / "cost.png").stat().st_size > 1000
    assert "worker-hours" in capsys.readouterr().out
