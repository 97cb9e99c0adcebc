"""The issue's speed targets, each checked as a ratio to a reference measured in the same run.

Our machines are shared and noisy, so an absolute figure says little on its own: every figure
is paired with a reference workload timed in the same process, in rounds that alternate ours
and the reference (a burst of load from elsewhere then hits both), keeping the best round of
each. The ratio is what to compare across machines and commits; the targets are absolute, so
their pass/fail marks hold only for the machine that printed them.

Which reference goes with which row, and why:

- Env steps (single env) against CartPole-v1, made and stepped exactly like ours (random
  actions drawn up front, resets included): the cost of a minimal Gymnasium env with the same
  wrappers, so the ratio is what our world costs above Gymnasium's own overhead. Also against
  a pure-Python 16x16 grid loop: the most a Python step of a gridworld can cost without any
  framework, so the ratio shows how far the env is from a bare interpreter loop.
- Batched env steps against CartPole's native numpy vector env at the same N: the natural
  bar for a vector entry point, as both step N envs per call without a Python loop over envs.
  Both are timed from just after their first reset, autoresets included.
- Reset against CartPole's reset through the same wrappers: Gymnasium's floor for a reset.
  Ours builds a new layout each time (seed=None), so a ratio far below 1 is expected.
- Planning rows (a cached plannability check, a cold plan) against the grid loop as a plain
  CPU yardstick: one grid step for the microsecond check, 10^6 grid steps for the plan. They
  share no code with it; the ratio only cancels out the speed of the machine. The cold plan
  is timed after a first planner call, so it is cold for the cache, not for Python's imports.

    python -m nesyworld.experiments.benchmarks.speed --steps 30000 --repeats 3 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium
import numpy as np

import nesyworld.world.envs  # noqa: F401  (registers the ids)
from nesyworld.experiments.benchmarks.env_throughput import ENV_ID, REFERENCE_ID, run
from nesyworld.experiments.benchmarks.planning import PLAN_TIMEOUT
from nesyworld.experiments.benchmarks.timing import best_time, mean_time
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World

SPEC = "pogostick"
# CartPole's numpy vector env; Gymnasium >= 1.0 reaches it through this mode (there is no
# mode named "vector").
REFERENCE_VECTOR_MODE = "vector_entry_point"
GRID = "pure-Python 16x16 grid loop"
SINGLE_TARGET = 36_000.0  # steps/s
BATCHED_TARGET = (256, 720_000.0)  # (N, env-steps/s)
RESET_TARGET_MS = 0.3
PLANNABLE_TARGET_US = 10.0

_WALLS = [[int(r in (0, 15) or c in (0, 15) or (r == 8 and c < 12)) for c in range(16)]
          for r in range(16)]  # border, and a wall across the middle with a gap at its end
_MOVES = ((0, 1), (1, 0), (0, -1), (-1, 0))


@dataclass
class Row:
    """One measurement beside its reference, both in `unit`. `ratio` is oriented so that
    above 1 always means ours is faster: ours/reference for rates, reference/ours for times."""

    name: str
    unit: str
    ours: float
    reference_name: str
    reference: float
    higher_is_better: bool  # True for rates (steps/s), False for times
    target: float | None = None
    note: str = ""
    ratio: float = field(init=False)
    passed: bool | None = field(init=False)

    def __post_init__(self) -> None:
        if self.higher_is_better:
            self.ratio = self.ours / self.reference
        else:
            self.ratio = self.reference / self.ours
        if self.target is None:
            self.passed = None
        elif self.higher_is_better:
            self.passed = self.ours >= self.target
        else:
            self.passed = self.ours <= self.target


@dataclass
class Report:
    steps: int
    repeats: int
    sizes: list[int]
    vector_mode: str
    seed: int
    rows: list[Row] = field(default_factory=list)


def grid_loop(steps: int, seed: int = 0) -> tuple[float, int]:
    """Steps/s of a bare gridworld in pure Python, and how often it reached the goal (and
    reset): random moves drawn up front, a wall check per move."""
    moves = np.random.default_rng(seed).integers(4, size=steps).tolist()
    walls, r, c, goals = _WALLS, 1, 1, 0
    start = time.perf_counter()
    for m in moves:
        dr, dc = _MOVES[m]
        if not walls[r + dr][c + dc]:
            r, c = r + dr, c + dc
        if r == 14 and c == 14:
            r, c, goals = 1, 1, goals + 1
    return steps / (time.perf_counter() - start), goals


def _rounds(fns: Sequence[Callable[[], float]], repeats: int, higher: bool) -> list[float]:
    """Best of `repeats` rounds for each of `fns`, every round calling all of them in turn."""
    results = [[fn() for fn in fns] for _ in range(max(1, repeats))]
    pick = max if higher else min
    return [pick(column) for column in zip(*results, strict=True)]


def measure_single(steps: int, repeats: int, seed: int = 0) -> list[Row]:
    ours_env, ref_env = gymnasium.make(ENV_ID), gymnasium.make(REFERENCE_ID)
    for env in (ours_env, ref_env):
        run(env, min(steps, 2000), seed)  # warm caches and imports
    ours, cartpole, grid = _rounds(
        [lambda: run(ours_env, steps, seed)["steps_per_s"],
         lambda: run(ref_env, steps, seed)["steps_per_s"],
         lambda: grid_loop(steps, seed)[0]], repeats, higher=True)
    ours_env.close()
    ref_env.close()
    name = f"single env steps/s ({ENV_ID}, LiDAR, resets included)"
    return [Row(name, "steps/s", ours, REFERENCE_ID, cartpole, True, SINGLE_TARGET),
            Row(name, "steps/s", ours, GRID, grid, True, SINGLE_TARGET)]


def _vector_rate(env: Any, n: int, batch_steps: int, seed: int) -> float:
    """Env-steps/s of stepping on from a reset. The first reset is not timed: it resets all
    n copies at once, which at N = 256 and the default budget would add a third more
    resets to the ones episodes cause; those autoresets (NEXT_STEP) are all timed."""
    actions = np.random.default_rng(seed).integers(
        int(env.single_action_space.n), size=(batch_steps, n), dtype=np.int64)
    env.reset(seed=seed)
    start = time.perf_counter()
    for a in actions:  # autoreset: Gymnasium's NEXT_STEP mode, so we just keep stepping
        env.step(a)
    return n * batch_steps / (time.perf_counter() - start)


def measure_batched(n: int, steps: int, repeats: int, seed: int = 0,
                    mode: str = "vector_entry_point") -> Row:
    """Env-steps/s of N envs stepped together, about `steps` env-steps per round."""
    ours_env = gymnasium.make_vec(ENV_ID, num_envs=n, vectorization_mode=mode)
    ref_env = gymnasium.make_vec(REFERENCE_ID, num_envs=n,
                                 vectorization_mode=REFERENCE_VECTOR_MODE)
    batch_steps = max(10, steps // n)
    for env in (ours_env, ref_env):
        _vector_rate(env, n, min(batch_steps, 10), seed)
    ours, ref = _rounds([lambda: _vector_rate(ours_env, n, batch_steps, seed),
                         lambda: _vector_rate(ref_env, n, batch_steps, seed)],
                        repeats, higher=True)
    ours_env.close()
    ref_env.close()
    target = BATCHED_TARGET[1] if n == BATCHED_TARGET[0] else None
    return Row(f"batched env-steps/s, N={n} ({mode})", "env-steps/s", ours,
               f"{REFERENCE_ID} ({REFERENCE_VECTOR_MODE}), N={n}", ref, True, target,
               note=f"{batch_steps} batch steps")


def measure_reset(resets: int, repeats: int, seed: int = 0) -> Row:
    """Mean ms per reset; ours with seed=None, so every reset lays out a new map."""
    ours_env, ref_env = gymnasium.make(ENV_ID), gymnasium.make(REFERENCE_ID)
    for env in (ours_env, ref_env):
        env.reset(seed=seed)
    ours, ref = _rounds([lambda: 1e3 * mean_time(lambda: ours_env.reset(), resets),
                         lambda: 1e3 * mean_time(lambda: ref_env.reset(), resets)],
                        repeats, higher=False)
    ours_env.close()
    ref_env.close()
    return Row("reset time (seed=None, new layouts)", "ms", ours, f"{REFERENCE_ID} reset",
               ref, False, RESET_TARGET_MS, note=f"mean of {resets}")


def measure_planning(calls: int, grid_steps: int, repeats: int, seed: int = 0) -> list[Row]:
    """A cache hit of `plannable`, then a cold plan (derive, a fresh Planner, no cache)."""
    d = derive(SPEC, seed=seed)
    state = abstract(World(SPEC, seed=seed))
    planner = Planner("fast-downward", timeout=PLAN_TIMEOUT)
    filled = planner.plannable(d, state)  # a miss: plans once and fills the cache

    def grid_seconds(steps: int) -> float:
        return steps / grid_loop(grid_steps, seed)[0]

    hit, one_step = _rounds([lambda: 1e6 * mean_time(lambda: planner.plannable(d, state), calls),
                             lambda: 1e6 * grid_seconds(1)], repeats, higher=False)
    if planner.calls != 1:  # every timed call must have been a cache hit
        raise RuntimeError(f"plannable reached the planner {planner.calls} times, not once")
    plans: list[Any] = []

    def cold() -> None:
        plans.append(Planner("fast-downward", timeout=PLAN_TIMEOUT).plan(derive(SPEC, seed=seed)))

    plan_s, million = _rounds([lambda: best_time(cold, 1), lambda: grid_seconds(10**6)],
                              repeats, higher=False)
    statuses = sorted({p.status for p in plans})
    return [
        Row("cached plannability check (cache hit)", "µs", hit, f"{GRID}, 1 step", one_step,
            False, PLANNABLE_TARGET_US, note=f"mean of {calls}; plannable={filled}"),
        Row(f"cold {SPEC} plan, derive + new Planner, no cache", "s", plan_s,
            f"{GRID}, 10^6 steps", million, False,
            note=f"status {'/'.join(statuses)}, {len(plans[-1])} steps"),
    ]


def measure(steps: int, repeats: int, sizes: Sequence[int], seed: int = 0,
            vector_mode: str = "vector_entry_point", planning: bool = True,
            progress: Callable[[str], None] = lambda _: None) -> Report:
    report = Report(steps, repeats, list(sizes), vector_mode, seed)
    progress(f"single env: {steps} steps x {repeats} rounds")
    report.rows += measure_single(steps, repeats, seed)
    for n in sizes:
        progress(f"batched env, N={n} ({vector_mode})")
        report.rows.append(measure_batched(n, steps, repeats, seed, vector_mode))
    progress("reset time")
    report.rows.append(measure_reset(max(20, steps // 50), repeats, seed))
    if planning:
        progress("planning: cached plannability check, cold plan")
        report.rows += measure_planning(max(1000, steps // 5), steps, repeats, seed)
    return report


def _figure(x: float, unit: str) -> str:
    return f"{x:,.0f} {unit}" if x >= 1000 else f"{x:.3g} {unit}"


def _print_table(report: Report) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"speed: best of {report.repeats} interleaved rounds, "
                        f"{report.steps} steps, seed {report.seed}")
    for col in ("measured", "ours", "reference (same run)", "speed ratio", "issue target"):
        table.add_column(col, justify="left" if col == "measured" else "right")
    for row in report.rows:
        target = ""
        if row.target is not None:
            mark = "[green]✓ pass[/]" if row.passed else "[red]✗ fail[/]"
            bound = "≥" if row.higher_is_better else "≤"
            target = f"{bound} {_figure(row.target, row.unit)} {mark}"
        note = f"\n[dim]{row.note}[/]" if row.note else ""
        table.add_row(row.name + note, _figure(row.ours, row.unit),
                      f"{_figure(row.reference, row.unit)}\n[dim]{row.reference_name}[/]",
                      f"{row.ratio:.3g}×", target)
    console = Console(width=max(Console().width, 140))
    console.print(table)
    console.print("speed ratio: above 1 means ours is faster (ours/reference for rates, "
                  "reference/ours for times). Targets are absolute, for this machine only.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000, help="env steps per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="take the best of this many")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 256],
                        help="numbers of envs for the batched rows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vector-mode", default="vector_entry_point",
                        help="vectorization_mode for our batched env (sync: no entry point)")
    parser.add_argument("--skip-planning", action="store_true", help="no planning rows")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    from rich.console import Console

    err = Console(stderr=True)
    report = measure(args.steps, args.repeats, args.sizes, args.seed, args.vector_mode,
                     not args.skip_planning, lambda what: err.print(f"measuring {what} ..."))
    bad = [r.name for r in report.rows
           if not all(math.isfinite(x) and x > 0 for x in (r.ours, r.reference))]
    if bad:
        sys.exit(f"non-finite or non-positive figures in: {', '.join(bad)}")
    if args.json:
        print(json.dumps(asdict(report), indent=2, allow_nan=False))
    else:
        _print_table(report)


if __name__ == "__main__":
    main()
