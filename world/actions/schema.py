"""What actions mean, as data: the world's own small operator schema.

The world declares, for each action class, operators with parameters, preconditions and
effects over facts and counts. The symbolic layer translates this schema into PDDL without
importing any simulation code, and the domain check compares it against the simulator.

Vocabulary (all lifted to entity *types*, as in NovelGym):
- facts: ``facing(t)`` the agent faces a thing of type t (``air`` when nothing);
  ``holding(t)`` the selected item is t (``air`` when none); ``<property>(t)`` some entity of
  type t has that boolean property set (e.g. ``on_fire(crafting_table)``).
- counts: ``world(t)`` things of type t on the map (agents included);
  ``inventory(t)`` the acting agent's count of t.
Arguments are variables (``?x``) bound by the parameters, or type names used as constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Param:
    name: str  # "?x"
    type: str  # an entity type or category


@dataclass(frozen=True)
class Fact:
    """A boolean atom, optionally negated (negation only in preconditions)."""

    predicate: str
    args: tuple[str, ...]
    negated: bool = False

    def __str__(self) -> str:
        atom = f"{self.predicate}({', '.join(self.args)})"
        return f"not {atom}" if self.negated else atom


@dataclass(frozen=True)
class Distinct:
    """Two arguments must name different types."""

    left: str
    right: str


@dataclass(frozen=True)
class CountAtLeast:
    fluent: str  # "world" | "inventory"
    arg: str
    value: int

    def __str__(self) -> str:
        return f"{self.fluent}({self.arg}) >= {self.value}"


@dataclass(frozen=True)
class SetFact:
    predicate: str
    args: tuple[str, ...]
    value: bool

    def __str__(self) -> str:
        atom = f"{self.predicate}({', '.join(self.args)})"
        return atom if self.value else f"not {atom}"


@dataclass(frozen=True)
class CountChange:
    fluent: str
    arg: str
    delta: int

    def __str__(self) -> str:
        return f"{self.fluent}({self.arg}) {'+' if self.delta >= 0 else '-'}= {abs(self.delta)}"


Condition = Fact | Distinct | CountAtLeast
Effect = SetFact | CountChange


@dataclass(frozen=True)
class OperatorSchema:
    """One operator. `action` names the grounded env action that executes it.

    `action` may contain ``{?var}`` placeholders filled from the parameters, e.g.
    ``approach_{?to}``. `provenance` says which registry entry produced the operator.
    """

    name: str
    params: tuple[Param, ...]
    preconditions: tuple[Condition, ...]
    effects: tuple[Effect, ...]
    action: str
    provenance: str
    cost: float = 1.0
    macro: bool = False
    notes: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        params = " ".join(f"{p.name} - {p.type}" for p in self.params)
        pre = "; ".join(map(str, self.preconditions)) or "true"
        eff = "; ".join(map(str, self.effects))
        return f"{self.name}({params}) pre: {pre} eff: {eff}  [{self.provenance}]"


# Notes by which an operator declares what its schema cannot express, so that the domain check
# and the executor's monitor can tell a declared limitation from a wrong declaration:
# "may be refused: <text>" (a refusal whose reason contains <text>), "may have no effect".
REFUSAL_NOTE = "may be refused: "
NO_EFFECT_NOTE = "may have no effect"

# Fact and fluent names, so every layer spells them the same way.
FACING = "facing"
HOLDING = "holding"
WORLD = "world"
INVENTORY = "inventory"
AIR = "air"
