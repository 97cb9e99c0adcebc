"""Experiment with what is new: try the actions a novelty brought, observe what each did, and
induce an operator from the change.

In the closed knowledge regime (hybrid/knowledge/regime.py) the agent has no model of an
action it never saw; all it has is the action's name and what happens when it is taken. So
before a repair is verified, the agent runs short trials in a copy of the world restored to
its own state (the snapshot the env offers, as verification does), each counted in T_adapt:

- contexts: where it stands now; after approaching each type on the map it can approach
  (a trade needs its trader in front); after selecting each new item it holds; and, one
  step deeper, after each trial that worked (crafting a new tool makes selecting it
  possible);
- in each context it tries every new action, and in contexts that face a new type also
  the actions its model uses on several kinds of faced thing (``break``, ``collect``,
  ``use``): those act on whatever is in front.

An accepted trial that changed the abstract state becomes an operator: its effects are the
observed change (hybrid/recovery/learned_operator.py's `common_effects` over one trial), its
preconditions what the context set up (facing what it approached, holding what it selected),
enough of whatever it consumed, and one of each type the action's name mentions that was in
the inventory. Nothing here reads the world's model: an induced operator is a hypothesis that
repair verifies by execution like every other candidate.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from nesyworld.hybrid.boundary.interface import Copies, Outcome
from nesyworld.hybrid.recovery.learned_operator import FUNCTIONAL, common_effects
from nesyworld.hybrid.recovery.rollouts import PolicyEpisode
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import Snapshot
from nesyworld.world.actions.movement import ROOT_TYPE
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

SKIPPED = frozenset({"give_up", "nop"})
"""Actions never tried: giving up ends the episode, waiting changes only the clock."""


@dataclass(frozen=True)
class Trial:
    """An action tried after a short prefix that sets up a context."""

    prefix: tuple[str, ...]
    action: str
    context: tuple[str, str] | None = None
    """(FACING, t) after approaching t, (HOLDING, i) after selecting i, None for "as is"."""
    prepared: tuple[tuple[str, int], ...] = ()
    """Items a plan of the agent's own made it hold before the prefix (preparation.py)."""


@dataclass(frozen=True)
class TrialResult:
    trial: Trial
    accepted: bool
    reason: str
    start: SymbolicState | None
    end: SymbolicState | None


@dataclass
class Experiments:
    """What the trials of one failure found and cost."""

    operators: list[OperatorSchema] = field(default_factory=list)
    results: list[TrialResult] = field(default_factory=list)
    env_steps: int = 0

    def describe(self) -> str:
        return (f"{len(self.results)} trials, {self.env_steps} env steps, induced "
                + (", ".join(op.name for op in self.operators) or "nothing"))


def mentions(action: str, name: str) -> bool:
    """Does the action's name mention the type `name` as whole words (`select_axe`: axe)?"""
    return re.search(rf"(^|_){re.escape(name)}(_|$)", action) is not None


def named_items(action: str, names: Collection[str]) -> list[str]:
    """The names an action's name mentions, longest only (`craft_reinforced_pogo_stick`
    mentions pogo_stick, not also stick)."""
    hits = [n for n in names if n != AIR and mentions(action, n)]
    return [n for n in hits if not any(m != n and mentions(m, n) for m in hits)]


def changed(result: TrialResult) -> bool:
    """An accepted trial that changed what the agent observes."""
    return result.accepted and result.start is not None and result.start != result.end


def generic_actions(kb: KnowledgeBase) -> set[str]:
    """Env actions that act on whatever is in front, so they are worth trying on a new type:
    those the agent's model grounds for several kinds of faced thing (``break`` for every
    breakable type), and bare verbs that need a faced thing (``collect``, even when the
    model knows one thing to collect from)."""
    uses = Counter(op.action for op in kb.active
                   if any(isinstance(c, Fact) and c.predicate == FACING and not c.negated
                          for c in op.preconditions))
    return {a for a, n in uses.items() if (n > 1 or "_" not in a) and "{" not in a}


