"""Relaxed reachability: what could ever become true from a state under a set of operators,
forgetting deletions, consumption, amounts and negated conditions.

Both dead-end tests (hybrid/recovery/starts.py for the closed regime,
hybrid/boundary/oracle_model.py for the oracle's) judge a start by it: a relaxation never
makes something reachable look unreachable, so a start is dropped only when it surely is a dead end.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import Any

from nesyworld.symbolic.derivation.abstraction import SymbolicState
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
from nesyworld.world.spec.model import WorldSpec


def relaxed_closure(operators: Iterable[Any], z: SymbolicState,
                    extra: list[tuple[set[Key], set[Key]]]) -> set[Key]:
    """What can become true from `z` under `operators` (and the `extra` rules of growth and
    spawns), relaxed as the module docstring says."""
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


def spawn_rules(spec: WorldSpec) -> list[tuple[set[Key], set[Key]]]:
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
