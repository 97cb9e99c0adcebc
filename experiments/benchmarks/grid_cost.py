"""What the table 2 grid costs, and how its wall time falls with the number of workers.

Reads the estimate `table2_walltime.py` prints (its `tasks`: each run, and each RL agent's
pre-training for a seed, which that seed's five runs wait for), and schedules those tasks on
N workers as a process pool or a Ray cluster hands them out: a free worker takes the longest
task whose pre-training is done. The wall time of N workers is that schedule's length; it can
never beat the larger of the work divided by N and the longest chain (a pre-training and its
longest run). Workers are whole CPU cores each, as on this 2-core machine class; no start-up
or transfer cost is modelled, which a Ray cluster adds.

    python -m nesyworld.experiments.benchmarks.table2_walltime --steps 4800 \\
        --measured docs/results/table2/results.jsonl > estimate.json
    python -m nesyworld.experiments.benchmarks.grid_cost estimate.json \\
        --out docs/results/table2/grid_cost.png
"""

from __future__ import annotations

import argparse
import heapq
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nesyworld.experiments.benchmarks.table2_walltime import GridTask
from nesyworld.world.input_files import read_regular

__all__ = ["GridCost", "grid_cost", "lower_bound", "makespan", "plot", "read_tasks"]

WORKERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
MAX_ESTIMATE_BYTES = 16 << 20


def read_tasks(path: Path) -> list[GridTask]:
    """The tasks of a `table2_walltime` estimate (JSON), checked."""
    data = json.loads(read_regular(path, MAX_ESTIMATE_BYTES))
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise ValueError(f"{path}: expected the JSON table2_walltime prints, with 'tasks'")
    tasks = []
    for i, row in enumerate(data["tasks"]):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str) \
                or not isinstance(row.get("seconds"), int | float) or row["seconds"] < 0:
            raise ValueError(f"{path}: tasks[{i}]: expected {{name, seconds >= 0, after}}")
        tasks.append(GridTask(row["name"], float(row["seconds"]), row.get("after")))
    names = {t.name for t in tasks}
    for i, t in enumerate(tasks):
        if t.after is not None and t.after not in names:
            raise ValueError(f"{path}: tasks[{i}].after: no task named {t.after!r}")
    return tasks


def makespan(tasks: Sequence[GridTask], workers: int) -> float:
    """Seconds until the last task ends on `workers` workers, each free worker taking the
    longest ready task (a task is ready when the task it waits for has ended)."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    waiting: dict[str, list[GridTask]] = {}
    ready: list[tuple[float, str, GridTask]] = []
    for t in tasks:
        if t.after is None:
            heapq.heappush(ready, (-t.seconds, t.name, t))
        else:
            waiting.setdefault(t.after, []).append(t)
    running: list[tuple[float, str]] = []  # (end, name)
    now, free, end = 0.0, workers, 0.0
    while ready or running:
        while free and ready:
            _, name, task = heapq.heappop(ready)
            heapq.heappush(running, (now + task.seconds, name))
            free -= 1
        now, name = heapq.heappop(running)
        free += 1
        end = max(end, now)
        for t in waiting.pop(name, []):
            heapq.heappush(ready, (-t.seconds, t.name, t))
    return end


def lower_bound(tasks: Sequence[GridTask], workers: int) -> float:
    """No schedule on `workers` workers ends sooner: the work shared out evenly, or the
    longest chain of a task and the one it waits for."""
    by_name = {t.name: t for t in tasks}
    chain = max((t.seconds + (by_name[t.after].seconds if t.after else 0.0) for t in tasks),
                default=0.0)
    return max(sum(t.seconds for t in tasks) / workers, chain)


@dataclass(frozen=True)
class GridCost:
    """The grid's work and its wall time on each number of workers."""

    worker_hours: float
    workers: tuple[int, ...]
    wall_hours: tuple[float, ...]
    bound_hours: tuple[float, ...]


def grid_cost(tasks: Sequence[GridTask], workers: Sequence[int] = WORKERS) -> GridCost:
    return GridCost(round(sum(t.seconds for t in tasks) / 3600, 2), tuple(workers),
                    tuple(round(makespan(tasks, n) / 3600, 2) for n in workers),
                    tuple(round(lower_bound(tasks, n) / 3600, 2) for n in workers))


def plot(cost: GridCost, out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    ax.loglog(cost.workers, cost.wall_hours, "o-", label="scheduled (longest ready task first)")
    ax.loglog(cost.workers, cost.bound_hours, "--", color="grey",
              label="bound: work / workers, or the longest chain")
    if 2 in cost.workers:
        two = cost.wall_hours[cost.workers.index(2)]
        ax.annotate(f"this machine class (2 cores): {two:.1f} h", (2, two),
                    textcoords="offset points", xytext=(10, 8), fontsize=9)
    ax.set_xticks(cost.workers, [str(n) for n in cost.workers])
    ax.minorticks_off()
    ax.set_xlabel("workers (one CPU core each: a process pool or a Ray cluster)")
    ax.set_ylabel("wall hours")
    ax.set_title(f"{title}\n{cost.worker_hours:.1f} worker-hours in all", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=9)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("estimate", type=Path, help="JSON printed by table2_walltime")
    parser.add_argument("--workers", type=int, nargs="+", default=list(WORKERS))
    parser.add_argument("--out", type=Path, help="write the figure here (PNG, SVG or PDF)")
    parser.add_argument("--title", default="table 2 grid (modelled from rates measured on "
                        "this machine)")
    args = parser.parse_args(argv)
    try:
        tasks = read_tasks(args.estimate)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    cost = grid_cost(tasks, args.workers)
    print(f"{len(tasks)} tasks, {cost.worker_hours:,.1f} worker-hours")
    print("workers  wall hours  bound")
    for n, wall, bound in zip(cost.workers, cost.wall_hours, cost.bound_hours, strict=True):
        print(f"{n:7d}  {wall:10.2f}  {bound:5.2f}")
    if args.out:
        plot(cost, args.out, args.title)
        print(f"figure: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