def facing_matters(action: str, kb: KnowledgeBase) -> bool:
    """Does what the agent faces matter to this action? By analogy with the known actions of
    the same verb (`select_water_bucket` is a select, and no select needs a faced thing); an
    action of a verb the agent does not know may act on what is in front."""
    verb = action.split("_")[0]
    kin = [op for op in kb.active if op.action == verb or op.action.startswith(verb + "_")]
    if not kin:
        return True
    return any(isinstance(c, Fact) and c.predicate == FACING and not c.negated
               and not c.args[0].startswith("?") for op in kin for c in op.preconditions)


def plan_trials(z: SymbolicState, offered: Sequence[str], new_actions: Collection[str],
                new_types: Collection[str], generic: Collection[str], max_trials: int = 64
                ) -> list[Trial]:
    """The trials for this state, cheapest context first, at most `max_trials`."""
    fresh = [a for a in offered if a in set(new_actions) and a not in SKIPPED]
    types = set(new_types)
    contexts: list[tuple[tuple[str, ...], tuple[str, str] | None]] = [((), None)]
    for i, name in enumerate(z.names):
        if name == AIR or z.world[i] <= 0 or f"approach_{name}" not in offered:
            continue
        contexts.append(((f"approach_{name}",), (FACING, name)))
    for i, name in enumerate(z.names):
        if name in types and z.inventory[i] > 0 and f"select_{name}" in offered:
            contexts.append(((f"select_{name}",), (HOLDING, name)))
    trials: list[Trial] = []
    for prefix, context in contexts:
        trials += _tries(prefix, context, fresh, offered, generic, types)
    # a new kind of thing may need a tool in hand: the generic actions on it again, with
    # each held item selected (last: the widest guesses)
    held = [n for i, n in enumerate(z.names) if n != AIR and z.inventory[i] > 0
            and f"select_{n}" in offered]
    for i, name in enumerate(z.names):
        if name in types and z.world[i] > 0 and f"approach_{name}" in offered:
            trials += [Trial((f"approach_{name}", f"select_{item}"), a, (FACING, name))
                       for item in held for a in offered if a in generic]
    return trials[:max_trials]


def _tries(prefix: tuple[str, ...], context: tuple[str, str] | None, fresh: Sequence[str],
           offered: Sequence[str], generic: Collection[str], types: Collection[str]
           ) -> list[Trial]:
    """The actions worth trying after `prefix`: the new ones it did not take, and the generic
    ones when it faces a new type."""
    actions = [a for a in fresh if a not in prefix]
    if context is not None and context[0] == FACING and context[1] in types:
        actions += [a for a in offered if a in generic and a not in actions]
    return [Trial(prefix, a, context) for a in actions]


def follow_ups(results: Sequence[TrialResult], offered: Sequence[str],
               new_actions: Collection[str], new_types: Collection[str],
               generic: Collection[str]) -> list[Trial]:
    """Trials one step deeper: after each accepted trial that changed something, the new
    actions it did not take (crafting a new tool is what makes selecting it possible). What
    the first trial faced is a condition only of a generic action (it acts on what is in
    front): an action the first made possible needs what the first made, not where."""
    fresh = [a for a in offered if a in set(new_actions) and a not in SKIPPED]
    out: list[Trial] = []
    for r in results:
        if r.accepted and r.start is not None and r.start != r.end:
            prefix = (*r.trial.prefix, r.trial.action)
            out += [t if t.action in generic else Trial(t.prefix, t.action, None)
                    for t in _tries(prefix, r.trial.context, fresh, offered, generic,
                                    new_types) if t.action != r.trial.action]
    return out


