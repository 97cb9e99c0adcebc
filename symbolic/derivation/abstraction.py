"""The one abstraction from simulator states to symbolic states.

The planner's initial state, the executor's effect monitor and the recovery learner's reward all
call `abstract`, so they cannot drift apart (a flaw of the reference implementations). It reads
the world's arrays directly and builds a small hashable value, cheap enough to call after every
operator and usable as a cache key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nesyworld.symbolic.derivation.map_facts import map_facts
from nesyworld.world import World
from nesyworld.world.actions.schema import (
    AIR,
    FACING,
    HOLDING,
    INVENTORY,
    WORLD,
    CountAtLeast,
    CountChange,
    Distinct,
    Fact,
    SetFact,
)


@dataclass(frozen=True)
class SymbolicState:
    """Facts and counts over entity types, as NovelGym lifts them.

    `world` and `inventory` hold one count per concrete type (in `names` order); `props` holds
    the (property, type) pairs that are true for some entity of that type.
    """

    names: tuple[str, ...] = field(compare=False, hash=False, repr=False)
    facing: int
    holding: int
    world: tuple[int, ...]
    inventory: tuple[int, ...]
    props: frozenset[tuple[str, int]] = frozenset()

    # -- reading ---------------------------------------------------------------------------
    def index(self, name: str) -> int:
        return self.names.index(name)

    def count(self, fluent: str, name: str) -> int:
        """The count of a type; 0 for a type this state does not have (a novelty removed
        it), which is what the world would show."""
        values = self.world if fluent == WORLD else self.inventory
        try:
            return values[self.names.index(name)]
        except ValueError:
            return 0

    def carries(self, items: Mapping[str, int]) -> bool:
        """At least each count of `items` in the inventory (a task's goal, say)."""
        return all(self.count(INVENTORY, n) >= k for n, k in items.items())

    def holds(self, fact: Fact) -> bool:
        """A ground fact (no variables) is true here (false of a type it does not have)."""
        (arg,) = fact.args
        if fact.predicate == FACING:
            value = 0 <= self.facing < len(self.names) and self.names[self.facing] == arg
        elif fact.predicate == HOLDING:
            value = 0 <= self.holding < len(self.names) and self.names[self.holding] == arg
        else:
            value = arg in self.names and (fact.predicate, self.names.index(arg)) in self.props
        return value != fact.negated

    def satisfies(self, conditions: Any, binding: dict[str, str] | None = None) -> bool:
        """Do ground (or bound) preconditions hold here?"""
        b = binding or {}
        return all(self._condition(cond, b) for cond in conditions)

    def _condition(self, cond: Any, b: dict[str, str]) -> bool:
        if isinstance(cond, Fact):
            return self.holds(
                Fact(cond.predicate, tuple(b.get(a, a) for a in cond.args), cond.negated)
            )
        if isinstance(cond, CountAtLeast):
            return self.count(cond.fluent, b.get(cond.arg, cond.arg)) >= cond.value
        if isinstance(cond, Distinct):
            return b.get(cond.left, cond.left) != b.get(cond.right, cond.right)
        raise TypeError(f"unknown condition {cond!r}")

    def facts(self) -> list[str]:
        """Human-readable facts, e.g. for the `facts` observation or an explanation."""
        out = [f"{FACING}({self.names[self.facing]})", f"{HOLDING}({self.names[self.holding]})"]
        out += sorted(f"{p}({self.names[t]})" for p, t in self.props)
        out += [
            f"{WORLD}({n})={v}"
            for n, v in zip(self.names, self.world, strict=True)
            if v and n != AIR
        ]
        out += [
            f"{INVENTORY}({n})={v}" for n, v in zip(self.names, self.inventory, strict=True) if v
        ]
        return out

    def diff(self, before: SymbolicState, include_air: bool = False) -> list[str]:
        """What changed since `before`, in the fact vocabulary (air counts only on request:
        they change with almost everything)."""

        def name(i: int) -> str:  # -1: a declared effect deleted the only facing/holding fact
            return self.names[i] if 0 <= i < len(self.names) else "(nothing)"

        out = []
        if self.facing != before.facing:
            out.append(f"{FACING}: {name(before.facing)} -> {name(self.facing)}")
        if self.holding != before.holding:
            out.append(f"{HOLDING}: {name(before.holding)} -> {name(self.holding)}")
        for fluent, new, old in (
            (WORLD, self.world, before.world),
            (INVENTORY, self.inventory, before.inventory),
        ):
            for i, (a, b) in enumerate(zip(new, old, strict=True)):
                if a != b and (include_air or self.names[i] != AIR):
                    out.append(f"{fluent}({self.names[i]}): {b} -> {a}")
        for p, t in sorted(self.props - before.props):
            out.append(f"{p}({name(t)}) became true")
        for p, t in sorted(before.props - self.props):
            out.append(f"{p}({name(t)}) became false")
        return out

    # -- applying declared effects ------------------------------------------------------------
    def apply(self, effects: Any, binding: dict[str, str] | None = None) -> SymbolicState:
        """The state the declared effects promise (deletes before adds, as in PDDL)."""
        b = binding or {}
        facing, holding = self.facing, self.holding
        world, inv = list(self.world), list(self.inventory)
        props = set(self.props)
        for positive in (False, True):
            for eff in effects:
                if isinstance(eff, SetFact) and eff.value is positive and (
                        not eff.when or self.satisfies(eff.when, b)):  # judged before
                    t = self.names.index(b.get(eff.args[0], eff.args[0]))
                    if eff.predicate == FACING:
                        facing = t if positive else (facing if facing != t else -1)
                    elif eff.predicate == HOLDING:
                        holding = t if positive else (holding if holding != t else -1)
                    elif positive:
                        props.add((eff.predicate, t))
                    else:
                        props.discard((eff.predicate, t))
        for eff in effects:
            if isinstance(eff, CountChange):
                t = self.names.index(b.get(eff.arg, eff.arg))
                (world if eff.fluent == WORLD else inv)[t] += eff.delta
        return SymbolicState(
            self.names, facing, holding, tuple(world), tuple(inv), frozenset(props)
        )


def abstract(world: World, agent: int | None = None) -> SymbolicState:
    """The symbolic state of `agent` (the main agent by default) in `world`."""
    a = world.main if agent is None else agent
    st = world.state
    names = world.types.names
    # the floor under each agent (air, a door) is still on the map: count it too
    counts = np.bincount(st.grid.ravel(), minlength=len(names)) + np.bincount(
        st.under, minlength=len(names))
    props: frozenset[tuple[str, int]] = frozenset()
    if st.props:
        props = frozenset(
            (p, int(st.grid[cell]))
            for cell, values in st.props.items()
            for p, v in values.items()
            if v is True
        )
    far = _lookaheads(world)
    if far:
        props = props | _facing_far(world, a, far)
    found = map_facts(world, a)
    if found:
        props = props | found
    return SymbolicState(
        names,
        world.front_type(a),
        int(st.selected[a]),
        tuple(counts.tolist()),
        tuple(st.inventory[a].tolist()),
        props,
    )


def _lookaheads(world: World) -> tuple[int, ...]:
    """Distances beyond 1 at which some action needs its partner (the Distance novelty):
    only then does the abstraction carry `facing_<d>(t)` facts, so worlds without such
    actions keep exactly the facts their operators talk about."""
    cached = world.__dict__.get("_symbolic_lookaheads")
    if cached is None:
        cached = tuple(sorted({int(getattr(a, "distance", 1)) for a in world.actions.values()}
                              - {1}))
        world.__dict__["_symbolic_lookaheads"] = cached
    return cached


def _facing_far(world: World, agent: int, distances: tuple[int, ...]
                ) -> frozenset[tuple[str, int]]:
    """`facing_<d>(t)`: t is d cells ahead with only empty cells between."""
    st = world.state
    cell = world.front(agent)
    if cell is None:
        return frozenset()
    dr, dc = cell[0] - int(st.pos[agent, 0]), cell[1] - int(st.pos[agent, 1])
    h, w = st.grid.shape
    out = set()
    for d in range(2, max(distances) + 1):
        if st.grid[cell] != 0:
            break
        cell = (cell[0] + dr, cell[1] + dc)
        if not (0 <= cell[0] < h and 0 <= cell[1] < w):
            break
        if d in distances:
            out.add((f"{FACING}_{d}", int(st.grid[cell])))
    return frozenset(out)
