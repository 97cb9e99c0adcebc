"""`nesyworld adaptation`: the adaptation study (experiments/adaptation/run.py): fresh hybrid
agents adapted to novelties that break their plan and evaluated frozen, by seed, under the
light protocol; a resumable JSON-lines file and a summary table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import (
    count,
    episodes,
    output_file,
    whole,
    workers,
)
from nesyworld.experiments.cli.knowledge_options import add_knowledge_arguments
from nesyworld.hybrid.agents.names import HYBRID_AGENTS

NOVELTIES = ["axe", "fence", "distance", "fire", "chest"]


def add_commands(sub: Any) -> None:
    p = sub.add_parser("adaptation", help="adapt fresh hybrid agents to novelties by seed "
                       "(light protocol): median T_adapt, recoveries, S_post; resumable")
    p.add_argument("--spec", default="pogostick", help="the world (default pogostick)")
    p.add_argument("--novelties", nargs="+", default=NOVELTIES, metavar="NOVELTY",
                   help=f"shipped novelty names (default: {' '.join(NOVELTIES)})")
    p.add_argument("--agents", nargs="+", default=["rapidlearn+"], choices=list(HYBRID_AGENTS),
                   metavar="AGENT", help="hybrid agents (default rapidlearn+; "
                   f"choose from {', '.join(HYBRID_AGENTS)})")
    p.add_argument("--seeds", type=count, default=5, help="run seeds 0..N-1 (default 5)")
    p.add_argument("--budget", type=count, default=60_000,
                   help="training env steps per recovery (default 60,000)")
    p.add_argument("--eval-episodes", type=episodes, default=20)
    p.add_argument("--workers", type=workers, default=2, help="processes (default 2)")
    p.add_argument("--minibatch", type=count, help="PPO minibatch of the recoveries "
                   "(default: RecoveryConfig's, 128)")
    p.add_argument("--passes", type=count, help="PPO passes per chunk (default: 8)")
    p.add_argument("--novelty-bias", type=float, help="the recoveries' prior bias of the "
                   "actions new since the novelty (default: RecoveryConfig's, 2.0)")
    p.add_argument("--batched-copies", type=whole(0, 1024, "a number of copies"),
                   help="copies of the batched recovery env the recoveries train on "
                   "(default: RecoveryConfig's, 4; 0: 2 RecoveryEnvs, as before)")
    p.add_argument("--planner", help="the agent's planner (default: PlanningConfig's, "
                   "fast-downward; `nesyworld run` uses in-process)")
    add_knowledge_arguments(p)
    p.add_argument("--out", type=Path, default=Path("results/adaptation.jsonl"),
                   help="JSON-lines records; a rerun resumes from it "
                   "(default results/adaptation.jsonl)")
    p.add_argument("--json", action="store_true", help="print the summary rows as JSON")
    p.set_defaults(handler=cmd_adaptation)


def cmd_adaptation(args: argparse.Namespace) -> int:
    from nesyworld.experiments.adaptation.run import (
        AdaptationRunSpec,
        print_table,
        summary_rows,
        sweep,
    )
    from nesyworld.world.novelty.transforms import apply_novelties

    for novelty in args.novelties:  # a bad name fails here, in one line, not in a worker
        apply_novelties(args.spec, [novelty])
    out = output_file(args.out, makes_folders=True)
    configs = [AdaptationRunSpec(args.spec, n, s, a, args.budget, args.eval_episodes,
                                 minibatch=args.minibatch, passes=args.passes,
                                 novelty_bias=args.novelty_bias,
                                 batched_copies=args.batched_copies, planner=args.planner,
                                 knowledge=args.knowledge, refusals=args.refusals)
               for n in args.novelties for a in args.agents for s in range(args.seeds)]
    rows = summary_rows(sweep(configs, out, args.workers))
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print_table(rows)
    return 0