def run_trials(copies: Copies, snapshot: Snapshot, trials: Sequence[Trial],
               max_steps: int = 200) -> tuple[list[TrialResult], int]:
    """Each trial from `snapshot` in a restored copy of the env; (results, env steps
    taken). The copy explains refusals only as the agent's env does."""
    env = copies.adapter()
    steps = 0
    out: list[TrialResult] = []
    for trial in trials:
        if steps >= max_steps:
            break
        env.restore(snapshot)
        outcome = Outcome(True)
        for action in trial.prefix:
            outcome = env.step(action)
            steps += 1
            if not outcome.accepted:
                break
        if not outcome.accepted:
            out.append(TrialResult(trial, False, f"the context failed: {outcome.reason}",
                                   None, None))
            continue
        z0 = env.detect()
        outcome = env.step(trial.action)
        steps += 1
        out.append(TrialResult(trial, outcome.accepted, outcome.reason, z0, env.detect()))
    return out, steps


def induce(result: TrialResult, kb: KnowledgeBase, taken: Collection[str] = ()
           ) -> OperatorSchema | None:
    """The operator a trial demonstrates, or None when it was refused or changed nothing the
    planner reads."""
    z0, z1 = result.start, result.end
    if not result.accepted or z0 is None or z1 is None:
        return None
    relevant = {(WORLD, n) for n in z0.names}
    # world counts change by themselves too (a sapling grows): only what the action faced,
    # or names, is its doing
    involved = {z.names[z.facing] for z in (z0, z1) if 0 <= z.facing < len(z.names)}
    involved |= {n for n in z0.names if mentions(result.trial.action, n)}
    effects = list(common_effects([PolicyEpisode(True, 1, z0, z1, (result.trial.action,))],
                                  relevant, involved - {AIR}))
    if not any(isinstance(e, CountChange) or (isinstance(e, SetFact) and e.value)
               for e in effects):
        return None
    trial = result.trial
    pre: list[Condition] = []
    if trial.context is not None:  # what the context set up is a precondition, and a
        # facing/holding effect deletes that value rather than a parameter
        fact, value = trial.context
        pre.append(Fact(fact, (value,)))
        effects = [SetFact(e.predicate, (value,), e.value)
                   if isinstance(e, SetFact) and e.args == (FUNCTIONAL.get(fact),) else e
                   for e in effects]
    for fact, var in FUNCTIONAL.items():
        if any(isinstance(e, SetFact) and e.args == (var,) for e in effects):
            pre.insert(0, Fact(fact, (var,)))
    for e in effects:
        if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta < 0:
            pre.append(CountAtLeast(INVENTORY, e.arg, -e.delta))
        elif isinstance(e, SetFact) and e.predicate == FACING and e.value and (
                e.args[0] not in (AIR, *FUNCTIONAL.values())):
            pre.append(CountAtLeast(WORLD, e.args[0], 1))  # something to face was there
    held_names = [n for i, n in enumerate(z0.names) if z0.inventory[i] > 0]
    for name in named_items(trial.action, held_names):
        if name != AIR:
            cond = CountAtLeast(INVENTORY, name, 1)
            if cond not in pre:
                pre.append(cond)
    # what it held while it acted on the thing in front (or what the trial selected) may be
    # the tool it needs: a precondition, which costs a plan one select at most
    held = z0.names[z0.holding] if 0 <= z0.holding < len(z0.names) else AIR
    on_front = trial.context is not None and trial.context[0] == FACING and not any(
        isinstance(e, SetFact) and e.predicate == FACING for e in effects)
    if held != AIR and (on_front or f"select_{held}" in trial.prefix) and not any(
            isinstance(c, Fact) and c.predicate == HOLDING for c in pre):
        pre.append(Fact(HOLDING, (held,)))
    used = {a for e in effects if isinstance(e, SetFact) for a in e.args if a.startswith("?")}
    params = tuple(Param(v, ROOT_TYPE) for v in FUNCTIONAL.values() if v in used)
    name = _name(trial, kb, taken)
    where = ("as it stood" if trial.context is None
             else f"{trial.context[0]} {trial.context[1]}")
    if trial.prepared:
        where += ", after a plan to hold " + ", ".join(f"{k} {n}" for n, k in trial.prepared)
    change = ", ".join(_show(e) for e in effects)
    return OperatorSchema(name, params, tuple(pre), tuple(effects), trial.action,
                          f"induced from a trial of '{trial.action}' ({where}): {change}")


