"""What planning costs: deriving the task, building both problem forms, writing PDDL, planning.

Absolute times depend on the machine, so every time is also given as a ratio to a reference
measured in the same run: a fixed pure-Python workload (summing a range of 10^6 integers). The
costs NovelGym reports for the same step are printed beside ours as constants (the issue's
figures: template fill 0.1 ms; Metric-FF 9 ms wall for its 15-operator pogostick plan).

Planner calls start processes (Fast Downward: its Python driver, the Python translator and the
search binary; ENHSP: a JVM), so the script also times each planner on a trivial problem (one
action, one goal): what a call costs before any search. For Fast Downward the pogostick call is
split further using its own log (translator and search times).

    python -m nesyworld.experiments.benchmarks.planning --spec pogostick --repeat 3

The in-process planner has no process to start: its rows are a cold call (grounding the task
once), a warm one (same Planner, a state it has not planned, the ground task kept) and the
plannability check that a recovery asks hundreds of times. `--novelty NAME` (repeatable)
adds a table of plan lengths after those novelties, against the optimal planners'.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import unified_planning.shortcuts as up
from unified_planning.io import PDDLWriter
from unified_planning.model import Fluent, InstantaneousAction, Problem

from nesyworld.experiments.benchmarks.timing import best_time, mean_time
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.pddl.writer import write_pddl
from nesyworld.symbolic.planning.planners import (
    IN_PROCESS,
    PLANNERS,
    PlanCache,
    Planner,
    PlannerInfo,
)
from nesyworld.symbolic.planning.problems import classical_problem, numeric_problem
from nesyworld.world import World
from nesyworld.world.novelty.transforms import apply_novelties

REFERENCE = "sum(range(10**6))"
# NovelGym's costs for the simplified pogostick task, as the issue gives them (seconds).
NOVELGYM_TEMPLATE_FILL = 0.1e-3
NOVELGYM_METRIC_FF = 9e-3
NOVELGYM_PLAN_LENGTH = 15
PLAN_TIMEOUT = 300.0


def trivial_problem() -> Problem:
    """One action, one goal: a planner call on it is all start-up and translation."""
    problem = Problem("trivial")
    done = Fluent("done", up.BoolType())
    problem.add_fluent(done, default_initial_value=False)
    finish = InstantaneousAction("finish")
    finish.add_effect(done, True)
    problem.add_action(finish)
    problem.add_goal(done)
    return problem


def engine_call(info: PlannerInfo, problem: Problem) -> tuple[Any, float]:
    """The registry's engine and options, called directly (to keep its log)."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with up.OneshotPlanner(name=info.engine, params=dict(info.params)) as engine:
            result = engine.solve(problem, timeout=PLAN_TIMEOUT)
    return result, time.perf_counter() - start


def _fd_log_times(result: Any) -> dict[str, float]:
    """Translator wall time, search time and the driver's total, from Fast Downward's log."""
    log = "\n".join(str(m.message) for m in result.log_messages or [])
    patterns = {
        "translate_s": r"Done! \[[\d.]+s CPU, ([\d.]+)s wall-clock\]",
        "search_s": r"\] Total time: ([\d.]+)s",
        "driver_s": r"Planner time: ([\d.]+)s",
    }
    out = {}
    for key, pattern in patterns.items():
        found = re.findall(pattern, log)
        if found:
            out[key] = float(found[-1])
    return out


def kind_once_times(info: PlannerInfo, d: Any, repeat: int) -> tuple[float, float]:
    """Median seconds of one engine call on the task built as a plain Problem and as a
    FinishedProblem (symbolic/planning/problems.py), alternated so that both see the same
    machine: the difference is what unified-planning's repeated kind analysis costs."""
    build = classical_problem if info.form == "classical" else numeric_problem
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(max(3, repeat)):
        for finished in (False, True):
            times[finished].append(engine_call(info, build(d, finished=finished))[1])
    return statistics.median(times[False]), statistics.median(times[True])


WARM_CALLS = 5
"""Warm calls per repeat: cheap for the in-process planner, so more of them steady the best."""


def _uncached(planner: Planner) -> Planner:
    """The same planner (its engine's ground tasks kept) with an empty plan cache."""
    planner.cache = PlanCache()
    return planner


def _plan_uncached(planner: Planner, d: Any) -> Any:
    return _uncached(planner).plan(d)


def _plannable_uncached(planner: Planner, d: Any) -> Any:
    return _uncached(planner).plannable(d)


