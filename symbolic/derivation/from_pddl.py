"""A derivation read from a PDDL domain file instead of derived from a world's registries.

nesyworld derives its own worlds' domains (derive.py); an environment that is not nesyworld's
(MiniGrid, a user's Gymnasium env) comes with a domain written in the same vocabulary: types,
and constants for the concrete kinds of thing; `facing` and `holding` over them; boolean
properties; `world` and `inventory` counts. Its adapter's detector then reads each state into
that vocabulary (hybrid/adapters/). Everything downstream (the knowledge base, both planning
forms, the monitor, repair) sees an ordinary Derivation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import Derivation, ObjectNode, TypeNode
from nesyworld.symbolic.derivation.schema_io import schema_from_action
from nesyworld.symbolic.pddl.reader import read_pddl
from nesyworld.world.actions.schema import (
    AIR,
    FACING,
    HOLDING,
    CountAtLeast,
    CountChange,
    Distinct,
    Fact,
    OperatorSchema,
    SetFact,
)


def derivation_from_pddl(domain_text: str, file: str = "<domain>",
                         initial: SymbolicState | None = None,
                         goal: Mapping[str, int] | None = None,
                         actions: Mapping[str, str] | None = None) -> Derivation:
    """The domain's types, constants, properties and operators, from `initial` to `goal`;
    operators that count over a parameter are ground (`ground_counted`).

    `actions` maps an operator to the env action (or skill) that carries it out; an operator
    it does not name runs the env action of its own name. Without `initial`, the state is
    the empty one over the constants (facing and holding `air`, every count 0): an adapter's
    detector gives the real one. A located PDDLError when the text does not read, and an
    UnsupportedConstruct when an action is outside nesyworld's operator fragment."""
    problem = read_pddl(domain_text, None, domain_file=file)
    types = [TypeNode(t.name, t.father.name if t.father is not None else None,
                      f"{file}: type {t.name}") for t in problem.user_types]
    objects = [ObjectNode(o.name, o.type.name, f"{file}: constant {o.name}")
               for o in problem.all_objects]
    names = tuple(o.name for o in objects)
    properties = [f.name for f in problem.fluents
                  if f.type.is_bool_type() and f.name not in (FACING, HOLDING)]
    table = dict(actions or {})
    operators = [schema_from_action(a, f"{file}: action {a.name}", table.get(a.name, a.name))
                 for a in problem.actions]
    operators = [g for op in operators for g in ground_counted(op, types, objects)]
    if initial is None:
        air = names.index(AIR) if AIR in names else -1
        zeros = (0,) * len(names)
        initial = SymbolicState(names, air, air, zeros, zeros)
    return Derivation(problem.name, types, objects, properties, operators, initial,
                      dict(goal or {}), file)


def ground_counted(op: OperatorSchema, types: list[TypeNode], objects: list[ObjectNode]
                   ) -> list[OperatorSchema]:
    """`op`, or one operator per constant of each parameter that a count takes as its
    argument (`(>= (world ?x) 1)`), named `<op>_<constant>`: the classical form compiles each
    count of each item into its own ladder of facts (symbolic/planning/problems.py), so a
    count must name its item. Placeholders of the parameter in the env action are filled
    (`approach_{?x}` becomes `approach_yellow_key`)."""
    items = [*op.preconditions, *op.effects]
    counted = [p for p in op.params
               if any(getattr(i, "arg", None) == p.name for i in items
                      if isinstance(i, CountAtLeast | CountChange))]
    if not counted:
        return [op]
    param = counted[0]
    below = _subtypes(param.type, types)
    out: list[OperatorSchema] = []
    for obj in objects:
        if obj.type not in below:
            continue
        def sub(x: str, name: str = param.name, value: str = obj.name) -> str:
            return value if x == name else x
        ground = replace(
            op, name=f"{op.name}_{obj.name}",
            params=tuple(p for p in op.params if p.name != param.name),
            preconditions=tuple(_substitute(c, sub) for c in op.preconditions),
            effects=tuple(_substitute(e, sub) for e in op.effects),
            action=op.action.replace("{" + param.name + "}", obj.name))
        out += ground_counted(ground, types, objects)
    return out


def _subtypes(name: str, types: list[TypeNode]) -> set[str]:
    out = {name}
    grew = True
    while grew:
        more = {t.name for t in types if t.parent in out} - out
        grew = bool(more)
        out |= more
    return out


def _substitute(item: Any, sub: Any) -> Any:
    if isinstance(item, Fact):
        return replace(item, args=tuple(map(sub, item.args)))
    if isinstance(item, SetFact):
        return replace(item, args=tuple(map(sub, item.args)),
                       when=tuple(_substitute(w, sub) for w in item.when))
    if isinstance(item, CountAtLeast | CountChange):
        return replace(item, arg=sub(item.arg))
    if isinstance(item, Distinct):
        return replace(item, left=sub(item.left), right=sub(item.right))
    return item
