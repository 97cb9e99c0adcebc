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
the oracle regime relaxes the post-novelty world's (`goal_reachable`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import DerivationError, derive
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    WORLD,
    CountAtLeast,
    CountChange,
    Fact,
    SetFact,
)
from nesyworld.world.envs.gym_env import NesyGridEnv, Refusals
from nesyworld.world.errors import SpecError
from nesyworld.world.spec.loader import load_spec
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
                          skills: Mapping[str, Any] | None = None,
                          refusals: Refusals = "explained") -> SampledStarts:
    """Run the planning agent on a fresh world per seed until `failure`'s operator fails
    (or anything else ends the attempt: another failure, the goal, `max_steps`). `skills`:
    the learned operators the knowledge base already plans with, so they can be run."""
    found: list[OperatorFailure] = []
    steps = tried = 0
    name = failure.operator.name
    for seed in seeds:
        tried += 1
        env = NesyGridEnv(spec, refusals=refusals)
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


def goal_reachable(spec: WorldSpec, snapshot: Any, planner: Planner | None = None
                   ) -> bool | None:
    """Can the goal still be reached from this state? False only when it surely cannot:
    some goal item cannot be had even in a relaxation of the world's own declared semantics
    (`relaxed_reachable`). None when it cannot be told (no snapshot, a model the derivation
    cannot express); `planner` is not needed (kept for callers that pass one). This reads
    the post-novelty world's model: the oracle regime's test (`model_goal_reachable` is the
    closed regime's)."""
    have = relaxed_reachable(spec, snapshot)
    if have is None:
        return None
    return all((INVENTORY, item) in have for item in spec.goal)


def model_goal_reachable(kb: KnowledgeBase, z: SymbolicState | None, goal: Mapping[str, int]
                         ) -> bool | None:
    """The closed regime's dead-end test: can the goal be reached from the observed state
    `z` in a relaxation of what the agent itself knows (its knowledge base's active
    operators and the growth and spawns of the world it was derived from)? The knowledge
    base may be wrong about the novelty, so a False here is only as good as that model; the
    relaxation forgets requirements, so a stricter world never looks more reachable than
    the model says. None when it cannot be told (no observed state)."""
    if z is None:
        return None
    ops = [e.operator for e in kb if e.status == "active"]
    spec = _source_spec(kb.base.source)
    have = relaxed_closure(ops, z, _spawn_rules(spec) if spec is not None else [])
    return all((INVENTORY, item) in have for item in goal)


@functools.lru_cache(maxsize=16)
def _source_spec(source: str) -> WorldSpec | None:
    """The spec of the world a knowledge base was derived from: the agent's pre-novelty
    knowledge of what grows and spawns. None when it cannot be read."""
    if not source or source.startswith("<"):
        return None
    try:
        return load_spec(source)
    except (SpecError, OSError):
        return None


def relaxed_reachable(spec: WorldSpec, snapshot: Any) -> set[tuple[str, str]] | None:
    """Every count that can become positive and every fact that can hold from this state, in
    a relaxation of the world's own declared semantics (its registries' derived operators,
    growth, spawns, events) that forgets deletions, consumption, amounts and negated
    conditions, so a model that is stricter than the world (a plugin's refusal it cannot
    express) never makes something reachable look unreachable. None when it cannot be
    told. The post-novelty world's model: only the oracle regime reads it."""
    if snapshot is None:
        return None
    try:
        world = World(spec)
        world.restore(snapshot)
        d = derive(world)
    except (DerivationError, ValueError):
        return None
    return relaxed_closure(d.operators, d.initial, _spawn_rules(world.spec))


def relaxed_closure(operators: Iterable[Any], z: SymbolicState,
                    extra: list[tuple[set[Key], set[Key]]]) -> set[Key]:
    """What can become true from `z` under `operators` (and the `extra` rules of growth and
    spawns), relaxed as `relaxed_reachable` says."""
    have = {(INVENTORY, n) for n in z.names if z.count(INVENTORY, n) > 0}
    have |= {(WORLD, n) for n in z.names if z.count(WORLD, n) > 0}
    for pred, index in ((FACING, z.facing), (HOLDING, z.holding)):
        if 0 <= index < len(z.names):
            have.add((pred, z.names[index]))
    have |= {(p, z.names[t]) for p, t in z.props}
    rules = [rule for op in operators for rule in _relaxed_rules(op, z.names)]
    rules += extra
    # a fact that holds nowhere and that no operator makes true is one the model cannot
    # express (a trader two cells ahead, reached by primitive moves): not a requirement
    counts = (INVENTORY, WORLD)
    modelled = have | {g for _, gains in rules for g in gains}
    rules = [({n for n in needs if n[0] in counts or n in modelled}, gains)
             for needs, gains in rules]
    grew = True
    while grew:
        grew = False
        for needs, gains in rules:
            if needs <= have and not gains <= have:
                have |= gains
                grew = True
    return have


Key = tuple[str, str]
"""(fluent, type) for a count that can be positive, (predicate, type) for a fact that can
hold."""


def _relaxed_rules(op: Any, names: tuple[str, ...]) -> list[tuple[set[Key], set[Key]]]:
    """The operator as (what it needs, what it can make true), one rule per binding of its
    parameters: counts it requires and positive facts of its preconditions; counts it raises
    and facts it adds (conditional ones too)."""
    args = [a for item in (*op.preconditions, *op.effects)
            for a in (item.args if isinstance(item, (Fact, SetFact))
                      else (item.arg,) if isinstance(item, (CountAtLeast, CountChange))
                      else ())]
    params = sorted({a for a in args if a.startswith("?")})
    out = []
    for values in product(names, repeat=len(params)):
        b = dict(zip(params, values, strict=True))
        needs = {(c.fluent, b.get(c.arg, c.arg)) for c in op.preconditions
                 if isinstance(c, CountAtLeast)}
        needs |= {(c.predicate, b.get(c.args[0], c.args[0])) for c in op.preconditions
                  if isinstance(c, Fact) and not c.negated and len(c.args) == 1}
        gains = {(e.fluent, b.get(e.arg, e.arg)) for e in op.effects
                 if isinstance(e, CountChange) and e.delta > 0}
        gains |= {(e.predicate, b.get(e.args[0], e.args[0])) for e in op.effects
                  if isinstance(e, SetFact) and e.value and len(e.args) == 1}
        if gains:
            out.append((needs, gains))
    return out


def _spawn_rules(spec: WorldSpec) -> list[tuple[set[Key], set[Key]]]:
    """What the world makes appear by itself, which the derived operators may not model: a
    type growing into another, a broken block's spawn, a scheduled event's spawn."""
    out: list[tuple[set[Key], set[Key]]] = []
    for name, et in spec.entity_types.items():
        for spawn in (et.grows_into, et.on_break):
            if spawn is not None:
                out.append(({(WORLD, name)}, {(WORLD, spawn.spawn)}))
    for event in getattr(spec, "events", ()):
        if event.kind == "spawn":
            out.append((set(), {(WORLD, event.type)}))
    return out
