"""A JSON-able overview of a unified-planning problem: its requirements, types, predicates,
functions, actions, objects and counts.

Why apart from the reader (reader.py): it reads any UP problem, whichever reader or writer
made it, so two problems can be compared field by field (`nesyworld parse --json`, the PDDL
round-trip and fuzz tests in tests/symbolic and tests/fuzz).
"""

from __future__ import annotations

from typing import Any

import unified_planning.model as upm

__all__ = ["requirements", "summarize", "type_name"]


def objects_in(node: upm.FNode, out: dict[str, upm.Object]) -> None:
    if node.is_object_exp():
        out[node.object().name] = node.object()
    for arg in node.args:
        objects_in(arg, out)


def parameters(params: Any) -> list[dict[str, str]]:
    return [{"name": p.name, "type": type_name(p.type)} for p in params]


def type_name(t: Any) -> str:
    """A type as PDDL spells it: the user type's own name (not UP's "a - b"), or number."""
    if t.is_user_type():
        return str(t.name)
    return "number" if t.is_real_type() or t.is_int_type() else str(t)


def requirements(kind: Any) -> list[str]:
    """The PDDL requirements that ``kind`` needs, as UP's PDDLWriter would declare them."""
    checks = [
        (":typing", kind.has_flat_typing() or kind.has_hierarchical_typing()),
        (":negative-preconditions", kind.has_negative_conditions()),
        (":disjunctive-preconditions", kind.has_disjunctive_conditions()),
        (":equality", kind.has_equalities()),
        (":numeric-fluents", kind.has_int_fluents() or kind.has_real_fluents()),
        (":conditional-effects", kind.has_conditional_effects()),
        (":existential-preconditions", kind.has_existential_conditions()),
        (":universal-preconditions", kind.has_universal_conditions()),
        (":action-costs", kind.has_actions_cost() or kind.has_plan_length()),
    ]
    return [":strips"] + [name for name, needed in checks if needed]


def summarize(problem: upm.Problem) -> dict[str, Any]:
    """A JSON-able overview of a problem, for ``nesyworld parse --json`` and for comparisons.

    Everything is derived from the UP problem alone, so problems from any reader compare:
    requirements come from ``problem.kind``; "constants" are the objects the actions mention
    (what PDDLWriter would put in ``:constants``); "objects" are the others.
    """
    constants: dict[str, upm.Object] = {}
    for action in problem.actions:
        assert isinstance(action, upm.InstantaneousAction)
        for pre in action.preconditions:
            objects_in(pre, constants)
        for eff in action.effects:
            for node in (eff.fluent, eff.value, eff.condition):
                objects_in(node, constants)
    fluents = problem.fluents
    summary: dict[str, Any] = {
        "name": problem.name,
        "requirements": requirements(problem.kind),
        "kind": sorted(problem.kind.features),
        "types": [
            {"name": type_name(t), "parent": type_name(t.father) if t.father else None}
            for t in problem.user_types  # all user types: they have a father
        ],
        "predicates": [
            {"name": f.name, "parameters": parameters(f.signature)}
            for f in fluents
            if f.type.is_bool_type()
        ],
        "functions": [
            {"name": f.name, "parameters": parameters(f.signature)}
            for f in fluents
            if not f.type.is_bool_type()
        ],
        "actions": [
            {"name": a.name, "arity": len(a.parameters), "parameters": parameters(a.parameters)}
            for a in problem.actions
        ],
        "constants": [
            {"name": n, "type": type_name(o.type)} for n, o in sorted(constants.items())
        ],
        "objects": [
            {"name": o.name, "type": type_name(o.type)}
            for o in problem.all_objects
            if o.name not in constants
        ],
        "init": len(problem.explicit_initial_values),
        "goal": " and ".join(str(g) for g in problem.goals),
        "metrics": [str(m) for m in problem.quality_metrics],
    }
    summary["counts"] = {
        key: len(summary[key])
        for key in ("types", "predicates", "functions", "actions", "constants", "objects")
    } | {"init": summary["init"], "goals": len(problem.goals)}
    return summary