def _show(e: Effect) -> str:
    if isinstance(e, CountChange):
        return f"{e.fluent}({e.arg}) {e.delta:+d}"
    assert isinstance(e, SetFact)
    return f"{'' if e.value else 'not '}{e.predicate}({', '.join(e.args)})"


def _name(trial: Trial, kb: KnowledgeBase, taken: Collection[str]) -> str:
    base = f"induced_{trial.action}"
    if trial.context is not None and not mentions(trial.action, trial.context[1]):
        base += f"_{trial.context[1]}"
    name, n = base, 1
    while name in kb or name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def experiment(copies: Copies, snapshot: Snapshot, z: SymbolicState, kb: KnowledgeBase,
               offered: Sequence[str], new_actions: Collection[str],
               new_types: Collection[str], max_trials: int = 64, max_steps: int = 200
               ) -> Experiments:
    """Plan the trials for state `z`, run them from `snapshot`, and induce one operator per
    action (per faced type, for the generic ones) from its first trial that changed
    something."""
    generic = generic_actions(kb)
    trials = plan_trials(z, offered, new_actions, new_types, generic, max_trials)
    results, steps = run_trials(copies, snapshot, trials, max_steps)
    deeper = follow_ups(results, offered, new_actions, new_types, generic)
    deeper = deeper[:max(0, max_trials - len(trials))]
    more, extra = run_trials(copies, snapshot, deeper, max(0, max_steps - steps))
    found = Experiments(results=[*results, *more], env_steps=steps + extra)
    found.operators = induce_all(found.results, kb, new_actions)
    return found


def induce_all(results: Sequence[TrialResult], kb: KnowledgeBase,
               new_actions: Collection[str]) -> list[OperatorSchema]:
    """One operator per action (per faced type, for the generic ones) from its first trial
    that changed something, unless the knowledge base already holds the same."""
    out: list[OperatorSchema] = []
    seen: set[tuple[str, str]] = set()
    known = [e.operator for e in kb if e.status == "active"]
    for r in results:
        key = (r.trial.action, r.trial.context[1] if r.trial.context and (
            r.trial.action not in new_actions) else "")
        if key in seen:
            continue
        op = induce(r, kb, {o.name for o in out})
        if op is None:
            continue
        seen.add(key)
        if not any(same_semantics(op, k) for k in known):  # induced before, and kept
            out.append(op)
    return out


def same_semantics(a: OperatorSchema, b: OperatorSchema) -> bool:
    """The same env action, conditions and effects, whatever the names."""
    return (a.action, set(a.preconditions), set(a.effects), a.params) == (
        b.action, set(b.preconditions), set(b.effects), b.params)


def requirements(failed: OperatorSchema, induced: Sequence[OperatorSchema]
                 ) -> list[Condition]:
    """What an induced operator brings about that the failed operator might now need (when
    no refusal said what): each fact it makes true or false (a property: not on fire) and
    each item it gains, as a condition."""
    out: list[Condition] = []
    for op in induced:
        for e in op.effects:
            cond: Condition | None = None
            if isinstance(e, SetFact) and not e.args[0].startswith("?") and (
                    e.args[0] != AIR) and (e.value or e.predicate not in FUNCTIONAL):
                cond = Fact(e.predicate, e.args, negated=not e.value)
            elif isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta > 0:
                cond = CountAtLeast(INVENTORY, e.arg, 1)
            if cond is not None and cond not in out and cond not in failed.preconditions:
                out.append(cond)
    # a second thing faced is impossible beside the one the operator faces: not a hypothesis
    faces = any(isinstance(c, Fact) and c.predicate == FACING for c in failed.preconditions)
    out = [c for c in out if not (faces and isinstance(c, Fact) and c.predicate == FACING)]
    order = {HOLDING: 1, INVENTORY: 2}
    return sorted(out, key=lambda c: order.get(c.predicate, 0) if isinstance(c, Fact)
                  else order[INVENTORY])

