"""Candidate repairs of a failed operator, formed from the evidence and ranked.

Each candidate is a small edit of the knowledge base: operators to add or replace, operators
to demote. None is trusted: `repairer.py` applies each to a copy, replans and verifies it by
execution. The ranking puts the repairs the evidence states outright first (a refusal that
names its requirement), then what the observed change implies, then hypotheses (a new type in
an absent type's role), and removing the operator last.

A lifted operator (with parameters) is repaired for the failing binding only: the repair is
a ground copy of it, and the lifted one gets a `Distinct` condition that keeps it from that
binding, so the other bindings keep the semantics they have not been seen to lose.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from nesyworld.hybrid.execution.monitor import mentioned_names
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.repair.evidence import Change, Evidence
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    Condition,
    CountAtLeast,
    CountChange,
    Distinct,
    Effect,
    Fact,
    OperatorSchema,
    SetFact,
)

REPEATS = (2, 3, 5)
"""Repeat counts tried when an operator ran and changed nothing (a block that needs several
hits): few, because each is verified by execution."""


@dataclass(frozen=True)
class Candidate:
    """One repair: what it changes in the knowledge base, and why."""

    kind: str  # require | consume | effects | repeat | role | demote
    rationale: str
    operators: tuple[OperatorSchema, ...] = ()
    """Added, or replacing the operator of the same name."""
    demote: tuple[str, ...] = ()
    rank: int = 0

    def apply(self, kb: KnowledgeBase, meta: Mapping[str, object] | None = None
              ) -> KnowledgeBase:
        out = kb.copy()
        for name in self.demote:
            if name in out and out.entry(name).status == "active":
                out.demote(name, f"repair ({self.kind}): {self.rationale}")
        for op in self.operators:
            out.add(op, origin="repaired", meta=dict(meta or {}),
                    replace_existing=op.name in out)
        return out


def specialize(op: GroundOperator) -> tuple[OperatorSchema, OperatorSchema | None]:
    """The operator to repair (a ground copy when it is lifted) and the lifted one kept from
    this binding (None when the operator has no parameters)."""
    schema = op.schema
    if not schema.params:
        return schema, None
    b = op.binding

    def bind(a: str) -> str:
        return b.get(a, a)

    pre: list[Condition] = []
    for c in schema.preconditions:
        if isinstance(c, Fact):
            pre.append(Fact(c.predicate, tuple(map(bind, c.args)), c.negated))
        elif isinstance(c, CountAtLeast):
            pre.append(CountAtLeast(c.fluent, bind(c.arg), c.value))
        # a Distinct of bound values is decided already: the binding passed it
    effects = [_map_effect(e, bind) for e in schema.effects]
    suffix = "_".join(re.sub(r"\W", "_", a) for a in op.args)
    ground = replace(schema, name=f"{schema.name}__{suffix}", params=(),
                     preconditions=tuple(pre), effects=tuple(effects),
                     action=op.env_action)
    # kept from this binding by the parameters that choose the env action (approach_{?to}:
    # ?to), else by all: one Distinct per parameter excludes every binding sharing that value
    chosen = [p for p in schema.params if f"{{{p.name}}}" in schema.action] or list(
        schema.params)
    kept = replace(schema, preconditions=(*schema.preconditions, *(
        Distinct(p.name, b[p.name]) for p in chosen)))
    return ground, kept


def _map_effect(e: Effect, sub: Callable[[str], str]) -> Effect:
    """An effect with its arguments (and a conditional effect's conditions) renamed."""
    if isinstance(e, SetFact):
        when = tuple(Fact(c.predicate, tuple(map(sub, c.args)), c.negated) for c in e.when)
        return replace(e, args=tuple(map(sub, e.args)), when=when)
    return CountChange(e.fluent, sub(e.arg), e.delta)


def with_condition(pre: Sequence[Condition], cond: Condition) -> tuple[Condition, ...]:
    """Preconditions with `cond` added: a count requirement replaces a weaker one on the same
    count, and what is faced or held is one value, so a new one replaces the old."""
    out: list[Condition] = []
    for c in pre:
        if isinstance(cond, CountAtLeast) and isinstance(c, CountAtLeast) and (
                (c.fluent, c.arg) == (cond.fluent, cond.arg)):
            cond = CountAtLeast(cond.fluent, cond.arg, max(c.value, cond.value))
            continue
        if isinstance(cond, Fact) and isinstance(c, Fact) and c.predicate == cond.predicate:
            if c.predicate in (FACING, HOLDING) and not c.negated and not cond.negated:
                continue
            if c.args == cond.args:
                continue
        out.append(c)
    out.append(cond)
    return tuple(out)


def with_count(effects: Sequence[Effect], fluent: str, arg: str, delta: int
               ) -> tuple[Effect, ...]:
    """Effects with the change of one count set to `delta` (dropped when 0)."""
    out = [e for e in effects if not (isinstance(e, CountChange) and (e.fluent, e.arg) == (
        fluent, arg))]
    if delta:
        out.append(CountChange(fluent, arg, delta))
    return tuple(out)


def _pair(evidence: Evidence, schema: OperatorSchema, kept: OperatorSchema | None, kind: str,
          rationale: str, rank: int) -> Candidate:
    ops = (schema,) if kept is None else (schema, kept)
    return Candidate(kind, rationale, ops, (), rank)


def from_refusal(evidence: Evidence) -> list[Candidate]:
    """The refusal's stated requirement, as a precondition; a stated count of an item the
    operator already spends is also tried as the new amount spent (a recipe that needs more),
    first when the operator spends it, second otherwise (a tool it must carry)."""
    op = evidence.failure.operator
    reading = evidence.refusal
    out: list[Candidate] = []
    if reading.impossible:
        return [demotion(op, f"the world says: {evidence.failure.reason}", rank=0)]
    if not reading.needs:
        return out
    schema, kept = specialize(op)
    required = schema
    for cond in reading.needs:
        required = replace(required, preconditions=with_condition(required.preconditions, cond))
    stated = ", ".join(map(str, reading.needs))
    spends = {e.arg: e.delta for e in schema.effects
              if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta < 0}
    consumed = required
    for cond in reading.needs:
        if isinstance(cond, CountAtLeast) and cond.fluent == INVENTORY:
            consumed = replace(consumed, effects=with_count(consumed.effects, INVENTORY,
                                                            cond.arg, -cond.value))
    counts = [c for c in reading.needs if isinstance(c, CountAtLeast)]
    spends_stated = any(c.arg in spends for c in counts)
    out.append(_pair(evidence, required, kept, "require", f"the refusal states {stated}",
                     rank=1 if spends_stated else 0))
    if counts and consumed != required:
        out.append(_pair(evidence, consumed, kept, "consume",
                         f"the refusal states {stated}, and the operator spends it",
                         rank=0 if spends_stated else 1))
    return out


AMOUNT_STEPS = (1, 2)
"""How much more of an input a refusal that says nothing may mean: one more, two more."""


def silent_amounts(evidence: Evidence) -> list[Candidate]:
    """A refusal that says nothing (a silent environment, or a reason that cannot be read)
    of an operator that spends items: each item it spends may now be needed, and spent, in a
    larger amount (a recipe or a trade that asks more). One hypothesis per item and amount,
    the smallest rises first; execution tells which holds."""
    failure, reading = evidence.failure, evidence.refusal
    if failure.kind != "refused" or reading.needs or reading.impossible:
        return []
    schema, kept = specialize(failure.operator)
    spends = {e.arg: -e.delta for e in schema.effects
              if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta < 0}
    needed = {c.arg: c.value for c in schema.preconditions
              if isinstance(c, CountAtLeast) and c.fluent == INVENTORY}
    out: list[Candidate] = []
    for step in AMOUNT_STEPS:
        for item, spent in sorted(spends.items()):
            amount = max(spent, needed.get(item, 0)) + step
            cond = CountAtLeast(INVENTORY, item, amount)
            more = replace(schema, preconditions=with_condition(schema.preconditions, cond),
                           effects=with_count(schema.effects, INVENTORY, item, -amount))
            out.append(_pair(evidence, more, kept, "consume",
                             f"refused without a reason: it may need, and spend, {amount} "
                             f"{item}", rank=3))
    return out


def inventory_items(kb: KnowledgeBase) -> list[str]:
    """The items the knowledge base's operators count in the inventory, sorted."""
    return sorted({x.arg for e in kb for x in (*e.operator.preconditions, *e.operator.effects)
                   if isinstance(x, (CountAtLeast, CountChange)) and x.fluent == INVENTORY
                   and not x.arg.startswith("?")})


def silent_substitutes(evidence: Evidence, kb: KnowledgeBase) -> list[Candidate]:
    """A refusal that says nothing of an operator that spends items: it may now ask for
    another item the agent knows in place of one it spends (a trader who wants something
    else), one of it. After `silent_amounts` (rank 4): a new price is a wider guess than a
    higher one."""
    failure, reading = evidence.failure, evidence.refusal
    if failure.kind != "refused" or reading.needs or reading.impossible:
        return []
    schema, kept = specialize(failure.operator)
    spends = sorted(e.arg for e in schema.effects
                    if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta < 0)
    gains = {e.arg for e in schema.effects
             if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta > 0}
    out: list[Candidate] = []
    for old in spends:
        pre = tuple(c for c in schema.preconditions if not (
            isinstance(c, CountAtLeast) and (c.fluent, c.arg) == (INVENTORY, old)))
        for new in inventory_items(kb):
            if new in gains or new in spends:
                continue
            effects = with_count(with_count(schema.effects, INVENTORY, old, 0), INVENTORY,
                                 new, -1)
            other = replace(schema, preconditions=with_condition(
                pre, CountAtLeast(INVENTORY, new, 1)), effects=effects)
            out.append(_pair(evidence, other, kept, "consume",
                             f"refused without a reason: it may take one {new} in place of "
                             f"{old}", rank=4))
    return out


def from_observation(evidence: Evidence) -> list[Candidate]:
    """The observed change as the operator's count effects, with what it spent required; when
    it changed nothing at all, the same action repeated (if the schema can say so)."""
    failure = evidence.failure
    if failure.kind == "refused" or failure.before is None or failure.after is None:
        return []
    op = failure.operator
    schema, kept = specialize(op)
    observed = evidence.observed
    out: list[Candidate] = []
    if observed:
        effects: tuple[Effect, ...] = tuple(e for e in schema.effects
                                            if not isinstance(e, CountChange))
        pre = tuple(schema.preconditions)
        for (fluent, name), delta in sorted(observed.items()):
            effects = with_count(effects, fluent, name, delta)
            if fluent == INVENTORY and delta < 0:
                pre = with_condition(pre, CountAtLeast(INVENTORY, name, -delta))
        effects = _observed_facts(effects, failure.after, failure.before)
        fixed = replace(schema, preconditions=pre, effects=effects)
        if fixed != schema:
            out.append(_pair(evidence, fixed, kept, "effects",
                             f"declared {_fmt(evidence.declared)}, observed {_fmt(observed)}",
                             rank=0))
    elif hasattr(schema, "repeat") and failure.before == failure.after:
        for n in REPEATS:
            out.append(_pair(evidence, replace(schema, repeat=n, cost=schema.cost * n),
                             kept, "repeat", f"{op} ran and changed nothing: it may need "
                             f"{n} tries", rank=2 + n))
    return out


def _observed_facts(effects: tuple[Effect, ...], after: object, before: object
                    ) -> tuple[Effect, ...]:
    """Drop the declared facing/holding additions that did not happen: what the agent faces
    or holds after is observed, not promised."""
    facing = getattr(after, "facing", -1)
    names = getattr(after, "names", ())
    holding = getattr(after, "holding", -1)
    out: list[Effect] = []
    for e in effects:
        if isinstance(e, SetFact) and e.value and e.predicate in (FACING, HOLDING):
            now = facing if e.predicate == FACING else holding
            if not (0 <= now < len(names)) or names[now] != e.args[0]:
                continue
        out.append(e)
    return tuple(out)


def substituted_outputs(evidence: Evidence, kb: KnowledgeBase,
                        fixed: Sequence[Candidate]) -> list[Candidate]:
    """The operator gave a new thing where it declared a known one (a pine now gives timber,
    not logs): the new thing in the old one's role, in every active operator that requires or
    spends the old one, on top of the observed-effects repair."""
    observed, declared = evidence.observed, evidence.declared
    lost = [n for (f, n), d in declared.items()
            if f == INVENTORY and d > 0 and observed.get((f, n), 0) <= 0]
    got = [n for (f, n), d in observed.items()
           if f == INVENTORY and d > 0 and (f, n) not in declared]
    base = next((c for c in fixed if c.kind == "effects"), None)
    out: list[Candidate] = []
    for old in lost:
        for new in got:
            users = tuple(rename_type(op, old, new) for op in kb.active
                          if op.name != evidence.failure.operator.name and old in {
                              c.arg for c in op.preconditions if isinstance(c, CountAtLeast)})
            if users and base is not None:
                out.append(Candidate("role", f"'{new}' in the role of '{old}': the operator "
                                     f"gave {new} where it declared {old}",
                                     (*base.operators, *users), (), rank=1))
    return out


def demotion(op: GroundOperator, rationale: str, rank: int = 9) -> Candidate:
    """Stop planning with the operator (for a lifted one: for this binding)."""
    schema, kept = specialize(op)
    if kept is None:
        return Candidate("demote", rationale, (), (schema.name,), rank)
    return Candidate("demote", rationale, (kept,), (), rank)


def role_substitutes(evidence: Evidence, kb: KnowledgeBase,
                     parents: Mapping[str, Collection[str]]) -> list[Candidate]:
    """A new type playing an absent type's role: every active operator that names the absent
    type, copied with the new type in its place. Tried for types of a shared category in
    `parents`; a new type `parents` does not list is of unknown category (the closed regime
    knows only the knowledge base's hierarchy) and may play any role, which verification
    then tests."""
    out: list[Candidate] = []
    for old in evidence.absent_types:
        for new in evidence.new_types:
            if new in parents and not set(parents.get(old, ())) & set(parents[new]):
                continue
            copies = tuple(rename_type(op, old, new) for op in kb.active
                           if old in mentioned_names(op))
            if copies:
                out.append(Candidate("role", f"new type '{new}' in the role of absent "
                                     f"'{old}'", copies, (), rank=5))
    return out


def rename_type(op: OperatorSchema, old: str, new: str) -> OperatorSchema:
    def sub(a: str) -> str:
        return new if a == old else a

    pre: list[Condition] = []
    for c in op.preconditions:
        if isinstance(c, Fact):
            pre.append(Fact(c.predicate, tuple(map(sub, c.args)), c.negated))
        elif isinstance(c, CountAtLeast):
            pre.append(CountAtLeast(c.fluent, sub(c.arg), c.value))
        else:
            pre.append(c)
    effects = [_map_effect(e, sub) for e in op.effects]
    name = re.sub(rf"(^|_){re.escape(old)}(_|$)", rf"\g<1>{new}\g<2>", op.name)
    name = name if name != op.name else f"{op.name}_as_{new}"
    return replace(op, name=name, preconditions=tuple(pre), effects=tuple(effects),
                   action=re.sub(rf"(^|_){re.escape(old)}(_|$)", rf"\g<1>{new}\g<2>",
                                 op.action),
                   provenance=f"{op.provenance}; '{new}' in the role of '{old}'")


def _fmt(change: Change) -> str:
    return ", ".join(f"{f}({n}) {d:+d}" for (f, n), d in sorted(change.items())) or "nothing"


def candidates(evidence: Evidence, kb: KnowledgeBase,
               parents: Mapping[str, Collection[str]] | None = None) -> list[Candidate]:
    """Every candidate repair of the failure, best first. None for a learned operator (a
    policy): its semantics are what the policy does, which fine-tuning adjusts."""
    if evidence.failure.operator.schema.action.startswith("policy:"):
        return []
    observed = from_observation(evidence)
    out = [*from_refusal(evidence), *observed, *substituted_outputs(evidence, kb, observed),
           *silent_amounts(evidence), *silent_substitutes(evidence, kb)]
    if parents is not None:
        out += role_substitutes(evidence, kb, parents)
    op = evidence.failure.operator
    if not any(c.kind == "demote" for c in out):
        out.append(demotion(op, f"{op} failed ({evidence.failure.kind}) and no repair of it "
                            "verified"))
    return sorted(out, key=lambda c: c.rank)
