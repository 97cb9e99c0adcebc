"""`nesyworld multiagent SPEC`: train one policy per learning agent and report the table."""

from __future__ import annotations

import argparse
import json
from typing import Any

from nesyworld.experiments.cli.arguments import UsageError, count, episodes, run_seed, whole
from nesyworld.experiments.cli.logdir_option import add_logdir_argument, training_logs

MAX_ROUNDS = 100
"""Each round reserves 20,000 learner-env map seeds of the run (experiments/multiagent/run.py),
so the run's SPAN of them bounds the rounds near 800; 100 is far past any useful run."""


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "multiagent",
        help="train every learning agent of a multi-agent spec (PPO each) and report returns "
             "and team success or win rates",
    )
    p.add_argument("spec", help="a spec with a multiagent: section (e.g. coop_pogostick)")
    p.add_argument("--steps", type=count, default=6_000,
                   help="training env steps shared by all learners (default 6000)")
    p.add_argument("--rounds", type=whole(1, MAX_ROUNDS, "a number of rounds"),
                   default=2,
                   help="alternating training rounds (each learner trains once a round)")
    p.add_argument("--episodes", type=episodes, default=20, help="evaluation episodes")
    p.add_argument("--seed", type=run_seed, default=0, help="the run seed (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    add_logdir_argument(p)
    p.set_defaults(handler=cmd_multiagent)


def cmd_multiagent(args: argparse.Namespace) -> int:
    from rich.console import Console

    from nesyworld.experiments.multiagent.run import (
        MultiAgentTrainConfig,
        render_table,
        train_multiagent,
    )
    from nesyworld.world.spec.loader import load_spec

    spec = load_spec(args.spec)  # a bad spec fails here, located, before any training
    if spec.multiagent is None:
        raise UsageError(f"{spec.source}: the spec has no multiagent: section; expected "
                         "multiagent: {mode: cooperative|competitive, learners: [...]}")
    console = Console(stderr=args.json)
    config = MultiAgentTrainConfig(steps=args.steps, rounds=args.rounds,
                              eval_episodes=args.episodes, seed=args.seed)

    def progress(rnd: int, learner: str, steps: int) -> None:
        console.print(f"round {rnd + 1}/{config.rounds}: training {learner} for {steps} steps")

    with training_logs(args.logdir):
        result = train_multiagent(spec, config, on_phase=progress)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        console.print(render_table(result))
    return 0
