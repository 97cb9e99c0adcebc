"""More starting points for recovery: the same failure, met on other maps.

A policy trained from one failure snapshot learns that one map: on the Distance novelty
(trade from two cells away) the way back from the trader depends on what stands behind the
agent, and a policy from one snapshot failed on a quarter of new maps. So before training,
the planning agent (same knowledge, learning off) runs on a few fresh maps of the same world
until the same operator fails, and each such failure becomes another start of the recovery
env. RAPid-Learn replayed the plan to the failure on every learning episode; here it is
replayed once per extra map, and every one of those env steps is counted as adaptation.

A start from which the goal cannot be reached at all (a dead end: the tree the task needed
was burnt) teaches nothing but failure, so such starts are kept out; the test judges on a
relaxation, so a start is dropped only when it surely is a dead end. In the closed
knowledge regime the relaxation is of the agent's own model (`model_goal_reachable`); only
the oracle regime relaxes the post-novelty world's (`goal_reachable` in
hybrid/boundary/oracle_model.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.boundary.world_adapter import CopyRecipe
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.knowledge.prior import source_spec
from nesyworld.hybrid.knowledge.relaxation import relaxed_closure, spawn_rules
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import INVENTORY, OperatorSchema


@dataclass
class SampledStarts:
    """Failures of one operator on other maps, and the env steps it took to meet them."""

    failures: list[OperatorFailure]
    env_steps: int
    maps_tried: int


def sample_failure_starts(copies: CopyRecipe, kb: KnowledgeBase, failure: OperatorFailure,
                          seeds: Iterable[int], config: PlanningConfig | None = None,
                          planner: Planner | None = None, max_steps: int = 300,
                          skills: Mapping[str, Any] | None = None) -> SampledStarts:
    """Run the planning agent on a fresh map of the env per seed (its episodes reset with
    those seeds) until `failure`'s operator fails (or anything else ends the attempt:
    another failure, the goal, `max_steps`). `skills`: the learned operators the knowledge
    base already plans with, so they can be run."""
    found: list[OperatorFailure] = []
    steps = tried = 0
    name = failure.operator.name
    for seed in seeds:
        tried += 1
        env = copies.env()
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


def model_goal_reachable(kb: KnowledgeBase, z: SymbolicState | None, goal: Mapping[str, int],
                         learning: OperatorSchema | None = None) -> bool | None:
    """The closed regime's dead-end test: can the goal be reached from the observed state
    `z` in a relaxation of what the agent itself knows (its knowledge base's active
    operators and the growth and spawns of the world it was derived from)? The knowledge
    base may be wrong about the novelty, so a False here is only as good as that model; the
    relaxation forgets requirements, so a stricter world never looks more reachable than
    the model says. None when it cannot be told (no observed state).

    `learning`: the operator recovery is about to learn, counted as if it worked. Without
    it, a gap recovery (learning to obtain an item no active operator gives) would always
    look like a dead end when every route to the goal needs that item."""
    if z is None:
        return None
    ops = [e.operator for e in kb if e.status == "active"]
    if learning is not None:
        ops.append(learning)
    spec = source_spec(kb.base.source)
    have = relaxed_closure(ops, z, spawn_rules(spec) if spec is not None else [])
    return all((INVENTORY, item) in have for item in goal)
