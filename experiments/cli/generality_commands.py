"""`nesyworld generality`: run the agents on novelties one case at a time and report how many
they recover."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import (
    UsageError,
    count,
    episodes,
    output_file,
    run_seed,
)
from nesyworld.experiments.cli.knowledge_options import add_knowledge_arguments
from nesyworld.experiments.cli.logdir_option import add_logdir_argument, training_logs
from nesyworld.experiments.cli.output import LazyConsole
from nesyworld.hybrid.agents.names import HYBRID_AGENTS

console = LazyConsole(stderr=True)


def add_commands(sub: Any) -> None:
    p = sub.add_parser("generality", help="per novelty: does it break the plan, where is it "
                       "detected, does the hybrid agent recover; recovered K/N")
    p.add_argument("novelties", nargs="*", metavar="NOVELTY",
                   help="shipped novelty names or novelty files (default: every shipped "
                   "novelty of the spec's domain)")
    p.add_argument("--suite", metavar="NAME",
                   help="run every novelty of a named suite on the suite's own spec: "
                   "polycraft (unseen pogostick novelties) or workshop (the birdhouse task's)")
    p.add_argument("--spec", default=None,
                   help="the world the novelties change (default: the suite's spec, or "
                   "pogostick)")
    p.add_argument("--agent", default="repair+rapidlearn+", choices=list(HYBRID_AGENTS))
    p.add_argument("--seed", type=run_seed, default=0, help="the run seed (default 0)")
    p.add_argument("--budget", type=count, default=60_000,
                   help="learning env steps per recovery")
    p.add_argument("--max-episodes", type=episodes, default=60,
                   help="adaptation episodes at most")
    p.add_argument("--eval-episodes", type=episodes, default=20)
    add_knowledge_arguments(p)
    p.add_argument("--out", type=Path, default=None,
                   help="JSON-lines records, one per case; a rerun resumes from it (default: "
                   "results/generality.jsonl, or results/generality_<suite>.jsonl)")
    p.add_argument("--json", action="store_true", help="print the records and tally as JSON")
    add_logdir_argument(p)
    p.set_defaults(handler=cmd_generality)


def cmd_generality(args: argparse.Namespace) -> int:
    from nesyworld.experiments.generality import (
        GeneralityConfig,
        generality_table,
        run_suite,
        tally,
    )

    spec, novelties, out = resolve_cases(args)
    output_file(out, makes_folders=True)
    config = GeneralityConfig(spec, args.agent, args.seed, args.budget,
                              args.max_episodes, args.eval_episodes,
                              knowledge=args.knowledge, refusals=args.refusals)

    def progress(i: int, n: int, record: dict[str, Any]) -> None:
        console.print(f"[{i}/{n}] {record['case']}: {record['how']}, S_post "
                      f"{record['s_post']:.2f} ({record['wall_seconds']:.0f} s)")

    with training_logs(args.logdir):  # each recovery's training
        records = run_suite(novelties, config, out, on_case=progress)
    if args.json:
        print(json.dumps({"records": records, "tally": tally(records)}, indent=2))
    else:
        LazyConsole().print(generality_table(records))
    return 0


def resolve_cases(args: argparse.Namespace) -> tuple[str, list[str], Path]:
    """The spec, the novelties and the records file a `generality` command runs: a named
    suite's files on its spec, or the positional novelties (by default the shipped ones of the
    spec's domain); UsageError (a ValueError) for arguments that conflict. A suite's records
    get a file of their own, since a case is keyed by its file's stem and two suites may hold
    the same stem."""
    from nesyworld.experiments.generality import domain_novelties, get_suite

    if args.suite is None:
        spec = args.spec or "pogostick"
        novelties = list(args.novelties) or domain_novelties(spec)
        return spec, novelties, args.out or Path("results/generality.jsonl")
    if args.novelties:
        raise UsageError("--suite: give either NOVELTY names or --suite, not both")
    try:
        suite = get_suite(args.suite)
    except KeyError as err:
        raise UsageError(f"--suite: {err.args[0]}") from None
    if args.spec is not None and args.spec != suite.spec:
        raise UsageError(f"--spec: suite '{suite.name}' is written for spec '{suite.spec}', not "
                         f"'{args.spec}'")
    try:
        cases = [str(p) for p in suite.novelties()]
    except ImportError as err:
        raise UsageError(f"--suite {suite.name}: {err}; expected its extra installed "
                         f'(pip install "nesyworld[{suite.name}]")') from None
    return (suite.spec, cases,
            args.out or Path(f"results/generality_{suite.name}.jsonl"))
