"""Symbolic sub-commands: pddl, plan, parse, graph, check-domain."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import (
    UsageError,
    count,
    figure_file,
    output_dir,
    seconds,
    world_seed,
)
from nesyworld.experiments.cli.output import LazyConsole

console = LazyConsole()


def add_commands(sub: Any) -> None:
    p = sub.add_parser("pddl", help="write the PDDL domain and problem derived from a spec")
    p.add_argument("spec", help="a spec file, a shipped spec name, or a Gymnasium id with "
                                "its module (minigrid:MiniGrid-DoorKey-8x8-v0)")
    p.add_argument("--novelty", action="append", default=[], metavar="NOVELTY",
                   help="derive the world after this novelty (a shipped name or a file; "
                        "repeat to compose): the 'oracle' domain")
    p.add_argument("--classical", action="store_true",
                   help="the classical compilation (bounded counts) instead of the numeric form")
    p.add_argument("--seed", type=world_seed, default=0,
                   help="layout seed for the initial state")
    p.add_argument("--out", metavar="DIR", help="write domain.pddl and problem.pddl to DIR")
    p.set_defaults(handler=cmd_pddl, kernels="python")

    p = sub.add_parser("plan", help="plan a spec's task with a registered planner")
    p.add_argument("spec", help="a spec file, a shipped spec name, or a Gymnasium id with its "
                                "module (minigrid:MiniGrid-DoorKey-8x8-v0)")
    p.add_argument("--planner", default="fast-downward",
                   help="fast-downward (default: proven optimal, ~0.3 s), fast-downward-sat, "
                        "enhsp, enhsp-sat, in-process (our compiled search: milliseconds once "
                        "loaded, not proven optimal)")
    p.add_argument("--seed", type=world_seed, default=0, help="layout seed (default 0)")
    p.add_argument("--timeout", type=seconds, default=30.0,
                   help="seconds the planner may take (default 30)")
    p.add_argument("--novelty", action="append", default=[], metavar="NOVELTY",
                   help="plan in the world after this novelty (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_plan, kernels="python")


    p = sub.add_parser("parse", help="check PDDL files and summarise them (errors give "
                       "file:line:column)")
    p.add_argument("domain", help="a PDDL domain file")
    p.add_argument("problem", nargs="?", help="a PDDL problem file")
    p.add_argument("--plan", help="also read a plan file and validate it")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_parse)

    p = sub.add_parser("graph", help="draw a spec's recipe graph to a PNG")
    p.add_argument("spec")
    p.add_argument("--out", default="recipes.png", help="PNG path (default recipes.png)")
    p.set_defaults(handler=cmd_graph, kernels="python")

    p = sub.add_parser("check-domain", help="compare every derived operator with the simulator")
    p.add_argument("spec")
    p.add_argument("--samples", type=count, default=20,
                   help="sampled states per operator (default 20)")
    p.add_argument("--seed", type=world_seed, default=0, help="layout seed (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_check_domain, kernels="python")


def cmd_parse(args: argparse.Namespace) -> int:
    import warnings

    from nesyworld.symbolic.pddl.limits import load_pddl_text
    from nesyworld.symbolic.pddl.reader import read_pddl, read_plan
    from nesyworld.symbolic.pddl.summary import summarize

    domain_text = load_pddl_text(args.domain)  # a non-UTF-8 byte: an error at its line:column
    problem_text = load_pddl_text(args.problem) if args.problem else None
    plan_text = load_pddl_text(args.plan) if args.plan else None
    with warnings.catch_warnings(record=True) as caught:  # PDDLError: main prints line one
        warnings.simplefilter("always")
        problem = read_pddl(domain_text, problem_text, args.domain, args.problem or
                            "<problem>", numeric_default=0)
        validity = None
        if plan_text is not None:
            from unified_planning.shortcuts import PlanValidator

            plan = read_plan(plan_text, problem, args.plan)
            with PlanValidator(problem_kind=problem.kind) as validator:
                validity = str(validator.validate(problem, plan).status.name)
    summary = summarize(problem)
    summary["warnings"] = [str(w.message) for w in caught]
    if validity is not None:
        summary["plan"] = validity
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1, default=str) + "\n")
        return 0
    for w in summary["warnings"]:
        console.print(f"[yellow]warning[/yellow]: {w}")
    for key, value in summary.items():
        if key == "warnings":
            continue
        if isinstance(value, list | dict) and len(value) > 8:
            shown = list(value)[:8]
            console.print(f"{key} ({len(value)}): {', '.join(map(str, shown))}, ...")
        else:
            console.print(f"{key}: {value}")
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from nesyworld.symbolic.graphs import draw_recipe_graph

    figure_file(args.out)
    path = draw_recipe_graph(args.spec, args.out)
    print(f"wrote {path}")
    return 0


def cmd_check_domain(args: argparse.Namespace) -> int:
    from nesyworld.symbolic.derivation.domain_check import check_domain

    report = check_domain(args.spec, samples=args.samples, seed=args.seed)
    if args.json:
        sys.stdout.write(json.dumps(report.to_dict(), indent=1) + "\n")
    else:
        print(report.to_table())
    return 0 if report.ok else 1


def cmd_pddl(args: argparse.Namespace) -> int:
    from nesyworld.symbolic.pddl.writer import write_pddl

    if args.out:
        output_dir(args.out)
    domain, problem = write_pddl(_derivation(args), classical=args.classical)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "domain.pddl").write_text(domain)
        (out / "problem.pddl").write_text(problem)
        print(f"wrote {out / 'domain.pddl'} and {out / 'problem.pddl'}")
    else:
        sys.stdout.write(domain + "\n" + problem)
    return 0


def _derivation(args: argparse.Namespace) -> Any:
    """A spec's derived problem, or an external env's as its adapter reads it
    (experiments/cli/external.py)."""
    from nesyworld.experiments.cli.external import derivation, is_external
    from nesyworld.symbolic.derivation.derive import derive

    if is_external(args.spec):
        return derivation(args.spec, args.seed, args.novelty)
    return derive(_spec(args.spec, args.novelty), seed=args.seed)


def _spec(spec: str, novelties: list[str]) -> Any:
    if not novelties:
        return spec
    from nesyworld.world.novelty.transforms import apply_novelties

    return apply_novelties(spec, novelties)


def cmd_plan(args: argparse.Namespace) -> int:
    from nesyworld.symbolic.planning.planners import Planner

    try:
        planner = Planner(args.planner, timeout=args.timeout)
    except KeyError as err:  # unknown or removed: the registry says which, and why
        raise UsageError(f"--planner: {err.args[0]}") from None
    derivation = _derivation(args)
    with planner:
        result = planner.plan(derivation)
    data = {"planner": result.planner, "status": result.status, "length": len(result),
            "seconds": round(result.seconds, 4), "plan": [str(s) for s in result.steps],
            "message": result.message}
    if args.json:
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return 0 if result.ok else 1
    if not result.ok:
        console.print(f"[red]{result.status}[/red] after {result.seconds:.2f} s: "
                      f"{result.message}")
        return 1
    from rich.table import Table

    table = Table(title=f"{args.planner}: {len(result)} operators in {result.seconds:.2f} s")
    table.add_column("#", justify="right")
    table.add_column("operator", overflow="fold")  # whole names: they are pasted elsewhere
    table.add_column("provenance")
    for i, step in enumerate(result.steps, 1):
        table.add_row(str(i), str(step), derivation.operator(step.operator).provenance)
    console.print(table)
    return 0
