"""A learned policy turned into a real planning operator.

The reference implementations stored a learned policy under the failed operator's name and ran
it as a fallback, so the planner kept believing the old semantics. Here the policy's observed,
repeatable effect becomes an operator `learned_<failed op>_<n>` of its own: preconditions are
what held at the failure, effects are the abstract change common to EVERY successful rollout
(at least; so the planner is promised only what the policy reliably does), and its executor runs the
policy until those effects hold. It is added to the knowledge base like any operator, with
provenance naming the failure, the novelty and the environment steps it cost.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from gymnasium.spaces.utils import flatdim

from nesyworld.hybrid.boundary.world_adapter import oracle
from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, Knowledge
from nesyworld.hybrid.knowledge.regime import observed_types
from nesyworld.hybrid.recovery.env import RecoveryEnv, failed_objects, relevant_counts
from nesyworld.hybrid.recovery.rollouts import PolicyEpisode, PolicyFn, rollouts
from nesyworld.hybrid.recovery.spending import (
    frugal_rollouts,
    spent_items,
    withhold_actions,
    withholding_mask,
)
from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.knowledge_base import Entry, KnowledgeBase
from nesyworld.world import World
from nesyworld.world.actions.movement import ROOT_TYPE as PHYSOBJ
from nesyworld.world.actions.schema import (
    AIR,
    FACING,
    HOLDING,
    INVENTORY,
    WORLD,
    Condition,
    CountAtLeast,
    CountChange,
    Effect,
    Fact,
    OperatorSchema,
    Param,
    SetFact,
)
from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig


def _bound_preconditions(op: GroundOperator) -> list[Condition]:
    """The operator's preconditions with its parameters replaced by their values; those
    that mentioned a parameter of facing/holding are left out (see learned_preconditions)."""
    b = op.binding
    out: list[Condition] = []
    for c in op.schema.preconditions:
        if isinstance(c, Fact) and c.predicate in FUNCTIONAL and any(
                a.startswith("?") for a in c.args):
            continue
        if isinstance(c, Fact):
            out.append(Fact(c.predicate, tuple(b.get(a, a) for a in c.args), c.negated))
        elif isinstance(c, CountAtLeast):
            out.append(CountAtLeast(c.fluent, b.get(c.arg, c.arg), c.value))
    return out


FUNCTIONAL = {FACING: "?from", HOLDING: "?prev"}
"""The one-valued facts and the parameter a learned operator binds their old value to: the
policy is run from wherever the plan stands, so "facing X before" must be a parameter, not
the constant seen at the failure (that would make the operator usable only there)."""


def common_effects(rollouts: Sequence[PolicyEpisode], relevant: Collection[tuple[str, str]],
                   world_types: Collection[str] | None = None) -> tuple[Effect, ...]:
    """The abstract change verified in every rollout: every inventory count's least change
    over the rollouts (what it spends at most and gains at least, so an input consumed in
    any rollout is an effect and a precondition; the monitor holds the operator to "at least
    this change"), world-count deltas equal in all (only counts some precondition or the goal
    compares: others, like world(air), vary with no meaning to the planner), property changes
    common to all, and facing/holding when every rollout ends on the same value (deleting
    the old value through the `FUNCTIONAL` parameter).

    `world_types`: the only types whose world counts may be effects (the failed operator's
    objects). Rollouts from one snapshot all see the same world dynamics (a sapling growing
    into a tree while the policy walks), so "common to every rollout" alone would promise
    the planner a tree the policy never made, and demand a sapling it never needed."""
    if not rollouts:
        return ()
    first = rollouts[0]
    names = first.start.names
    effects: list[Effect] = []
    for fact, read in ((FACING, lambda z: z.facing), (HOLDING, lambda z: z.holding)):
        new = {read(r.end) for r in rollouts}
        if len(new) == 1 and any(read(r.start) != read(r.end) for r in rollouts):
            effects.append(SetFact(fact, (FUNCTIONAL[fact],), False))
            effects.append(SetFact(fact, (names[new.pop()],), True))
    added = set.intersection(*(set(r.end.props - r.start.props) for r in rollouts))
    removed = set.intersection(*(set(r.start.props - r.end.props) for r in rollouts))
    for p, t in sorted(removed):
        effects.append(SetFact(p, (names[t],), False))
    for p, t in sorted(added):
        effects.append(SetFact(p, (names[t],), True))
    for name in names:  # world counts: only the failed operator's objects, and only when
        # every rollout changed them alike (see above)
        if name == AIR or (WORLD, name) not in relevant or (
                world_types is not None and name not in world_types):
            continue
        deltas = {r.end.count(WORLD, name) - r.start.count(WORLD, name) for r in rollouts}
        if len(deltas) == 1 and (delta := deltas.pop()) != 0:
            effects.append(CountChange(WORLD, name, delta))
    for name in names:  # the inventory: every count, consumed inputs included
        if name == AIR:
            continue
        delta = min(r.end.count(INVENTORY, name) - r.start.count(INVENTORY, name)
                    for r in rollouts)
        if delta != 0:
            effects.append(CountChange(INVENTORY, name, delta))
    return tuple(effects)


def functional_params(effects: Sequence[Effect]) -> tuple[Param, ...]:
    """The parameters the effects' deletions of facing/holding use."""
    used = {a for e in effects if isinstance(e, SetFact) for a in e.args if a.startswith("?")}
    return tuple(Param(v, PHYSOBJ) for v in FUNCTIONAL.values() if v in used)


