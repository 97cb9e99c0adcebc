"""Symbolic sub-commands: pddl, plan, parse, graph, check-domain."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console()


def add_commands(sub: Any) -> None:
    p = sub.add_parser("pddl", help="write the PDDL domain and problem derived from a spec")
    p.add_argument("spec", help="a spec file or a shipped spec name")
    p.add_argument("--classical", action="store_true",
                   help="the classical compilation (bounded counts) instead of the numeric form")
    p.add_argument("--seed", type=int, default=0, help="layout seed for the initial state")
    p.add_argument("--out", metavar="DIR", help="write domain.pddl and problem.pddl to DIR")
    p.set_defaults(handler=cmd_pddl)

    p = sub.add_parser("plan", help="plan a spec's task with a registered planner")
    p.add_argument("spec")
    p.add_argument("--planner", default="fast-downward",
                   help="fast-downward (default), fast-downward-sat, enhsp, enhsp-sat")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_plan)


def cmd_pddl(args: argparse.Namespace) -> int:
    from nesyworld.symbolic.derive import derive
    from nesyworld.symbolic.pddl_writer import write_pddl

    domain, problem = write_pddl(derive(args.spec, seed=args.seed), classical=args.classical)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "domain.pddl").write_text(domain)
        (out / "problem.pddl").write_text(problem)
        print(f"wrote {out / 'domain.pddl'} and {out / 'problem.pddl'}")
    else:
        sys.stdout.write(domain + "\n" + problem)
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from nesyworld.symbolic.derive import derive
    from nesyworld.symbolic.planners import Planner

    derivation = derive(args.spec, seed=args.seed)
    with Planner(args.planner, timeout=args.timeout) as planner:
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
    table = Table(title=f"{args.planner}: {len(result)} operators in {result.seconds:.2f} s")
    table.add_column("#", justify="right")
    table.add_column("operator")
    table.add_column("provenance")
    for i, step in enumerate(result.steps, 1):
        table.add_row(str(i), str(step), derivation.operator(step.operator).provenance)
    console.print(table)
    return 0
