"""More starting points for recovery: the same failure, met on other maps.

A policy trained from one failure snapshot learns that one map: on the Distance novelty
(trade from two cells away) the way back from the trader depends on what stands behind the
agent, and a policy from one snapshot failed on a quarter of new maps. So before training,
the planning agent (same knowledge, learning off) runs on a few fresh maps of the same world
until the same operator fails, and each such failure becomes another start of the recovery
env. RAPid-Learn replayed the plan to the failure on every learning episode; here it is
replayed once per extra map, and every one of those env steps is counted as adaptation.

A start from which the goal cannot be reached at all (a dead end: the tree the task needed
was burnt) teaches nothing but failure, so `goal_reachable` keeps such starts out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.symbolic.derivation.derive import DerivationError, derive
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.spec.model import WorldSpec


@dataclass
class SampledStarts:
    """Failures of one operator on other maps, and the env steps it took to meet them."""

    failures: list[OperatorFailure]
    env_steps: int
    maps_tried: int


def sample_failure_starts(spec: WorldSpec, kb: KnowledgeBase, failure: OperatorFailure,
                          seeds: Iterable[int], config: PlanningConfig | None = None,
                          planner: Planner | None = None, max_steps: int = 300,
                          skills: Mapping[str, Any] | None = None) -> SampledStarts:
    """Run the planning agent on a fresh world per seed until `failure`'s operator fails
    (or anything else ends the attempt: another failure, the goal, `max_steps`). `skills`:
    the learned operators the knowledge base already plans with, so they can be run."""
    found: list[OperatorFailure] = []
    steps = tried = 0
    name = failure.operator.name
    for seed in seeds:
        tried += 1
        env = NesyGridEnv(spec)
        agent = PlanningAgent(env, kb, config or PlanningConfig())
        if planner is not None:
            agent.planner = planner  # one plan cache across maps: most states repeat
        agent.learned = dict(skills or {})
        obs, info = env.reset(seed=seed)
        agent.reset(obs, info)
        for _ in range(max_steps):
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            steps += 1
            agent.observe(obs, float(reward), terminated, truncated, info)
            if agent.failures or terminated or truncated:
                break
        first = agent.failures[0] if agent.failures else None
        if first is not None and first.operator.name == name and first.snapshot is not None:
            found.append(first)
    return SampledStarts(found, steps, tried)


def goal_reachable(spec: WorldSpec, snapshot: Any, planner: Planner) -> bool | None:
    """Can the goal still be reached from this state, by the world's own declared semantics
    (its registries' derived model, which the agent's knowledge base may no longer match)?
    None when that cannot be told (no snapshot, a planner timeout, a model the derivation
    cannot express): then the start is kept, never dropped on a guess."""
    if snapshot is None:
        return None
    try:
        world = World(spec)
        world.restore(snapshot)
        return planner.plannable(derive(world))
    except (DerivationError, ValueError):
        return None