def bind_functional(schema: OperatorSchema, z: SymbolicState) -> GroundOperator:
    """The operator bound to the facing/holding values of z (where it is started)."""
    value = {"?from": z.names[z.facing] if z.facing >= 0 else AIR,
             "?prev": z.names[z.holding] if z.holding >= 0 else AIR}
    return GroundOperator(schema, tuple(value[p.name] for p in schema.params))


def learned_preconditions(failure: OperatorFailure, effects: Sequence[Effect],
                          new_types: Collection[str] = ()) -> tuple[Condition, ...]:
    """What held at the failure that the policy may rely on, kept simple and sound:
    - the failed operator's own (bound) preconditions that held in `failure.before` (the
      policy was only ever started where they hold), except what it faced or held when
      that came from the failed operator's parameters (bound, they pin the operator to
      the failure's one situation);
    - facing(?from) / holding(?prev) for the values its effects replace;
    - enough of every count the effects consume (else the effect cannot happen);
    - holding at least one of every new type the agent held at the failure: the novelty's
      items are the likeliest means of the fix (the axe), and the policy never learned to
      get them.
    A policy trained from several starts (fine-tuned on a later failure, or given the same
    failure on other maps) keeps only what held at all of them (`build_learned_operator`):
    fine-tuned from a state where the novelty's water bucket was already emptied, it would
    otherwise require the empty bucket, which no fresh start holds, and the goal would have
    no plan again.
    """
    z = failure.before
    assert z is not None
    out: list[Condition] = [c for c in _bound_preconditions(failure.operator)
                            if z.satisfies((c,))]
    for fact, var in FUNCTIONAL.items():
        if any(isinstance(e, SetFact) and e.args == (var,) for e in effects):
            out.insert(0, Fact(fact, (var,)))
    for e in effects:
        if isinstance(e, CountChange) and e.delta < 0:
            cond = CountAtLeast(e.fluent, e.arg, -e.delta)
            if cond not in out:
                out.append(cond)
    for t in sorted(new_types):
        if t in z.names and z.count(INVENTORY, t) > 0:
            cond = CountAtLeast(INVENTORY, t, 1)
            if cond not in out:
                out.append(cond)
    return tuple(out)


