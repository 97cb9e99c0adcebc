"""Operator schemas to and from plain data, and from unified-planning actions.

The knowledge base saves operators as JSON, and loads operators from hand-edited PDDL: both
need to turn other representations back into the world's operator schema.
"""

from __future__ import annotations

from typing import Any

from unified_planning.model import FNode, InstantaneousAction

from nesyworld.world.actions.schema import (
    INVENTORY,
    WORLD,
    Condition,
    CountAtLeast,
    CountChange,
    Distinct,
    Effect,
    Fact,
    OperatorSchema,
    Param,
    SetFact,
)

_KINDS = {
    "fact": Fact,
    "distinct": Distinct,
    "at_least": CountAtLeast,
    "set": SetFact,
    "change": CountChange,
}


def item_to_dict(item: Condition | Effect) -> dict[str, Any]:
    kind = next(k for k, cls in _KINDS.items() if isinstance(item, cls))
    data = dict(item.__dict__)
    if "args" in data:
        data["args"] = list(data["args"])
    when = data.pop("when", None)
    if when:  # only conditional effects carry it, so older files read the same
        data["when"] = [item_to_dict(c) for c in when]
    return {"kind": kind, **data}


def item_from_dict(data: dict[str, Any]) -> Condition | Effect:
    data = dict(data)
    cls = _KINDS[data.pop("kind")]
    if "args" in data:
        data["args"] = tuple(data["args"])
    if "when" in data:
        data["when"] = tuple(item_from_dict(c) for c in data["when"])
    return cls(**data)


def schema_to_dict(op: OperatorSchema) -> dict[str, Any]:
    out = {
        "name": op.name,
        "params": [[p.name, p.type] for p in op.params],
        "preconditions": [item_to_dict(c) for c in op.preconditions],
        "effects": [item_to_dict(e) for e in op.effects],
        "action": op.action,
        "provenance": op.provenance,
        "cost": op.cost,
        "macro": op.macro,
        "notes": list(op.notes),
    }
    if op.repeat != 1:  # only then, so files of operators without repeats are unchanged
        out["repeat"] = op.repeat
    return out


def schema_from_dict(data: dict[str, Any]) -> OperatorSchema:
    return OperatorSchema(
        name=data["name"],
        params=tuple(Param(n, t) for n, t in data["params"]),
        preconditions=tuple(item_from_dict(c) for c in data["preconditions"]),  # type: ignore[misc]
        effects=tuple(item_from_dict(e) for e in data["effects"]),  # type: ignore[misc]
        action=data["action"],
        provenance=data["provenance"],
        cost=float(data.get("cost", 1.0)),
        macro=bool(data.get("macro", False)),
        notes=tuple(data.get("notes", ())),
        repeat=int(data.get("repeat", 1)),
    )


class UnsupportedConstruct(ValueError):
    """A PDDL construct the world's operator schema cannot express."""


def _name(node: FNode) -> str:
    if node.is_parameter_exp():
        return "?" + node.parameter().name
    if node.is_object_exp():
        return node.object().name
    raise UnsupportedConstruct(f"expected a parameter or an object, found {node}")


def _int(node: FNode) -> int:
    if not node.is_int_constant():
        raise UnsupportedConstruct(f"expected an integer constant, found {node}")
    return int(node.constant_value())


def _condition(node: FNode) -> list[Condition]:
    if node.is_and():
        return [c for a in node.args for c in _condition(a)]
    negated = node.is_not()
    inner = node.arg(0) if negated else node
    if inner.is_fluent_exp() and inner.fluent().type.is_bool_type():
        return [Fact(inner.fluent().name, tuple(_name(a) for a in inner.args), negated)]
    if negated and inner.is_equals():
        return [Distinct(_name(inner.arg(0)), _name(inner.arg(1)))]
    if not negated and inner.is_le():  # UP stores (>= f k) as (<= k f)
        k, f = inner.arg(0), inner.arg(1)
        if f.is_fluent_exp() and f.fluent().name in (WORLD, INVENTORY):
            return [CountAtLeast(f.fluent().name, _name(f.arg(0)), _int(k))]
    if not negated and inner.is_lt():  # (> f k) == (>= f k+1) on integers
        k, f = inner.arg(0), inner.arg(1)
        if f.is_fluent_exp() and f.fluent().name in (WORLD, INVENTORY):
            return [CountAtLeast(f.fluent().name, _name(f.arg(0)), _int(k) + 1)]
    raise UnsupportedConstruct(
        f"condition {node} is outside the operator schema "
        "(facts, negated facts, inequality of arguments, count >= k)"
    )


def schema_from_action(
    action: InstantaneousAction, provenance: str, env_action: str | None = None
) -> OperatorSchema:
    """An operator schema from a unified-planning action in nesyworld's fragment."""
    pre: list[Condition] = [c for p in action.preconditions for c in _condition(p)]
    eff: list[Effect] = []
    for e in action.effects:
        when: tuple[Fact, ...] = ()
        if e.is_conditional():
            conds = _condition(e.condition)
            if not all(isinstance(c, Fact) for c in conds) or not e.value.is_bool_constant():
                raise UnsupportedConstruct(
                    f"{action.name}: a conditional effect of the operator schema sets a fact "
                    f"when facts hold; found {e}"
                )
            when = tuple(c for c in conds if isinstance(c, Fact))  # all of them (above)
        f = e.fluent
        if e.is_increase() or e.is_decrease():
            delta = _int(e.value) * (1 if e.is_increase() else -1)
            eff.append(CountChange(f.fluent().name, _name(f.arg(0)), delta))
        elif e.value.is_bool_constant():
            eff.append(
                SetFact(
                    f.fluent().name, tuple(_name(a) for a in f.args), e.value.bool_constant_value(),
                    when,
                )
            )
        else:
            raise UnsupportedConstruct(f"{action.name}: effect {e} is outside the schema")
    params = tuple(Param("?" + p.name, p.type.name) for p in action.parameters)
    return OperatorSchema(
        action.name, params, tuple(pre), tuple(eff), env_action or action.name, provenance
    )
