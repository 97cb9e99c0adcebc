"""Environments that are not nesyworld's own, hosted by an adapter (hybrid/adapters/): made
from a Gymnasium id with its module prefix (`minigrid:MiniGrid-DoorKey-8x8-v0`), wrapped by
novelty classes (`gymnasium.Wrapper` subclasses), and adapted to by the hybrid agent.

A novelty class is code: naming one runs it (docs/ADAPTERS.md says so, as does the README's
untrusted-input section).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class HostedEnvError(ValueError):
    """An env or a novelty class that cannot be made: one line, what and where."""


GYM_ID = re.compile(r"^([A-Za-z_][\w.]*):([\w./-]+)$")
"""`module:EnvId`, Gymnasium's own syntax for an env registered by an importable module."""
EXTRAS = {"minigrid": "minigrid"}
"""Modules with a nesyworld extra that installs them."""


def is_external(spec: str) -> bool:
    """A Gymnasium id with a module prefix (a spec file is never one: it has no colon, or
    names a file)."""
    return GYM_ID.match(spec) is not None and not Path(spec).exists()


def make_env(spec: str, novelties: Sequence[str] = ()) -> Any:
    """The env of `spec`, wrapped by each novelty class in order."""
    import gymnasium as gym

    match = GYM_ID.match(spec)
    if match is None:
        raise HostedEnvError(f"{spec}: not a Gymnasium id with its module; expected "
                             "module:EnvId (minigrid:MiniGrid-DoorKey-8x8-v0)")
    module = match.group(1)
    if importlib.util.find_spec(module.split(".")[0]) is None:
        extra = EXTRAS.get(module.split(".")[0])
        hint = (f'pip install "nesyworld[{extra}]"' if extra
                else f"install the package that provides '{module}'")
        raise HostedEnvError(f"{spec}: module '{module}' is not installed; expected it "
                         f"importable ({hint})")
    try:
        env = gym.make(spec)
    except gym.error.Error as err:
        raise HostedEnvError(f"{spec}: {str(err).splitlines()[0]}") from None
    for novelty in novelties:
        env = novelty_class(novelty)(env)
    return env


def novelty_class(ref: str) -> Any:
    """`PATH.py:Class` or `package.module:Class`: a `gymnasium.Wrapper` subclass. Loading it
    runs its module."""
    import gymnasium as gym

    where, _, name = ref.rpartition(":")
    if not where or not name.isidentifier():
        raise HostedEnvError(f"--novelty {ref}: expected PATH.py:Class or package.module:Class "
                         "for an env that is not nesyworld's")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise HostedEnvError(f"--novelty {ref}: {where} is not a file")
        unit = importlib.util.spec_from_file_location(f"nesyworld_novelty_{path.stem}", path)
        if unit is None or unit.loader is None:
            raise HostedEnvError(f"--novelty {ref}: {where} cannot be loaded as a module")
        module = importlib.util.module_from_spec(unit)
        sys.modules[unit.name] = module
        unit.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as err:
            raise HostedEnvError(f"--novelty {ref}: cannot import {where} ({err})") from None
    cls = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, gym.Wrapper)):
        raise HostedEnvError(f"--novelty {ref}: {name} in {where} is not a gymnasium.Wrapper "
                         "subclass; expected a wrapper class that changes the env")
    return cls


def host(env: Any) -> Any:
    from nesyworld.hybrid.adapters import host_for

    try:
        return host_for(env)
    except ValueError as err:
        raise HostedEnvError(str(err)) from None


def derivation(spec: str, seed: int, novelties: Sequence[str] = ()) -> Any:
    """The planning problem of an external env's first state under `seed`, as its adapter
    sees it."""
    env = make_env(spec, list(novelties))
    env.reset(seed=seed)
    view = host(env)
    return view.knowledge().derivation(view.detect(), view.goal())




def recorded(env: Any, view: Any, path: str | None, spec: str, novelties: Sequence[str]
             ) -> Any:
    """`env` wrapped by a recorder of its first episode when `path` is given (the host must
    draw frames: hybrid/recording/hosted_writer.py)."""
    if path is None:
        return env
    from nesyworld.hybrid.recording.hosted_writer import HostedRecorder, recordable

    if not recordable(view):
        raise HostedEnvError(f"--record: the adapter of {spec} draws no frames; expected an "
                             "adapter with frame() and appearance() (MiniGrid's has them)")
    return HostedRecorder(env, path, view, spec, list(novelties))


def adapt_hosted(spec: str, novelties: Sequence[str], agent_name: str, *, seed: int = 0,
                 knowledge: str = "closed", planner: str = "in-process",
                 max_episodes: int = 60, eval_episodes: int = 20,
                 record: str | None = None) -> dict[str, Any]:
    """A `repair+` hybrid agent adapted to a hosted env with its novelties, then evaluated
    frozen (experiments/protocol/adaptation.py); the record `nesyworld run --json` prints.
    Learning a policy needs nesyworld's own world, so on a hosted env the agent repairs and
    experiments only."""
    from nesyworld.experiments.protocol.adaptation import adapt_and_evaluate
    from nesyworld.hybrid import HybridAgent, PlanningConfig, hybrid_configs

    if not agent_name.startswith("repair+"):
        raise HostedEnvError(f"--agent {agent_name}: on an env that is not nesyworld's the "
                             "hybrid agent repairs and experiments but cannot learn yet; "
                             "expected a repair+ agent (repair+rapidlearn+)")
    env = make_env(spec, novelties)
    env.reset(seed=seed)
    view = host(env)
    env = recorded(env, view, record, spec, novelties)
    recovery, repair = hybrid_configs(agent_name, seed)
    agent = HybridAgent(env, None, PlanningConfig(planner=planner), recovery,
                        novelty=",".join(novelties), repair=repair,
                        knowledge=knowledge, host=view)  # type: ignore[arg-type]
    if record is not None:
        env.agent = agent
    result = adapt_and_evaluate(env, agent, seed=seed, max_episodes=max_episodes,
                                eval_episodes=eval_episodes)
    return {"spec": spec, "agent": agent_name, "novelties": list(novelties),
            "planner": planner, "knowledge": knowledge, "refusals": "explained",
            **result.summary(), "learned_operators": sorted(agent.learned),
            "repaired_operators": sorted(e.operator.name for e in agent.kb
                                         if e.origin == "repaired")}
