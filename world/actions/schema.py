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
    """A fact made true or false; with `when`, only if those facts hold before the operator
    (a conditional effect: what opening a door makes reachable depends on the map)."""

    predicate: str
    args: tuple[str, ...]
    value: bool
    when: tuple[Fact, ...] = ()

    def __str__(self) -> str:
        atom = f"{self.predicate}({', '.join(self.args)})"
        text = atom if self.value else f"not {atom}"
        return f"when {' and '.join(map(str, self.when))}: {text}" if self.when else text


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
    `repeat` > 1: the executor (hybrid/execution/skills.py) and the domain check run the
    action up to that many times, stopping early once the state shows a change (a block that
    takes three hits, damaged before, breaks sooner).
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
    # times the env action runs to bring the effects about (a block that takes several hits);
    # `cost` is the cost of all of them
    repeat: int = 1

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
# Facts the abstraction computes from the map and the schedule rather than from entity
# properties (symbolic/derivation/regions.py, abstraction.py):
# - `spawning(t)`: the cell in front holds what a pending `on_break` spawn of t waits for;
# - `behind_door(t)`: t is on the map but none of it can be walked to, and some of it could
#   if the map's closed doors were open;
# - `partly_behind_door(t)`: some t can be walked to only through a closed door;
# - `through_<door type>(t)`: opening any door of that type next to the agent's region (the
#   one an approach would reach) lets the agent walk to some t.
SPAWNING = "spawning"
BEHIND_DOOR = "behind_door"
PARTLY_BEHIND_DOOR = "partly_behind_door"
THROUGH_PREFIX = "through_"
# an operator that waits for the clock (a spawn): the domain check advances it after each run
WAITS_NOTE = "waits for the clock"
