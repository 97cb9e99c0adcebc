"""What a failure tells about how an operator changed: the evidence model repair works from.

Three sources, each read without peeking at the world's post-novelty registries:
- the refusal's stated requirement: the world's actions refuse in a small vocabulary ("needs 2
  planks", "needs facing crafting_table", "needs axe selected", "while on_fire=True", "cannot
  be broken"); `read_refusal` turns a reason into conditions over the fact vocabulary, or says
  the action cannot do this at all;
- the observed against the declared change: the whole abstract change of the agent's own
  fluents (every inventory count, what it faces and holds) and of the counts the operator
  names, beside what the operator declares;
- what is new since the knowledge base was made: entity types and env actions.
A reason outside the vocabulary yields no requirement, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from nesyworld.hybrid.execution.monitor import (
    Change,
    OperatorFailure,
    declared_change,
    observed_change,
)
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    CountAtLeast,
    Fact,
)

_WORD = r"([A-Za-z_][\w-]*)"
_REQUIREMENTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"needs facing {_WORD}"), "facing"),
    (re.compile(rf"needs (\d+) {_WORD}"), "count"),
    (re.compile(rf"needs {_WORD} selected"), "holding"),
    (re.compile(rf"(?:while|when) {_WORD}=(\w+)"), "not_property"),
    (re.compile(rf"is not {_WORD}=(\w+)"), "property"),
    (re.compile(rf"^no {_WORD} in the inventory"), "have"),
)
_IMPOSSIBLE = re.compile(r"cannot be (?:broken|placed)|^nothing to \w+ from|^no reachable")
_TRUE = {"true", "True", "yes", "1"}


@dataclass(frozen=True)
class RefusalReading:
    """What a refusal says: conditions the action needs, or that it cannot do this."""

    needs: tuple[Fact | CountAtLeast, ...] = ()
    """In the refusals' vocabulary: facts and counts (never `Distinct`)."""
    impossible: bool = False

    @property
    def empty(self) -> bool:
        return not self.needs and not self.impossible


def read_refusal(reason: str, op: GroundOperator | None, types: Collection[str]
                 ) -> RefusalReading:
    """The conditions a refusal states, over types the world has. The subject of a property
    requirement is the thing the operator acts on (what it faces); without an operator (a
    trial of an action the agent has no model of) property requirements are not read."""
    if _IMPOSSIBLE.search(reason):
        return RefusalReading(impossible=True)
    subject = _faced(op) if op is not None else None
    needs: list[Fact | CountAtLeast] = []
    for pattern, kind in _REQUIREMENTS:
        for m in pattern.finditer(reason):
            cond = _condition(kind, m.groups(), subject, types)
            if cond is not None and cond not in needs:
                needs.append(cond)
    return RefusalReading(tuple(needs))


def _condition(kind: str, groups: tuple[str, ...], subject: str | None,
               types: Collection[str]) -> Fact | CountAtLeast | None:
    if kind == "count":
        k, item = int(groups[0]), groups[1]
        return CountAtLeast(INVENTORY, item, k) if item in types and k > 0 else None
    if kind == "have":
        return CountAtLeast(INVENTORY, groups[0], 1) if groups[0] in types else None
    if kind in ("facing", "holding"):
        return Fact(FACING if kind == "facing" else HOLDING, (groups[0],)) if (
            groups[0] in types) else None
    prop, value = groups
    if subject is None or value.lower() not in ("true", "false"):
        return None  # only boolean properties are facts of the vocabulary
    wanted = value in _TRUE if kind == "property" else value not in _TRUE
    return Fact(prop, (subject,), negated=not wanted)


def _faced(op: GroundOperator) -> str | None:
    b = op.binding
    for c in op.schema.preconditions:
        if isinstance(c, Fact) and c.predicate == FACING and not c.negated:
            return b.get(c.args[0], c.args[0])
    return None


@dataclass(frozen=True)
class Evidence:
    """Everything a failure says about its operator, gathered once."""

    failure: OperatorFailure
    refusal: RefusalReading
    observed: Change
    declared: Change
    new_types: tuple[str, ...] = ()
    new_actions: tuple[str, ...] = ()
    absent_types: tuple[str, ...] = field(default=())
    """Types the knowledge base relies on that the world no longer has at all."""

    def describe(self) -> str:
        parts = [f"{self.failure.kind} {self.failure.operator}"]
        if self.failure.reason:
            parts.append(f"reason '{self.failure.reason}'")
        if self.refusal.needs:
            parts.append("needs " + ", ".join(map(str, self.refusal.needs)))
        if self.refusal.impossible:
            parts.append("the action cannot do this")
        if self.failure.kind != "refused":
            parts.append("declared " + _fmt(self.declared) + "; observed " + _fmt(self.observed))
        if self.new_types:
            parts.append("new types " + ", ".join(self.new_types))
        if self.new_actions:
            parts.append("new actions " + ", ".join(self.new_actions))
        return "; ".join(parts)


def _fmt(change: Change) -> str:
    return ", ".join(f"{f}({n}) {d:+d}" for (f, n), d in sorted(change.items())) or "nothing"


def gather(failure: OperatorFailure, types: Collection[str], new_types: Collection[str] = (),
           new_actions: Collection[str] = (), absent_types: Collection[str] = ()) -> Evidence:
    """The evidence of one failure (types: the world's entity types now)."""
    op = failure.operator
    reading = (read_refusal(failure.reason, op, types) if failure.kind == "refused"
               else RefusalReading())
    observed: Change = {}
    if failure.before is not None and failure.after is not None:
        observed = observed_change(op, failure.before, failure.after)
    return Evidence(failure, reading, observed, declared_change(op), tuple(new_types),
                    tuple(new_actions), tuple(absent_types))
