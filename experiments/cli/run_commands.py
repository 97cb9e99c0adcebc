"""`nesyworld run`: an agent on a world (optionally after novelties), episode by episode."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from typing import Any

from nesyworld.experiments.cli.arguments import (
    UsageError,
    count,
    episodes,
    input_dir,
    output_dir,
    output_file,
    run_seed,
)
from nesyworld.experiments.cli.knowledge_options import add_knowledge_arguments
from nesyworld.experiments.cli.logdir_option import add_logdir_argument, training_logs
from nesyworld.experiments.cli.output import LazyConsole
from nesyworld.experiments.cli.studio_commands import (
    add_live_arguments,
    check_live,
    run_with_studio,
)
from nesyworld.hybrid.agents.names import HYBRID_AGENTS

console = LazyConsole()
HYBRID = HYBRID_AGENTS
AGENTS = ("planning", *HYBRID, "scripted", "random")


def add_commands(sub: Any) -> None:
    p = sub.add_parser("run", help="run an agent for some episodes and summarise")
    p.add_argument("spec", help="a spec file, a shipped spec name, or a Gymnasium id with its "
                                "module (minigrid:MiniGrid-DoorKey-8x8-v0; docs/ADAPTERS.md)")
    p.add_argument("--agent", choices=AGENTS, default="planning",
                   help="planning: plan, execute, monitor (default); rapidlearn+ / "
                        "rapidlearn: the hybrid agent, which learns an operator (PPO+ICM / "
                        "PPO) when one fails, then is evaluated frozen; repair+...: the same, "
                        "repairing its model first and learning only when no repair "
                        "verifies; scripted: the .plan "
                        "shipped beside the spec; random: uniformly random legal actions")
    p.add_argument("--novelty", action="append", default=[], metavar="NOVELTY",
                   help="inject this novelty (a shipped name or a file; repeatable); the "
                        "agent's knowledge stays pre-novelty. On an env that is not "
                        "nesyworld's: a gymnasium.Wrapper class, PATH.py:Class or "
                        "package.module:Class (code: it runs)")
    p.add_argument("--mode", choices=["macro", "primitive"], default="macro",
                   help="planning agent: one-step macro actions, or skills of primitive moves")
    p.add_argument("--planner", default="in-process",
                   help="a registered planner (`nesyworld plan --help` lists them); "
                        "in-process (default): milliseconds a plan, not proven optimal; "
                        "fast-downward: proven optimal, about 0.3 s a plan, the planner of "
                        "`nesyworld experiment` and the paper-protocol results")
    p.add_argument("--episodes", type=episodes, default=None,
                   help="episodes to run (default 1); for a hybrid agent, the frozen "
                        "evaluation episodes after adaptation (default 20)")
    p.add_argument("--adapt-episodes", type=episodes, default=60, metavar="N",
                   help="hybrid agent: at most N learning episodes, until 20 in a row succeed "
                        "without learning anything new")
    p.add_argument("--budget", type=count, default=None, metavar="STEPS",
                   help="hybrid agent: training env steps allowed per recovery (default "
                        "60000)")
    p.add_argument("--save", metavar="DIR",
                   help="hybrid agent: save the knowledge base, with the learned operators' "
                        "policies, to DIR")
    p.add_argument("--kb", metavar="DIR",
                   help="hybrid agent: start from a knowledge base saved with --save")
    p.add_argument("--seed", type=run_seed, default=0,
                   help="the run seed: it decides the learner's seed and every map of the run "
                        "(adaptation and evaluation maps apart, no map shared with another "
                        "run seed; docs/COUNTS.md)")
    p.add_argument("--protocol", choices=["light", "paper"], default="light",
                   help="hybrid agent: light (default): adapt until 20 successes in a row "
                        "without new learning, then 20 frozen episodes; paper: NovelGym's "
                        "protocol (4,800-step epochs, 100 evaluation episodes each, "
                        "appendix A's convergence test; one --novelty), as in table 2")
    p.add_argument("--render", action="store_true", help="draw the map after every episode")
    p.add_argument("--record", metavar="FILE",
                   help="record the first episode (frames, plans, failures, learning) for "
                        "`nesyworld studio`; `nesyworld replay` re-checks every state of it, "
                        "re-applying the --novelty ones at the steps they arrived")
    add_knowledge_arguments(p)
    add_live_arguments(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_logdir_argument(p)
    p.set_defaults(handler=cmd_run)


def make_agent(args: argparse.Namespace, env: Any, verbose: bool) -> Any:
    from nesyworld.hybrid import PlanningAgent, PlanningConfig, RandomAgent
    from nesyworld.hybrid.agents.planning_agent import ScriptedAgent

    if args.agent == "random":
        return RandomAgent(env, seed=args.seed)
    if args.agent == "scripted":
        from nesyworld.domains import scripted_solution

        script = scripted_solution(args.spec) or scripted_solution(env.unwrapped.world.spec.name)
        if script is None:
            raise UsageError(f"--agent scripted: no scripted solution (.plan) ships with "
                             f"'{args.spec}'; expected a shipped spec with one, or another "
                             "--agent")
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

    config = PlanningConfig(planner=args.planner, mode=args.mode)
    if args.agent in HYBRID:
        from nesyworld.hybrid import HybridAgent, hybrid_configs

        recovery, repair = hybrid_configs(args.agent, args.seed, step_budget=args.budget)
        if (os.cpu_count() or 1) > 1:  # one run, a free core: the update's second thread
            recovery = replace(recovery, train=replace(recovery.train, update_thread=True))
        agent = HybridAgent(env, kb, config, recovery, novelty=",".join(args.novelty),
                            on_event=show_hybrid if verbose else None, repair=repair,
                            knowledge=args.knowledge)
        if args.kb:
            agent.load(args.kb)
        return agent
    return PlanningAgent(env, kb, config, on_event=show if verbose else None)


def show_hybrid(event: Any) -> None:
    """What a user watches a hybrid agent do: plans, failures, learning, the new operator."""
    if event.kind == "learning":
        console.print(f"        [dim]{event.text}[/dim]")
        return
    style = {"failure": "red", "novelty": "yellow", "give_up": "red", "drift": "yellow",
             "plan": "cyan", "adaptation": "magenta", "learned": "green",
             "recovery_failed": "red"}.get(event.kind, "")
    text = f"[{style}]{event.text}[/{style}]" if style else event.text
    console.print(f"{event.step:4d}  {event.kind:8s} {text}", highlight=False)
    if event.kind == "plan":
        console.print("        " + " -> ".join(event.data["plan"]), highlight=False)
    if event.kind == "learned":  # never wrapped: a wrapped comment would lose its `;`
        console.print(event.data["pddl"], highlight=False, markup=False, soft_wrap=True)


def cmd_run(args: argparse.Namespace) -> int:
    from nesyworld.hybrid import run_episode, summarize
    from nesyworld.hybrid.recording.writer import EpisodeRecorder
    from nesyworld.hybrid.seeding import RunSeeds
    from nesyworld.symbolic.planning.planners import PLANNERS, REMOVED
    from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

    if args.planner not in PLANNERS:  # before any env is made: a one-line error, not a trace
        why = (f"was {REMOVED[args.planner]}" if args.planner in REMOVED
               else f"is not registered; expected one of {', '.join(PLANNERS)}")
        raise UsageError(f"--planner: '{args.planner}' {why}")
    from nesyworld.experiments.cli.external import cmd_run_external, is_external

    if is_external(args.spec):
        return cmd_run_external(args, console)
    check_live(args, HYBRID)
    if args.protocol == "paper":
        if (args.agent not in HYBRID or len(args.novelty) != 1 or args.record or args.kb
                or args.budget is not None or args.save or args.knowledge != "closed"
                or args.refusals != "explained"):
            raise UsageError("--protocol paper: needs a hybrid --agent and exactly one "
                             "--novelty, and takes none of --record, --kb, --save, --budget; "
                             "it runs the closed regime with explained refusals")
        from nesyworld.experiments.cli.paper_run import cmd_run_paper

        with training_logs(args.logdir):
            return cmd_run_paper(args)
    check_paths(args)
    env: Any = NesyGridEnv(args.spec, render_mode="ansi" if args.render else None,
                           refusals=args.refusals)
    if args.novelty:  # on their schedule: before an episode, or at a step mid-episode
        env = NoveltyInjector(env, args.novelty)
    recorder = None
    if args.record:
        env = recorder = EpisodeRecorder(env, args.record, novelties=args.novelty,
                                         run_seed=args.seed)
    if args.agent in HYBRID:
        with training_logs(args.logdir):
            if args.studio:  # the studio serves the run's Live tab meanwhile
                return run_with_studio(args, env, recorder, cmd_run_hybrid)
            return cmd_run_hybrid(args, env, recorder)
    args.episodes = 1 if args.episodes is None else args.episodes
    verbose = not args.json and args.episodes == 1
    agent = make_agent(args, env, verbose)
    if recorder is not None:
        recorder.agent = agent
    results = []
    seeds = RunSeeds(args.seed)
    for ep in range(args.episodes):
        results.append(run_episode(env, agent, seeds.evaluation(ep)))
        if args.render:
            print(env.render())
    planner = getattr(agent, "planner", None)
    summary = {"spec": env.unwrapped.world.spec.name, "agent": args.agent,
               "novelties": args.novelty, "refusals": args.refusals,
               **summarize(results, planner.seconds if planner else 0.0)}
    novelties = getattr(agent, "novelties", [])
    if novelties:
        summary["novelty_events"] = [{"step": e.step, "what": e.text} for e in novelties]
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    from rich.table import Table

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


def check_paths(args: argparse.Namespace) -> None:
    """Before any episode: the files the run writes can be written, the folder it reads
    exists (`--save` makes its folder)."""
    if args.record:
        output_file(args.record)
    if args.logdir and args.agent not in HYBRID:
        raise UsageError("--logdir: only a hybrid --agent trains (each recovery is logged)")
    if args.save:
        if args.agent not in HYBRID:
            raise UsageError("--save: only a hybrid --agent learns a knowledge base to save")
        output_dir(args.save)
    if args.kb:
        if args.agent not in HYBRID:
            raise UsageError("--kb: only a hybrid --agent starts from a saved knowledge base")
        input_dir(args.kb)


def cmd_run_hybrid(args: argparse.Namespace, env: Any, recorder: Any = None,
                   live: Any = None) -> int:
    """Adapt with learning on (shown step by step), then evaluate frozen; summarise. A
    recording is of the first adaptation episode: the one with the failure and the learning."""
    from nesyworld.experiments.protocol.adaptation import adapt_and_evaluate

    episodes = 20 if args.episodes is None else args.episodes
    agent = make_agent(args, env, verbose=not args.json)
    if recorder is not None:
        recorder.agent = agent
    detail = {"all": True}  # every event in the first episode; after it, what matters
    progress = None
    if agent.on_event is not None:  # a live bar while a recovery learns
        from nesyworld.experiments.cli.recovery_progress import RecoveryProgress

        progress = RecoveryProgress(agent.on_event, console.get())  # the events' console
        agent.on_progress = progress.advance  # per collected chunk, between epochs

    def on_episode(k: int, result: Any) -> None:
        detail["all"] = False
        if not args.json:
            console.print(f"[bold]adaptation episode {k + 1}[/bold]: "
                          f"{'success' if result.success else 'failure'} in {result.steps} "
                          f"steps, {len(result.failures)} operator failures", highlight=False)

    if progress is not None:
        shown = progress

        def on_event(event: Any) -> None:
            if detail["all"] or event.kind in ("failure", "adaptation", "learning", "learned",
                                               "recovery_failed", "repaired", "repair_failed",
                                               "novelty"):
                shown(event)

        agent.on_event = on_event
    if live is not None:  # --studio: a LiveRun (experiments/studio/live_run.py)
        live.attach(agent)

    def quiet() -> None:
        agent.on_event = None
        if not args.json:
            console.print(f"[bold]evaluating the adapted agent, frozen, on {episodes} "
                          "episodes[/bold]")

    try:
        result = adapt_and_evaluate(env, agent, seed=args.seed,
                                    max_episodes=args.adapt_episodes, eval_episodes=episodes,
                                    before_evaluation=quiet, on_episode=on_episode)
    finally:
        if progress is not None:
            progress.close()
    if args.save:
        agent.save(args.save)
    summary = {"spec": env.unwrapped.world.spec.name, "agent": args.agent,
               "novelties": args.novelty, "planner": args.planner,
               "knowledge": args.knowledge, "refusals": args.refusals, **result.summary(),
               "learned_operators": sorted(agent.learned),
               "repaired_operators": sorted(e.operator.name for e in agent.kb
                                            if e.origin == "repaired")}
    if live is not None:
        live.summary = summary
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    from rich.table import Table

    table = Table(title=f"{args.agent} agent on {summary['spec']}"
                  + (f" + {', '.join(args.novelty)}" if args.novelty else "")
                  + f" (light protocol, {args.knowledge} knowledge)")
    table.add_column("")
    table.add_column("value", justify="right")
    methods = [r.get("method", "learning") for r in result.recoveries]
    rows = [("protocol", f"light, run seed {args.seed} (docs/COUNTS.md)"),
            ("knowledge", f"{args.knowledge}, {args.refusals} refusals"),
            ("planner", args.planner),
            ("verdict", summary["verdict"]),
            ("T_adapt (env steps in all)",
             f"{result.t_adapt:,}" if result.t_adapt is not None else "none: not adapted"),
            ("repairs tried (verified)", f"{methods.count('repair')} "
             f"({sum(1 for r in result.recoveries if r.get('repair'))})"),
            ("learnings (operators learned or fine-tuned)", str(methods.count("learning"))),
            ("adaptation episodes", f"{len(result.adaptation_episodes)}"),
            ("env steps in all", f"{result.env_steps:,}"),
            ("  episode steps", f"{result.episode_steps:,}"),
            ("  learning steps (training, rollouts, sampled maps, repair checks)",
             f"{result.learning_steps:,}"),
            ("  learner evaluation steps", f"{result.learner_evaluation_steps:,}"),
            ("recovery wall seconds",
             f"{sum(r['wall_seconds'] for r in result.recoveries):.1f}"),
            ("post-novelty success rate (frozen)",
             f"{result.post_novelty_success_rate:.2f} of {len(result.evaluation)}"),
            ("post-novelty mean steps", f"{summary['post_novelty_mean_steps']:.1f}")]
    for label, value in rows:
        table.add_row(label, value)
    console.print(table)
    if args.save:
        console.print(f"knowledge base and policies saved to {args.save}")
    return 0