@dataclass
class LearnedOperator:
    """A policy as an operator: its schema (for the planner), the policy, and its executor."""

    schema: OperatorSchema
    policy: PolicyFn = field(repr=False)
    action_names: tuple[str, ...]
    observation: ObservationConfig
    rollout_success_rate: float
    rollouts: int
    env_steps: int
    failure: str
    novelty: str = ""
    horizon: int = 200
    checkpoint: Any = field(default=None, repr=False)
    """The trained networks (learning.Checkpoint), for saving and fine-tuning; None for a
    policy that is not a trained network (a scripted stand-in)."""
    starts: list[OperatorFailure] = field(default_factory=list, repr=False)
    """The failures it was trained from (in memory only): fine-tuning trains on these too."""
    withheld: tuple[str, ...] = ()
    """Actions the executor never takes (`build_learned_operator`'s frugal rollouts): those
    that spend what the failed operator did not, when the policy succeeded without them."""

    @property
    def name(self) -> str:
        return self.schema.name

    def ground(self, z: SymbolicState) -> GroundOperator:
        """Bound where it starts: its facing/holding parameters take the values of z."""
        return bind_functional(self.schema, z)

    def meta(self) -> dict[str, Any]:
        """What the knowledge base records beside the operator (JSON-able)."""
        return {"failure": self.failure, "novelty": self.novelty, "env_steps": self.env_steps,
                "rollouts": self.rollouts, "rollout_success_rate": self.rollout_success_rate,
                "actions": list(self.action_names), "horizon": self.horizon,
                "observation": asdict(self.observation), "withheld": list(self.withheld)}

    @classmethod
    def from_entry(cls, entry: Entry, checkpoint: Any) -> LearnedOperator:
        """Rebuild a saved learned operator from its knowledge-base entry and checkpoint."""
        meta = dict(entry.meta)
        raw = dict(meta.get("observation", {}))
        if "dict_kinds" in raw:
            raw["dict_kinds"] = tuple(raw["dict_kinds"])
        return cls(entry.operator, checkpoint.policy(greedy=False, seed=0), tuple(meta["actions"]),
                   ObservationConfig(**raw), float(meta.get("rollout_success_rate", 0.0)),
                   int(meta.get("rollouts", 0)), int(meta.get("env_steps", 0)),
                   str(meta.get("failure", "")), str(meta.get("novelty", "")),
                   int(meta.get("horizon", 200)), checkpoint,
                   withheld=tuple(meta.get("withheld", ())))

    def add_to(self, kb: KnowledgeBase) -> Entry:
        return kb.add(self.schema, origin="learned", meta=self.meta())

    def effects_hold(self, z0: SymbolicState, z1: SymbolicState) -> bool:
        expected, _ = check_effects(self.ground(z0), z0, z1)
        return not expected

    def actions(self, world: World, horizon: int | None = None) -> Iterator[str]:
        """The env actions the policy chooses, one per step, reading the world afresh before
        each (the caller steps it, as with skills); ends when the effects hold relative to
        the start, or after `horizon` steps."""
        builder = ObservationBuilder(world, world.main, self.observation)
        if not self.fits(builder.space):
            return  # a novelty since it was learned changed what the agent sees: nothing
            # to run (the monitor then reports the failure, and recovery relearns it)
        names = world.action_names()
        index = [names.index(n) if n in names else -1 for n in self.action_names]
        keep = withholding_mask(self.action_names, self.withheld)
        z0 = abstract(world)
        for _ in range(self.horizon if horizon is None else horizon):
            full = world.action_mask()
            mask = np.array([bool(full[i]) if i >= 0 else False for i in index], np.int8)
            legal = withhold_actions(mask, keep)
            yield self.action_names[int(self.policy(builder.build(), legal))]
            if self.effects_hold(z0, abstract(world)):
                return

    def fits(self, observation_space: Any) -> bool:
        """Can the policy read observations of this space (no checkpoint: assume so)?"""
        if self.checkpoint is None:
            return True
        return int(flatdim(observation_space)) == int(self.checkpoint.obs_dim)

    def run(self, world: World, horizon: int | None = None) -> bool:
        """Run the policy in `world` (stepping it); True when the effects came to hold."""
        z0 = abstract(world)
        for action in self.actions(world, horizon):
            world.step(action)
        return self.effects_hold(z0, abstract(world))


def _pin_functional(pre: Sequence[Condition], effects: Sequence[Effect]
                    ) -> tuple[tuple[Condition, ...], tuple[Effect, ...]]:
    """Where a precondition already fixes what is faced or held (facing oak_log), the old
    value is that constant, not a parameter: same meaning, plainer PDDL."""
    pre, effects = list(pre), list(effects)
    for fact, var in FUNCTIONAL.items():
        fixed = [c for c in pre if isinstance(c, Fact) and c.predicate == fact
                 and not c.negated and c.args != (var,)]
        if len(fixed) == 1 and Fact(fact, (var,)) in pre:
            pre.remove(Fact(fact, (var,)))
            effects = [SetFact(fact, fixed[0].args, False) if e == SetFact(fact, (var,), False)
                       else e for e in effects]
    return tuple(pre), tuple(effects)


def _next_name(failed: str, kb: KnowledgeBase | None) -> str:
    n = 1
    while kb is not None and f"learned_{failed}_{n}" in kb:
        n += 1
    return f"learned_{failed}_{n}"