def plan_lengths(spec: str, novelties: list[str], planners: list[str]) -> list[dict[str, Any]]:
    """Each planner's plan length on the task after each novelty (and before any)."""
    out = []
    for novelty in [None, *novelties]:
        task = apply_novelties(spec, [novelty]) if novelty else spec
        d = derive(task, seed=0)
        row: dict[str, Any] = {"novelty": novelty or "(none)"}
        for name in planners:
            result = Planner(name, timeout=PLAN_TIMEOUT, cache=PlanCache()).plan(d)
            row[name] = len(result) if result.ok else result.status
        out.append(row)
    return out


def measure(spec: str, repeat: int, planners: list[str]) -> dict[str, Any]:
    ref = best_time(lambda: sum(range(10**6)), max(repeat, 5))
    world = World(spec, seed=0)
    d = derive(spec, seed=0)
    rows: list[dict[str, Any]] = []

    def row(name: str, seconds: float, novelgym: float | None = None, **extra: Any) -> None:
        rows.append(
            {
                "name": name,
                "seconds": seconds,
                "ratio_to_reference": seconds / ref,
                "novelgym_seconds": novelgym,
                **extra,
            }
        )

    row(f"derive '{spec}' (load spec, world, derive)",
        best_time(lambda: derive(spec, seed=0), repeat))
    row("derive from a live World", best_time(lambda: derive(world), repeat),
        NOVELGYM_TEMPLATE_FILL)
    row("numeric UP problem", best_time(lambda: numeric_problem(d), repeat))
    row("classical UP problem (ladders)", best_time(lambda: classical_problem(d), repeat))
    row("write PDDL text, numeric", best_time(lambda: write_pddl(d), repeat),
        NOVELGYM_TEMPLATE_FILL)
    row("write PDDL text, classical", best_time(lambda: write_pddl(d, classical=True), repeat))
    classical = classical_problem(d)
    row(
        "UP's PDDLWriter, classical (inside every FD call)",
        best_time(lambda: (w := PDDLWriter(classical)).get_domain() + w.get_problem(), repeat),
    )

    trivial = trivial_problem()
    startup: dict[str, float] = {}
    for name in planners:
        info = PLANNERS[name]
        if info.engine == IN_PROCESS:
            continue  # no process, no translator: nothing starts per call
        engine_call(info, trivial)  # first call imports the engine's package
        startup[name] = best_time(partial(engine_call, info, trivial), repeat)
        row(f"{name}: trivial problem (start-up + translation)", startup[name])

    for name in startup:  # what working out the problem's kind once saves a call
        plain, finished = kind_once_times(PLANNERS[name], d, repeat)
        row(f"{name}: engine call, plain Problem (UP works out its kind 7 times)", plain)
        row(f"{name}: engine call, FinishedProblem (its kind once)", finished)

    planned: dict[str, dict[str, Any]] = {}
    for name in planners:
        cold, length, status = [], 0, ""
        for _ in range(repeat):
            planner = Planner(name, timeout=PLAN_TIMEOUT, cache=PlanCache())
            start = time.perf_counter()
            result = planner.plan(d)
            cold.append(time.perf_counter() - start)
            length, status = len(result), result.status
        planned[name] = {
            "cold_s": min(cold),
            "cold_median_s": statistics.median(cold),
            "length": length,
            "status": status,
        }
        row(
            f"{name}: plan, cold (new Planner, new cache)",
            min(cold),
            NOVELGYM_METRIC_FF,
            length=length,
            status=status,
        )
        warm = best_time(partial(_plan_uncached, planner, d), repeat * WARM_CALLS)
        planned[name]["warm_s"] = warm
        row(f"{name}: plan, warm (same Planner, plan cache emptied)", warm, NOVELGYM_METRIC_FF,
            length=length, status=status)
        row(f"{name}: plannable, uncached (same Planner)",
            best_time(partial(_plannable_uncached, planner, d), repeat * WARM_CALLS))
        row(f"{name}: plan, cached (second call)", mean_time(partial(planner.plan, d), 1000))
        row(f"{name}: plannable, cached", mean_time(partial(planner.plannable, d), 10_000))

    breakdown: dict[str, Any] = {}
    fd = next((n for n in planners if PLANNERS[n].engine == "fast-downward"), None)
    if fd is not None:
        result, total = min(
            (engine_call(PLANNERS[fd], classical) for _ in range(repeat)), key=lambda pair: pair[1]
        )
        breakdown = {
            "planner": fd,
            "total_s": total,
            **_fd_log_times(result),
            "up_writer_s": next(
                r["seconds"] for r in rows if r["name"].startswith("UP's PDDLWriter")
            ),
            "trivial_s": startup[fd],
        }
    return {
        "spec": spec,
        "repeat": repeat,
        "reference": REFERENCE,
        "reference_s": ref,
        "novelgym": {
            "template_fill_s": NOVELGYM_TEMPLATE_FILL,
            "metric_ff_s": NOVELGYM_METRIC_FF,
            "metric_ff_plan_length": NOVELGYM_PLAN_LENGTH,
        },
        "rows": rows,
        "plans": planned,
        "startup": startup,
        "fd_breakdown": breakdown,
    }


