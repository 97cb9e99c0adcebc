"""Deriving the planning problem from the world's registries, with no hand-written template.

The type hierarchy comes from the entity registry and the operators from each action class's
declared semantics (`Action.operators()`), so a new entity, recipe, trade or action in a spec
shows up here with no code change. What those effects mean for closed doors and pending
spawns is added to every operator alike (`map_effects.py`). The result is a `Derivation`:
plain data that the two problem builders (numeric and classical), the PDDL writer and the
knowledge base share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.derivation.map_effects import with_map_effects
from nesyworld.world import World, WorldSpec, load_spec
from nesyworld.world.actions.movement import ROOT_TYPE
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    CountAtLeast,
    Fact,
    OperatorSchema,
    SetFact,
)


class DerivationError(ValueError):
    """The registries describe something the symbolic view cannot express."""


@dataclass(frozen=True)
class TypeNode:
    """A planning type: a category of the entity registry, with its provenance."""

    name: str
    parent: str | None
    provenance: str
    other_parents: tuple[str, ...] = ()


@dataclass(frozen=True)
class ObjectNode:
    """A concrete entity type, which the lifted view treats as one object (NovelGym style)."""

    name: str
    type: str
    provenance: str
    other_parents: tuple[str, ...] = ()


@dataclass
class Derivation:
    """Everything needed to write and solve the task's planning problem."""

    name: str
    types: list[TypeNode]
    objects: list[ObjectNode]
    properties: list[str]
    operators: list[OperatorSchema]
    initial: SymbolicState
    goal: dict[str, int]
    source: str = ""
    notes: list[str] = field(default_factory=list)
    _key: int | None = field(default=None, repr=False, compare=False)

    def domain_key(self) -> int:
        """A hash of the operators, computed once: plan caches key on it. Derivations are
        copied (`with_operators`) rather than edited in place, which keeps it valid."""
        if self._key is None:
            self._key = hash(tuple(self.operators))
        return self._key

    def operator(self, name: str) -> OperatorSchema:
        for op in self.operators:
            if op.name == name:
                return op
        raise KeyError(f"no operator '{name}'")

    def with_state(self, state: SymbolicState, goal: Mapping[str, int] | None = None) -> Derivation:
        """The same domain from another state (for replanning mid-episode)."""
        return Derivation(
            self.name,
            self.types,
            self.objects,
            self.properties,
            self.operators,
            state,
            dict(goal if goal is not None else self.goal),
            self.source,
            self.notes,
            self._key,
        )

    def with_operators(self, operators: Iterable[OperatorSchema]) -> Derivation:
        return Derivation(
            self.name,
            self.types,
            self.objects,
            self.properties,
            list(operators),
            self.initial,
            self.goal,
            self.source,
            self.notes,
        )


def derive(
    source: World | WorldSpec | str | Path, seed: int = 0, agent: int | None = None
) -> Derivation:
    """Derive the planning problem of a world (its current state) or of a spec (its initial
    state under `seed`)."""
    world = (
        source
        if isinstance(source, World)
        else World(source if isinstance(source, WorldSpec) else load_spec(source), seed=seed)
    )
    spec = world.spec
    types, objects = _hierarchy(spec)
    operators = with_map_effects(
        spec, [op for action in world.actions.values() for op in action.operators()])
    return Derivation(
        name=spec.name,
        types=types,
        objects=objects,
        properties=_properties(spec, operators),
        operators=operators,
        initial=abstract(world, agent),
        goal=dict(spec.goal),
        source=spec.source,
    )


def _hierarchy(spec: WorldSpec) -> tuple[list[TypeNode], list[ObjectNode]]:
    """Categories become types and concrete entity types become objects. Planning types have
    one parent, so a type with several keeps its first and the rest are noted."""
    parents_of = {n: et.parents for n, et in spec.entity_types.items()}
    concrete = set(spec.concrete_types)
    used_as_parent = {p for ps in parents_of.values() for p in ps}
    for name in sorted(used_as_parent & concrete):
        raise DerivationError(
            f"entity type '{name}' is concrete but is also a parent of other types; the "
            "symbolic view needs parents to be categories (declare it with class: category)"
        )
    types: list[TypeNode] = []
    if ROOT_TYPE not in spec.entity_types:
        types.append(TypeNode(ROOT_TYPE, None, "implicit root type"))
    for name, et in spec.entity_types.items():
        if name in concrete:
            continue
        parent = et.parents[0] if et.parents else (None if name == ROOT_TYPE else ROOT_TYPE)
        types.append(
            TypeNode(name, parent, f"entity_types.{name} ({et.cls})", tuple(et.parents[1:]))
        )
    objects = [
        ObjectNode(
            name,
            spec.entity_types[name].parents[0] if spec.entity_types[name].parents else ROOT_TYPE,
            f"entity_types.{name} ({spec.entity_types[name].cls})",
            tuple(spec.entity_types[name].parents[1:]),
        )
        for name in spec.concrete_types
    ]
    return types, objects


def _properties(spec: WorldSpec, operators: list[OperatorSchema]) -> list[str]:
    """Boolean entity properties that operators mention become predicates."""
    names: list[str] = []
    for op in operators:
        whens = [c for e in op.effects for c in getattr(e, "when", ())]
        for item in (*op.preconditions, *op.effects, *whens):
            if isinstance(item, Fact | SetFact):
                pred = item.predicate
                if pred not in (FACING, HOLDING) and pred not in names:
                    names.append(pred)
    for et in spec.entity_types.values():
        for prop, value in et.properties.items():
            if isinstance(value, bool) and prop not in names:
                names.append(prop)
    return names


def count_thresholds(operators: Iterable[OperatorSchema]) -> dict[tuple[str, str], int]:
    """The largest count each (fluent, item) is compared against."""
    out: dict[tuple[str, str], int] = {}
    for op in operators:
        for c in op.preconditions:
            if isinstance(c, CountAtLeast):
                key = (c.fluent, c.arg)
                out[key] = max(out.get(key, 0), c.value)
    return out