def build_learned_operator(env: RecoveryEnv, policy: PolicyFn, n_rollouts: int = 10, *,
                           kb: KnowledgeBase | None = None, spent_steps: int = 0,
                           novelty: str = "", min_success_rate: float = 0.0,
                           new_types: Collection[str] | None = None,
                           relevant: Collection[tuple[str, str]] | None = None,
                           checkpoint: Any = None, name: str | None = None,
                           knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> LearnedOperator:
    """Roll the policy out `n_rollouts` times from the failure snapshot and turn the
    successful rollouts into an operator. Raises ValueError when none succeeds or the success
    rate is below `min_success_rate` (an operator the planner cannot rely on is worse than
    none), or when the successes share no effect. `name`: keep this name (fine-tuning an
    operator replaces it); by default the next free `learned_<failed>_<n>`. `knowledge`:
    the regime (hybrid/knowledge/regime.py); in the closed one the new types are those the
    rollouts showed and what can spend an item is what the knowledge base says.
    `spent_steps`: env steps the recovery spent before these rollouts (training, its
    evaluation, sampled maps), so the provenance states the recovery's env steps in all,
    the figure every other output gives (docs/COUNTS.md).
    """
    failure = env.failure
    before = env.env_steps
    results = rollouts(env, policy, n_rollouts, min_success_rate)
    wins = [r for r in results if r.success]
    rate = len(wins) / max(1, n_rollouts)
    op = failure.operator
    if not wins or rate < min_success_rate:
        raise ValueError(f"policy for {op} succeeded in {len(wins)} of {len(results)} "
                         f"rollouts (of {n_rollouts})")
    keys = relevant if relevant is not None else relevant_counts(env.kb)
    effects = common_effects(wins, keys, failed_objects(op))
    withheld: tuple[str, ...] = ()
    # the operator replaces one that spent nothing it does not declare: when the policy's
    # rollouts spend more (a craft or trade on the way, which every later plan would then
    # have to pay for and require), try it without the actions that can spend anything else
    declared = spent_items(op.schema.effects, op.binding)
    if spent_items(effects) - declared:
        frugal, withheld, frugal_rate = frugal_rollouts(env, policy, n_rollouts, declared,
                                                min_success_rate, knowledge)
        frugal_effects = common_effects(frugal, keys, failed_objects(op))
        if frugal_rate >= max(min_success_rate, 1e-9) and frugal_effects and (
                len(spent_items(frugal_effects) - declared)
                < len(spent_items(effects) - declared)):
            wins, rate, effects = frugal, frugal_rate, frugal_effects
        else:
            withheld = ()
    effects = stand_in_effects(op, wins, effects, keys)
    if not effects:
        raise ValueError(f"the successful rollouts for {op} share no effect the planner uses")
    if new_types is None:
        known = {o.name for o in env.kb.base.objects}
        names = wins[0].start.names  # the detector's vocabulary, in its order
        seen = (oracle(env.world, knowledge).types.names if knowledge == "oracle" else
                {t for r in wins for z in (r.start, r.end) for t in observed_types(z)})
        new_types = [t for t in names if t not in known and t in seen]
    name = name or _next_name(op.name, kb if kb is not None else env.kb)
    steps = spent_steps + env.env_steps - before
    provenance = (f"learned after {op} failed ({failure.kind}: {failure.reason or 'effects'})"
                  + (f" under novelty {novelty}" if novelty else "")
                  + f"; {steps} env steps in all, success {rate:.0%} of {n_rollouts} "
                    "rollouts")
    mean_steps = float(np.mean([r.steps for r in wins]))
    pre = learned_preconditions(failure, effects, new_types)
    for _, other in env.starts[1:]:  # a precondition must hold at every start it learned from
        if other.before is None:
            continue
        held = set(learned_preconditions(other, effects, new_types))
        pre = tuple(c for c in pre if c in held)
    pre, effects = _pin_functional(pre, effects)
    schema = OperatorSchema(name, functional_params(effects), pre, effects, f"policy:{name}",
                            provenance, cost=max(1.0, mean_steps))
    return LearnedOperator(schema, policy, env.action_names, env.config.observation, rate,
                           n_rollouts, steps, str(failure), novelty, env.config.horizon,
                           checkpoint, withheld=withheld)


def stand_in_effects(op: GroundOperator, wins: Sequence[PolicyEpisode],
                     effects: tuple[Effect, ...], relevant: Collection[tuple[str, str]]
                     ) -> tuple[Effect, ...]:
    """When every successful rollout did what the failed operator declares, the learned
    operator stands in for it: it promises the failed operator's gains, not the others its
    rollouts happened to make on the way (ore broken while walking around it, from the one
    start it learned on), which later plans would count on and other maps would not give.
    What it spends, and what it faces or holds, stay promised: those are sound to state and
    the planner must know them."""
    if any(check_effects(op, r.start, r.end, relevant)[0] for r in wins):
        return effects  # some win missed a declared effect: no stand-in
    b = op.binding
    declared = {(e.fluent, b.get(e.arg, e.arg)) for e in op.schema.effects
                if isinstance(e, CountChange) and e.delta > 0}
    return tuple(e for e in effects if not (
        isinstance(e, CountChange) and e.delta > 0 and (e.fluent, e.arg) not in declared))