def _time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:,.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:,.2f} ms"
    return f"{seconds:,.2f} s"


def _summary(results: dict[str, Any]) -> list[str]:
    """How much of each planner's cold call a trivial problem already costs, and where Fast
    Downward's time goes."""
    lines = []
    for name, plan in results["plans"].items():
        if name not in results["startup"]:
            lines.append(f"{name}: cold {_time(plan['cold_s'])} (grounding the task), then "
                         f"{_time(plan['warm_s'])} a plan from a new state.")
            continue
        trivial = results["startup"][name]
        lines.append(
            f"{name}: trivial problem {_time(trivial)} = {100 * trivial / plan['cold_s']:.0f}% "
            f"of its cold '{results['spec']}' call ({_time(plan['cold_s'])})."
        )
    b = results["fd_breakdown"]
    if {"driver_s", "translate_s", "search_s"} <= b.keys():
        rest = b["total_s"] - b["driver_s"] - b["up_writer_s"]
        starts = b["driver_s"] - b["translate_s"] - b["search_s"]
        lines.append(
            f"{b['planner']} call split ({_time(b['total_s'])}): UP writes PDDL "
            f"{_time(b['up_writer_s'])}; FD driver {_time(b['driver_s'])} = translator "
            f"{_time(b['translate_s'])} + search {_time(b['search_s'])} + process start-ups "
            f"and I/O ~{_time(starts)}; rest of UP's wrapper ~{_time(rest)}."
        )
    elif b:
        lines.append(f"{b['planner']}: its log did not give translator/search times: {b}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="pogostick", help="world spec to plan for")
    parser.add_argument("--repeat", type=int, default=3, help="take the best of this many")
    parser.add_argument(
        "--planner",
        action="append",
        choices=sorted(PLANNERS),
        help="planners to time (default: every registered one)",
    )
    parser.add_argument("--novelty", action="append", default=[], metavar="NOVELTY",
                        help="also compare plan lengths after these novelties (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    spec = str(Path(args.spec).resolve()) if Path(args.spec).exists() else args.spec
    # Fast Downward (through unified-planning) writes ./output.sas in the working directory;
    # a private one keeps a concurrent run in the same checkout from swapping tasks with ours.
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as private:
        os.chdir(private)
        try:
            results = measure(spec, max(1, args.repeat), args.planner or list(PLANNERS))
            results["lengths"] = plan_lengths(spec, args.novelty, [
                n for n in args.planner or list(PLANNERS) if PLANNERS[n].form == "classical"])
        finally:
            os.chdir(here)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"planning '{args.spec}': best of {args.repeat}; reference: "
        f"{REFERENCE} = {_time(results['reference_s'])}"
    )
    for col in ("step", "ours", "× reference", "NovelGym", "ours / NovelGym", "plan length"):
        table.add_column(col, justify="left" if col == "step" else "right")
    for r in results["rows"]:
        ng = r["novelgym_seconds"]
        length = r.get("length")
        table.add_row(
            r["name"],
            _time(r["seconds"]),
            f"{r['ratio_to_reference']:.3g}",
            _time(ng) if ng else "",
            f"{r['seconds'] / ng:.3g}" if ng else "",
            f"{length} (NovelGym {NOVELGYM_PLAN_LENGTH})" if length is not None else "",
        )
    console = Console(width=max(Console().width, 132))
    console.print(table)
    console.print(
        "NovelGym figures: as the issue gives them (template fill 0.1 ms; Metric-FF "
        f"9 ms wall, {NOVELGYM_PLAN_LENGTH} operators), measured on another machine."
    )
    for line in _summary(results):
        console.print(line)
    lengths = Table(title="plan lengths (operators) after each novelty")
    names = [k for k in results["lengths"][0] if k != "novelty"]
    for col in ("novelty", *names):
        lengths.add_column(col, justify="left" if col == "novelty" else "right")
    for r in results["lengths"]:
        lengths.add_row(r["novelty"], *(str(r[n]) for n in names))
    console.print(lengths)


if __name__ == "__main__":
    main()
