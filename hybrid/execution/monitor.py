"""Execution monitoring: did an operator do what it declares?

Before an operator the executor records z0 = abstract(state); after it, the declared effects
must hold relative to z0. A count must change by at least the declared amount in the declared
direction (a recipe that yields more is fine, one that consumes more than declared is not),
and declared facts must be added and deleted. The whole change is watched too: an inventory
count the operator does not declare must not move (`undeclared`), so an operator that spent
another item than declared, or gained one it does not promise, is caught with the diff that
model repair reads. A refused action, an effect mismatch and an undeclared change all become
an `OperatorFailure`, which says in one line what went wrong.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.planning.planners import PlanStep
from nesyworld.world import Snapshot
from nesyworld.world.actions.schema import (
    AIR,
    FACING,
    HOLDING,
    INVENTORY,
    NO_EFFECT_NOTE,
    SPAWNING,
    WORLD,
    CountAtLeast,
    CountChange,
    Fact,
    OperatorSchema,
    SetFact,
)

FailureKind = Literal["refused", "effect_mismatch", "undeclared", "precondition"]


def check_effects(op: GroundOperator, z0: SymbolicState, z1: SymbolicState,
                  relevant: Collection[tuple[str, str]] | None = None
                  ) -> tuple[list[str], list[str]]:
    """The declared effects that do not hold in z1 (relative to z0), and what was observed
    instead; two empty lists when the operator did what it declares.

    With `relevant`, only those (fluent, item) counts are checked: a count that no
    precondition or goal compares (world(air), say, which a sapling growing elsewhere
    changes in the same step) cannot make a plan fail, so a change there is no failure.
    """
    b = op.binding
    expected: list[str] = []
    observed: list[str] = []
    added = {(e.predicate, tuple(b.get(a, a) for a in e.args)) for e in op.schema.effects
             if isinstance(e, SetFact) and e.value}
    for e in op.schema.effects:
        if isinstance(e, CountChange):
            item = b.get(e.arg, e.arg)
            if relevant is not None and (e.fluent, item) not in relevant:
                continue
            delta = z1.count(e.fluent, item) - z0.count(e.fluent, item)
            if delta < e.delta:
                sign = "+" if e.delta > 0 else ""
                expected.append(f"{e.fluent}({item}) {sign}{e.delta}")
                observed.append(f"{e.fluent}({item}) {delta:+d}")
        elif isinstance(e, SetFact):
            args = tuple(b.get(a, a) for a in e.args)
            if not e.value and (e.predicate, args) in added:
                continue  # deleted and added again (approaching what one already faces)
            if e.when:
                continue  # door bookkeeping (map_effects.py): a bound, checked by the approach
            holds = _holds(z1, e.predicate, args)
            if holds != e.value:
                atom = f"{e.predicate}({', '.join(args)})"
                expected.append(atom if e.value else f"not {atom}")
                observed.append(f"not {atom}" if e.value else atom)
    return expected, observed


def _holds(z: SymbolicState, predicate: str, args: tuple[str, ...]) -> bool:
    try:
        return z.holds(Fact(predicate, args))
    except ValueError:  # a type this world does not have
        return False


Change = dict[tuple[str, str], int]
"""(fluent, type) -> count delta."""


def observed_change(op: GroundOperator, z0: SymbolicState, z1: SymbolicState) -> Change:
    """The change the operator is accountable for: every inventory count of the agent, and
    the world counts of the types the operator names (other world counts move with NPCs,
    regrowth and other agents, which no operator of this agent declares)."""
    named = named_types(op)
    out: Change = {}
    for i, name in enumerate(z1.names):
        if name == AIR or i >= len(z0.names):
            continue
        d_inv = z1.inventory[i] - z0.inventory[i]
        if d_inv:
            out[(INVENTORY, name)] = d_inv
        d_world = z1.world[i] - z0.world[i]
        if d_world and name in named:
            out[(WORLD, name)] = d_world
    return out


def declared_change(op: GroundOperator) -> Change:
    b = op.binding
    out: Change = {}
    for e in op.schema.effects:
        if isinstance(e, CountChange):
            key = (e.fluent, b.get(e.arg, e.arg))
            out[key] = out.get(key, 0) + e.delta
    return out


def mentioned_names(schema: OperatorSchema, binding: Mapping[str, str] | None = None
                    ) -> set[str]:
    """Every name the operator's facts and counts mention, parameters replaced by `binding`
    where it binds them (a lifted operator keeps its "?x" parameters)."""
    b = binding or {}
    names: set[str] = set()
    for item in (*schema.preconditions, *schema.effects):
        if isinstance(item, (Fact, SetFact)):
            names.update(b.get(a, a) for a in item.args)
        elif isinstance(item, (CountAtLeast, CountChange)):
            names.add(b.get(item.arg, item.arg))
    return names


def named_types(op: GroundOperator) -> set[str]:
    """Every type the operator names (bound), air excluded."""
    return {n for n in mentioned_names(op.schema, op.binding)
            if not n.startswith("?") and n != AIR}


def undeclared(op: GroundOperator, z0: SymbolicState, z1: SymbolicState) -> list[str]:
    """Inventory changes the operator does not declare, as "inventory(x) +k" strings: the
    full-change half of the monitor (a changed declared count is judged by check_effects)."""
    declared = declared_change(op)
    return [f"{fluent}({name}) {delta:+d}"
            for (fluent, name), delta in sorted(observed_change(op, z0, z1).items())
            if fluent == INVENTORY and (fluent, name) not in declared]


@dataclass
class OperatorFailure:
    """An operator that did not do what it declares, with everything recovery needs."""

    operator: GroundOperator
    kind: FailureKind
    reason: str
    expected: list[str]
    observed: list[str]
    snapshot: Snapshot | None
    suffix: tuple[PlanStep, ...]
    step: int
    """World steps taken when the operator started: the frame of `snapshot`, where recovery
    restarts (docs/COUNTS.md)."""
    before: SymbolicState | None = field(default=None, repr=False)
    after: SymbolicState | None = field(default=None, repr=False)
    detected: int | None = None
    """World steps taken when the failure was seen: the world step whose action failed, and
    the frame that shows it (None: `step`, for failures found before acting)."""

    @property
    def world_step(self) -> int:
        """The world step a user is shown for this failure (docs/COUNTS.md)."""
        return self.step if self.detected is None else self.detected

    def __str__(self) -> str:
        head = f"world step {self.world_step}: {self.operator} "
        if self.kind == "refused":
            return head + (f"was refused: {self.reason}" if self.reason else "was refused")
        if self.kind == "precondition":
            return head + f"could not start: {self.reason}"
        if self.kind == "undeclared":
            return head + f"changed what it does not declare: {', '.join(self.observed)}"
        return head + (f"did not do what it declares: expected {', '.join(self.expected)}; "
                       f"observed {', '.join(self.observed)}")

    def to_dict(self) -> dict[str, object]:
        return {"operator": str(self.operator), "kind": self.kind, "reason": self.reason,
                "expected": self.expected, "observed": self.observed, "step": self.step,
                "world_step": self.world_step,
                "suffix": [str(s) for s in self.suffix], "explanation": str(self)}


def tolerated(op: GroundOperator, z0: SymbolicState, z1: SymbolicState,
              expected: Sequence[str] = ()) -> bool:
    """An outcome that is no failure of the operator:
    - no effect at all, from an operator that declares it may have none;
    - only what the agent faces or holds differs, while every count the operator promises
      did change: the block was mined into the inventory, but an NPC stepped into the
      cleared cell, so the agent faces it rather than air. The world moved, not the
      operator; the executor checks the next operator's preconditions and replans.
    """
    if NO_EFFECT_NOTE in op.schema.notes and z0 == z1:
        return True
    counts = [e for e in op.schema.effects if isinstance(e, CountChange)]
    # `spawning` is about the cell in front too: whatever stepped into it, no spawn waits there
    functional = (f"{FACING}(", f"not {FACING}(", f"{HOLDING}(", f"not {HOLDING}(",
                  f"{SPAWNING}(", f"not {SPAWNING}(")
    return bool(counts and expected) and all(x.startswith(functional) for x in expected)
