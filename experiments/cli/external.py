"""Environments that are not nesyworld's own on the command line: a Gymnasium id with
Gymnasium's module prefix (`minigrid:MiniGrid-DoorKey-8x8-v0`), hosted by an adapter
(hybrid/adapters/), and novelties for them as `gymnasium.Wrapper` classes.

A novelty class is code: naming one runs it (docs/ADAPTERS.md says so, as does the README's
untrusted-input section).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import UsageError

GYM_ID = re.compile(r"^([A-Za-z_][\w.]*):([\w./-]+)$")
"""`module:EnvId`, Gymnasium's own syntax for an env registered by an importable module."""
EXTRAS = {"minigrid": "minigrid"}
"""Modules with a nesyworld extra that installs them."""


def is_external(spec: str) -> bool:
    """A Gymnasium id with a module prefix (a spec file is never one: it has no colon, or
    names a file)."""
    return GYM_ID.match(spec) is not None and not Path(spec).exists()


def make_env(spec: str, novelties: list[str] = ()) -> Any:  # type: ignore[assignment]
    """The env of `spec`, wrapped by each novelty class in order."""
    import gymnasium as gym

    match = GYM_ID.match(spec)
    assert match is not None
    module = match.group(1)
    if importlib.util.find_spec(module.split(".")[0]) is None:
        extra = EXTRAS.get(module.split(".")[0])
        hint = (f'pip install "nesyworld[{extra}]"' if extra
                else f"install the package that provides '{module}'")
        raise UsageError(f"{spec}: module '{module}' is not installed; expected it "
                         f"importable ({hint})")
    try:
        env = gym.make(spec)
    except gym.error.Error as err:
        raise UsageError(f"{spec}: {str(err).splitlines()[0]}") from None
    for novelty in novelties:
        env = novelty_class(novelty)(env)
    return env


def novelty_class(ref: str) -> Any:
    """`PATH.py:Class` or `package.module:Class`: a `gymnasium.Wrapper` subclass. Loading it
    runs its module."""
    import gymnasium as gym

    where, _, name = ref.rpartition(":")
    if not where or not name.isidentifier():
        raise UsageError(f"--novelty {ref}: expected PATH.py:Class or package.module:Class "
                         "for an env that is not nesyworld's")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise UsageError(f"--novelty {ref}: {where} is not a file")
        unit = importlib.util.spec_from_file_location(f"nesyworld_novelty_{path.stem}", path)
        if unit is None or unit.loader is None:
            raise UsageError(f"--novelty {ref}: {where} cannot be loaded as a module")
        module = importlib.util.module_from_spec(unit)
        sys.modules[unit.name] = module
        unit.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as err:
            raise UsageError(f"--novelty {ref}: cannot import {where} ({err})") from None
    cls = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, gym.Wrapper)):
        raise UsageError(f"--novelty {ref}: {name} in {where} is not a gymnasium.Wrapper "
                         "subclass; expected a wrapper class that changes the env")
    return cls


def host(env: Any) -> Any:
    from nesyworld.hybrid.adapters import host_for

    try:
        return host_for(env)
    except ValueError as err:
        raise UsageError(str(err)) from None


def derivation(spec: str, seed: int, novelties: list[str] = ()) -> Any:  # type: ignore[assignment]
    """The planning problem of an external env's first state under `seed`, as its adapter
    sees it."""
    env = make_env(spec, list(novelties))
    env.reset(seed=seed)
    view = host(env)
    return view.knowledge().derivation(view.detect(), view.goal())


def cmd_run_external(args: Any, console: Any) -> int:
    """`nesyworld run` on an external env: the planning agent (or random actions) on it,
    episode by episode, summarised as for nesyworld's own worlds."""
    import json

    from nesyworld.hybrid import PlanningAgent, PlanningConfig, RandomAgent, run_episode, summarize
    from nesyworld.hybrid.seeding import RunSeeds

    if args.agent not in ("planning", "random"):
        raise UsageError(f"--agent {args.agent}: on an env that is not nesyworld's, only the "
                         "planning and random agents run so far; expected --agent planning")
    for flag in ("record", "save", "kb", "render"):
        if getattr(args, flag, None):
            raise UsageError(f"--{flag}: not available for an env that is not nesyworld's")
    env = make_env(args.spec, args.novelty)
    env.reset(seed=args.seed)
    view = host(env)
    if args.agent == "random":
        agent: Any = RandomAgent(env, seed=args.seed, use_mask=False)
    else:
        agent = PlanningAgent(env, config=PlanningConfig(planner=args.planner, mode=args.mode),
                              host=view)
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
