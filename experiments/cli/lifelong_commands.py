"""`nesyworld lifelong`: run agents in a world that never resets and report reward rates."""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

from nesyworld.experiments.cli.arguments import count, figure_file, world_seed

# The names of nesyworld.experiments.lifelong.agents.AGENTS, kept here because that module
# imports numpy and the spec model, which building the parser must not (tests/experiments/
# test_cli.py checks the two agree).
AGENTS = ("random", "scripted", "greedy")


def add_commands(sub: Any) -> None:
    p = sub.add_parser("lifelong", help="run agents in a lifelong world; reward rate over time")
    p.add_argument("spec", help="a lifelong spec file or a shipped lifelong world (orchard)")
    p.add_argument("--agent", action="append", choices=AGENTS, metavar="AGENT",
                   help=f"one of {', '.join(AGENTS)}; repeat to compare (default: random)")
    p.add_argument("--steps", type=count, default=5000, help="steps in the one long run")
    p.add_argument("--window", type=count, default=500, help="steps per reward-rate window")
    p.add_argument("--seed", type=world_seed, default=0, help="layout seed (default 0)")
    p.add_argument("--plot", metavar="FILE", help="write the reward-rate plot as a PNG")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_lifelong)


def cmd_lifelong(args: argparse.Namespace) -> int:
    from rich.console import Console

    from nesyworld.experiments.lifelong.run import (
        load_lifelong,
        plot_rates,
        rate_table,
        run_lifelong,
    )

    if args.plot:
        figure_file(args.plot)
    logging.basicConfig(level=logging.INFO if not args.json else logging.WARNING,
                        format="%(message)s")
    spec = load_lifelong(args.spec)
    runs = [run_lifelong(spec, agent, args.steps, args.window, args.seed)
            for agent in (args.agent or ["random"])]
    if args.plot:
        plot_rates(runs, args.plot)
    if args.json:
        print(json.dumps({"spec": spec.name, "runs": [r.to_dict() for r in runs],
                          "plot": args.plot}, indent=2))
        return 0
    console = Console()
    console.print(rate_table(runs))
    if args.plot:
        console.print(f"plot: {args.plot}")
    return 0
