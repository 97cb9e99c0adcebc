"""`nesyworld generality`: run the agents on novelties one case at a time and report how many
they recover."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

console = Console(stderr=True)


def add_commands(sub: Any) -> None:
    p = sub.add_parser("generality", help="per novelty: does it break the plan, where is it "
                       "detected, does the hybrid agent recover; recovered K/N")
    p.add_argument("novelties", nargs="*", metavar="NOVELTY",
                   help="shipped novelty names or novelty files (default: every shipped one)")
    p.add_argument("--spec", default="pogostick", help="the world the novelties change")
    p.add_argument("--agent", default="rapidlearn+", choices=["rapidlearn+", "rapidlearn"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=int, default=60_000,
                   help="learning env steps per recovery")
    p.add_argument("--max-episodes", type=int, default=60, help="adaptation episodes at most")
    p.add_argument("--eval-episodes", type=int, default=20)
    p.add_argument("--out", type=Path, default=Path("results/generality.jsonl"),
                   help="JSON-lines records, one per case; a rerun resumes from it")
    p.add_argument("--json", action="store_true", help="print the records and tally as JSON")
    p.set_defaults(handler=cmd_generality)


def cmd_generality(args: argparse.Namespace) -> int:
    from nesyworld.domains import shipped_novelties
    from nesyworld.experiments.generality import (
        GeneralityConfig,
        generality_table,
        run_suite,
        tally,
    )

    novelties = list(args.novelties) or list(shipped_novelties())
    config = GeneralityConfig(args.spec, args.agent, args.seed, args.budget,
                              args.max_episodes, args.eval_episodes)

    def progress(i: int, n: int, record: dict[str, Any]) -> None:
        console.print(f"[{i}/{n}] {record['case']}: {record['how']}, S_post "
                      f"{record['s_post']:.2f} ({record['wall_seconds']:.0f} s)")

    records = run_suite(novelties, config, args.out, on_case=progress)
    if args.json:
        print(json.dumps({"records": records, "tally": tally(records)}, indent=2))
    else:
        Console().print(generality_table(records))
    return 0
