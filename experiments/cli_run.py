"""`nesyworld run`: an agent on a world (optionally after novelties), episode by episode."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console()
AGENTS = ("planning", "scripted", "random")


def add_commands(sub: Any) -> None:
    p = sub.add_parser("run", help="run an agent for some episodes and summarise")
    p.add_argument("spec", help="a spec file or a shipped spec name")
    p.add_argument("--agent", choices=AGENTS, default="planning",
                   help="planning: plan, execute, monitor (default); scripted: the .plan "
                        "shipped beside the spec; random: uniformly random legal actions")
    p.add_argument("--novelty", action="append", default=[], metavar="NOVELTY",
                   help="inject this novelty (a shipped name or a file; repeatable); the "
                        "agent's knowledge stays pre-novelty")
    p.add_argument("--mode", choices=["macro", "primitive"], default="macro",
                   help="planning agent: one-step macro actions, or skills of primitive moves")
    p.add_argument("--planner", default="fast-downward")
    p.add_argument("--episodes", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--render", action="store_true", help="draw the map after every episode")
    p.add_argument("--record", metavar="FILE", help="save the first episode's trajectory")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(handler=cmd_run)


def make_agent(args: argparse.Namespace, env: Any, verbose: bool) -> Any:
    from nesyworld.hybrid import PlanningAgent, PlanningConfig, RandomAgent
    from nesyworld.hybrid.agents import ScriptedAgent

    if args.agent == "random":
        return RandomAgent(env, seed=args.seed)
    if args.agent == "scripted":
        from nesyworld.domains import scripted_solution

        script = scripted_solution(args.spec) or scripted_solution(env.unwrapped.world.spec.name)
        if script is None:
            raise SystemExit(f"error: no scripted solution (.plan) ships with '{args.spec}'")
        return ScriptedAgent(env, script)
    from nesyworld.symbolic.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.from_world(args.spec)  # the agent's knowledge: the pre-novelty world

    def show(event: Any) -> None:
        style = {"failure": "red", "novelty": "yellow", "give_up": "red", "drift": "yellow",
                 "plan": "cyan"}.get(event.kind, "")
        text = f"[{style}]{event.text}[/{style}]" if style else event.text
        console.print(f"{event.step:4d}  {event.kind:8s} {text}")
        if event.kind == "plan":
            console.print("        " + " -> ".join(event.data["plan"]))

    return PlanningAgent(env, kb, PlanningConfig(planner=args.planner, mode=args.mode),
                         on_event=show if verbose else None)


def cmd_run(args: argparse.Namespace) -> int:
    from nesyworld.hybrid import run_episode, summarize
    from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
    from nesyworld.world.trajectory import Trajectory, state_digest

    env = NesyGridEnv(args.spec, render_mode="ansi" if args.render else None)
    if args.novelty:  # on their schedule: before an episode, or at a step mid-episode
        env = NoveltyInjector(env, args.novelty)
    verbose = not args.json and args.episodes == 1
    agent = make_agent(args, env, verbose)
    results = []
    for ep in range(args.episodes):
        seed = args.seed + ep
        if args.record and ep == 0:
            results.append(_recorded(env, agent, seed, args.record, Trajectory, state_digest))
        else:
            results.append(run_episode(env, agent, seed))
        if args.render:
            print(env.render())
    planner = getattr(agent, "planner", None)
    summary = {"spec": env.unwrapped.world.spec.name, "agent": args.agent,
               "novelties": args.novelty,
               **summarize(results, planner.seconds if planner else 0.0)}
    novelties = getattr(agent, "novelties", [])
    if novelties:
        summary["novelty_events"] = [{"step": e.step, "what": e.text} for e in novelties]
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    table = Table(title=f"{args.agent} agent on {summary['spec']}"
                  + (f" + {', '.join(args.novelty)}" if args.novelty else ""))
    for col in ("episodes", "success rate", "mean steps", "planner s", "wall s", "steps/s"):
        table.add_column(col)
    table.add_row(str(summary["episodes"]), f"{summary['success_rate']:.2f}",
                  f"{summary['mean_steps']:.1f}", f"{summary['planner_seconds']:.2f}",
                  f"{summary['wall_seconds']:.2f}", f"{summary['steps_per_second'] or 0:.0f}")
    console.print(table)
    if summary["failures_by_operator"]:
        console.print(f"failures by operator: {summary['failures_by_operator']}")
    return 0


def _recorded(env: Any, agent: Any, seed: int, path: str, trajectory_cls: Any,
              digest: Any) -> Any:
    """One episode, recorded as a replayable trajectory of the main agent's actions."""
    from nesyworld.hybrid import run_episode

    world = env.unwrapped.world
    traj = trajectory_cls(world.spec.source, seed)

    def record(info: dict[str, Any]) -> None:
        if traj.digests:  # after a step; the first call comes right after the reset
            traj.actions.append(info["action"])
            traj.outcomes.append({"ok": info["ok"], "cost": info["cost"],
                                  "reason": info["reason"]})
        traj.digests.append(digest(env.unwrapped.world.state))

    result = run_episode(env, agent, seed, on_step=record)
    traj.save(path)
    return result
