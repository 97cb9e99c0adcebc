"""nesyworld: hybrid planning-and-learning agents in open worlds.

This is the public API in one place (the file installs as the package ``nesyworld`` itself;
see pyproject.toml). Everything else is reachable from the subpackages named in the README's
layout, but a user should not need them to start::

    import nesyworld

    env = nesyworld.make("nesyworld/Pogostick-v0")      # a Gymnasium env; any shipped spec
    world = nesyworld.World("pogostick", seed=0)          # the simulator underneath
    derivation = nesyworld.derive("pogostick")            # its PDDL task, from the registries
    with nesyworld.Planner("fast-downward") as planner:
        result = planner.plan(derivation)

Importing this package registers a Gymnasium id for every shipped world spec
(``nesyworld/<CamelCaseStem>-v0``), so ``gymnasium.make("nesyworld/Pogostick-v0")`` works after
``import nesyworld``, and ``gymnasium.make("nesyworld:nesyworld/Pogostick-v0")`` works with no
import at all. The other names load on first use: ``import nesyworld`` imports neither torch
nor a planner. Gymnasium itself is imported only when something uses it (the ids are
registered the moment it is: see nesyworld.domains.registration), so the command line and the
symbolic layer start without it.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nesyworld.domains.registration import env_id, register_when_imported

if TYPE_CHECKING:
    import gymnasium

    from nesyworld.hybrid.agents.hybrid_agent import HybridAgent
    from nesyworld.hybrid.agents.planning_agent import (
        PlanningAgent,
        PlanningConfig,
        RandomAgent,
    )
    from nesyworld.hybrid.agents.protocol import Agent
    from nesyworld.hybrid.baselines.rl_agents import RLAgent, TransferRLAgent
    from nesyworld.hybrid.baselines.rl_config import RLConfig
    from nesyworld.hybrid.execution.episode import EpisodeResult, run_episode
    from nesyworld.hybrid.recovery.config import RecoveryConfig
    from nesyworld.hybrid.repair.repairer import RepairConfig
    from nesyworld.symbolic.derivation.derive import Derivation, derive
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.symbolic.planning.planners import Planner, PlanResult
    from nesyworld.world.envs.aec_env import make_aec
    from nesyworld.world.errors import SpecError
    from nesyworld.world.novelty.transforms import Novelty, apply_novelties, load_novelty
    from nesyworld.world.simulation.world import World
    from nesyworld.world.spec.loader import load_spec
    from nesyworld.world.spec.model import WorldSpec

register_when_imported()

_LAZY = {
    "make_aec": "nesyworld.world.envs.aec_env",
    "World": "nesyworld.world.simulation.world",
    "WorldSpec": "nesyworld.world.spec.model",
    "load_spec": "nesyworld.world.spec.loader",
    "SpecError": "nesyworld.world.errors",
    "Novelty": "nesyworld.world.novelty.transforms",
    "load_novelty": "nesyworld.world.novelty.transforms",
    "apply_novelties": "nesyworld.world.novelty.transforms",
    "Derivation": "nesyworld.symbolic.derivation.derive",
    "derive": "nesyworld.symbolic.derivation.derive",
    "Planner": "nesyworld.symbolic.planning.planners",
    "PlanResult": "nesyworld.symbolic.planning.planners",
    "KnowledgeBase": "nesyworld.symbolic.knowledge_base",
    "Agent": "nesyworld.hybrid.agents.protocol",
    "RandomAgent": "nesyworld.hybrid.agents.planning_agent",
    "PlanningAgent": "nesyworld.hybrid.agents.planning_agent",
    "PlanningConfig": "nesyworld.hybrid.agents.planning_agent",
    "HybridAgent": "nesyworld.hybrid.agents.hybrid_agent",
    "RecoveryConfig": "nesyworld.hybrid.recovery.config",
    "RepairConfig": "nesyworld.hybrid.repair.repairer",
    "RLAgent": "nesyworld.hybrid.baselines.rl_agents",
    "RLConfig": "nesyworld.hybrid.baselines.rl_config",
    "TransferRLAgent": "nesyworld.hybrid.baselines.rl_agents",
    "run_episode": "nesyworld.hybrid.execution.episode",
    "EpisodeResult": "nesyworld.hybrid.execution.episode",
}

__all__ = [
    "Agent", "Derivation", "EpisodeResult", "HybridAgent", "KnowledgeBase", "Novelty",
    "PlanResult", "Planner", "PlanningAgent", "PlanningConfig", "RLAgent", "RLConfig",
    "RandomAgent", "RecoveryConfig", "RepairConfig", "SpecError", "TransferRLAgent", "World",
    "WorldSpec",
    "__version__", "apply_novelties", "derive", "env_id", "load_novelty", "load_spec", "make",
    "make_aec", "make_vec", "run_episode",
]


def _version() -> str:
    """The installed distribution's version. Read on first use: importlib.metadata costs
    every command of the CLI about 20 ms at start-up, and only a caller asking needs it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nesyworld")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def _gym_id(env: str | Path | WorldSpec) -> tuple[str, dict[str, Any]]:
    """A registered id as given, a shipped spec's name as its id, anything else (a spec file,
    a WorldSpec) through the generic id with `spec` passed on."""
    import gymnasium

    if isinstance(env, str) and env in gymnasium.registry:
        return env, {}
    if isinstance(env, str) and f"nesyworld/{env}" in gymnasium.registry:
        return f"nesyworld/{env}", {}
    if isinstance(env, str) and env_id(env) in gymnasium.registry:
        return env_id(env), {}
    return env_id("pogostick"), {"spec": env}


def make(env: str | Path | WorldSpec = "nesyworld/Pogostick-v0",
         **kwargs: Any) -> gymnasium.Env[Any, Any]:
    """A single-agent Gymnasium env, with gymnasium.make's wrappers (time limit, order
    enforcing, env checker).

    `env` is a registered id (``"nesyworld/Pogostick-v0"``), a shipped spec's name
    (``"pogostick_full"``), a spec file, or a `WorldSpec` (a spec after novelties, say); other
    keyword arguments go to `NesyGridEnv` (``observation=``, ``render_mode=``, ...).
    """
    import gymnasium

    gym_id, extra = _gym_id(env)
    return gymnasium.make(gym_id, **extra, **kwargs)


def make_vec(env: str | Path | WorldSpec = "nesyworld/Pogostick-v0", num_envs: int = 1,
             **kwargs: Any) -> gymnasium.vector.VectorEnv[Any, Any, Any]:
    """`num_envs` copies of a task as one native vector env (`NesyVectorEnv`: one compiled
    call per step, NEXT_STEP autoreset); `env` is read as in `make`, and other keyword
    arguments go to `NesyVectorEnv` (``observation=``, ``engine=``, ``copy=``)."""
    import gymnasium

    gym_id, extra = _gym_id(env)
    return gymnasium.make_vec(gym_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                              **extra, **kwargs)
