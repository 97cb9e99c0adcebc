"""`nesyworld run`, `pddl` and `plan` on an env that is not nesyworld's (a Gymnasium id with
its module, experiments/protocol/hosted.py): the planning agent, random actions, or a repair+
hybrid agent adapted and evaluated frozen, summarised as for nesyworld's own worlds."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from nesyworld.experiments.cli.arguments import UsageError, output_file
from nesyworld.experiments.protocol.hosted import GYM_ID, HostedEnvError, is_external

__all__ = ["GYM_ID", "cmd_run_external", "derivation", "is_external"]


def derivation(spec: str, seed: int, novelties: list[str]) -> Any:
    from nesyworld.experiments.protocol import hosted

    try:
        return hosted.derivation(spec, seed, novelties)
    except HostedEnvError as err:
        raise UsageError(str(err)) from None


def cmd_run_external(args: Any, console: Any) -> int:
    """`nesyworld run` on an external env: the planning agent (or random actions) on it,
    episode by episode, summarised as for nesyworld's own worlds."""
    from nesyworld.experiments.protocol import hosted
    from nesyworld.hybrid import PlanningAgent, PlanningConfig, RandomAgent, run_episode, summarize
    from nesyworld.hybrid.agents.names import HYBRID_AGENTS
    from nesyworld.hybrid.seeding import RunSeeds

    if args.record:
        output_file(args.record)
    if args.knowledge != "closed" or args.refusals != "explained" or args.protocol != "light":
        raise UsageError("--knowledge, --refusals, --protocol: on an env that is not "
                         "nesyworld's the agent knows what its adapter shows (closed), the env "
                         "explains what it explains, and the light protocol runs; expected "
                         "their defaults")
    for flag in ("save", "kb", "render"):
        if getattr(args, flag, None):
            raise UsageError(f"--{flag}: not available for an env that is not nesyworld's")
    if args.agent not in ("planning", "random", *HYBRID_AGENTS):
        raise UsageError(f"--agent {args.agent}: on an env that is not nesyworld's, expected "
                         "planning, random or a repair+ hybrid agent")
    try:
        if args.agent in HYBRID_AGENTS:
            return _show_hybrid(args, console, hosted.adapt_hosted(
                args.spec, args.novelty, args.agent, seed=args.seed,
                knowledge=args.knowledge, planner=args.planner,
                max_episodes=args.adapt_episodes,
                eval_episodes=20 if args.episodes is None else args.episodes,
                record=args.record))
        env = hosted.make_env(args.spec, args.novelty)
        env.reset(seed=args.seed)
        view = hosted.host(env)
        env = hosted.recorded(env, view, args.record, args.spec, args.novelty)
    except HostedEnvError as err:
        raise UsageError(str(err)) from None
    if args.agent == "random":
        agent: Any = RandomAgent(env, seed=args.seed, use_mask=False)
    else:
        agent = PlanningAgent(env, config=PlanningConfig(planner=args.planner, mode=args.mode),
                              host=view)
    if args.record:
        env.agent = agent
    episodes = 1 if args.episodes is None else args.episodes
    seeds = RunSeeds(args.seed)
    results = []
    for ep in range(episodes):
        result = run_episode(env, agent, seeds.evaluation(ep))
        if args.agent == "random":  # it has no host to ask; the adapter has
            result = replace(result, success=view.goal_reached())
        results.append(result)
    planner = getattr(agent, "planner", None)
    summary = {"spec": args.spec, "agent": args.agent, "novelties": args.novelty,
               "knowledge": args.knowledge,
               **summarize(results, planner.seconds if planner else 0.0)}
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    from rich.table import Table

    table = Table(title=f"{args.agent} agent on {args.spec}"
                  + (f" + {', '.join(args.novelty)}" if args.novelty else ""))
    for col in ("episodes", "success rate", "mean steps", "planner s", "wall s"):
        table.add_column(col)
    table.add_row(str(summary["episodes"]), f"{summary['success_rate']:.2f}",
                  f"{summary['mean_steps']:.1f}", f"{summary['planner_seconds']:.2f}",
                  f"{summary['wall_seconds']:.2f}")
    console.print(table)
    if summary["failures_by_operator"]:
        console.print(f"failures by operator: {summary['failures_by_operator']}")
    return 0


def _show_hybrid(args: Any, console: Any, summary: dict[str, Any]) -> int:
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    from rich.table import Table

    table = Table(title=f"{args.agent} agent on {args.spec}"
                  + (f" + {', '.join(args.novelty)}" if args.novelty else "")
                  + f" (light protocol, {args.knowledge} knowledge)")
    table.add_column("")
    table.add_column("value", justify="right")
    t_adapt = summary["t_adapt"]
    for label, value in (("verdict", summary["verdict"]),
                         ("T_adapt (env steps in all)",
                          f"{t_adapt:,}" if t_adapt is not None else "none: not adapted"),
                         ("repaired operators", ", ".join(summary["repaired_operators"])
                          or "none"),
                         ("post-novelty success rate (frozen)",
                          f"{summary['post_novelty_success_rate']:.2f}")):
        table.add_row(label, str(value))
    console.print(table)
    return 0
