"""PDDL text out: readable, deterministic, one operator per block, provenance in comments.

It writes any unified-planning Problem in the fragment nesyworld uses (typed STRIPS, negative
conditions, equality, numeric fluents, conditional effects), so derived, parsed and learned
operators are all written the same way. unified-planning's own writer renames symbols that
share a name and writes no comments, so it is not used for files meant to be read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from unified_planning.model import Effect, Fluent, FNode, Problem

from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.planning.problems import classical_problem, numeric_problem

Provenance = Mapping[str, str]


def _atom(node: FNode) -> str:
    if node.is_fluent_exp():
        args = " ".join(_expr(a) for a in node.args)
        return f"({node.fluent().name}{' ' + args if args else ''})"
    raise ValueError(f"not an atom: {node}")


def _expr(node: FNode) -> str:
    """A condition or numeric expression in PDDL syntax (UP stores a >= b as b <= a; we write
    it back with the fluent first, as people do)."""
    if node.is_fluent_exp():
        return _atom(node)
    if node.is_parameter_exp():
        return f"?{node.parameter().name}"
    if node.is_object_exp():
        return node.object().name
    if node.is_int_constant() or node.is_real_constant():
        value = node.constant_value()
        return str(int(value)) if float(value).is_integer() else str(float(value))
    if node.is_bool_constant():
        return "(and)" if node.bool_constant_value() else "(or)"
    if node.is_not():
        return f"(not {_expr(node.arg(0))})"
    if node.is_and():
        return "(and " + " ".join(_expr(a) for a in node.args) + ")"
    if node.is_or():
        return "(or " + " ".join(_expr(a) for a in node.args) + ")"
    if node.is_equals():
        return f"(= {_expr(node.arg(0))} {_expr(node.arg(1))})"
    if node.is_le() or node.is_lt():
        left, right = node.arg(0), node.arg(1)
        if (left.is_int_constant() or left.is_real_constant()) and not (
            right.is_int_constant() or right.is_real_constant()
        ):
            op = ">=" if node.is_le() else ">"
            return f"({op} {_expr(right)} {_expr(left)})"
        return f"({'<=' if node.is_le() else '<'} {_expr(left)} {_expr(right)})"
    for test, op in (
        (FNode.is_plus, "+"),
        (FNode.is_minus, "-"),
        (FNode.is_times, "*"),
        (FNode.is_div, "/"),
    ):
        if test(node):
            return f"({op} " + " ".join(_expr(a) for a in node.args) + ")"
    raise ValueError(f"cannot write expression {node} in PDDL")


def _conjuncts(node: FNode) -> list[FNode]:
    return list(node.args) if node.is_and() else [node]


def _effect(e: Effect) -> str:
    fluent, value = e.fluent, e.value
    if e.is_increase():
        body = f"(increase {_atom(fluent)} {_expr(value)})"
    elif e.is_decrease():
        body = f"(decrease {_atom(fluent)} {_expr(value)})"
    elif value.is_bool_constant():
        body = _atom(fluent) if value.bool_constant_value() else f"(not {_atom(fluent)})"
    else:
        body = f"(assign {_atom(fluent)} {_expr(value)})"
    if e.is_conditional():
        return f"(when {_expr(e.condition)} {body})"
    return body


def _requirements(problem: Problem) -> list[str]:
    kind = problem.kind
    req = [":strips"]
    if kind.has_hierarchical_typing() or kind.has_flat_typing():
        req.append(":typing")
    if kind.has_negative_conditions():
        req.append(":negative-preconditions")
    if kind.has_equalities():
        req.append(":equality")
    if kind.has_disjunctive_conditions():
        req.append(":disjunctive-preconditions")
    if kind.has_conditional_effects():
        req.append(":conditional-effects")
    if any(f.type.is_int_type() or f.type.is_real_type() for f in problem.fluents):
        req.append(":numeric-fluents")
    return req


def _constants(problem: Problem) -> list[str]:
    """Objects named inside actions must be domain constants."""
    used: set[str] = set()

    def visit(node: FNode) -> None:
        if node.is_object_exp():
            used.add(node.object().name)
        for a in node.args:
            visit(a)

    for action in problem.actions:
        for c in action.preconditions:
            visit(c)
        for e in action.effects:
            visit(e.fluent)
            visit(e.value)
            visit(e.condition)
    return [o.name for o in problem.all_objects if o.name in used]


def _comment(text: str | None) -> str:
    return f"  ; {text}" if text else ""


def write_domain(
    problem: Problem, provenance: Provenance | None = None, header: Iterable[str] = ()
) -> str:
    prov = provenance or {}
    lines = [f"; {h}" for h in header]
    lines.append(f"(define (domain {problem.name})")
    lines.append(f"  (:requirements {' '.join(_requirements(problem))})")
    lines.append("  (:types")
    for t in problem.user_types:
        father = t.father
        # a root must say "- object": PDDL typed lists run on, so a bare name would be read
        # as belonging to the next line's parent
        parent = f" - {father.name}" if father is not None else " - object"
        lines.append(f"    {t.name}{parent}{_comment(prov.get('type:' + t.name))}")
    lines.append("  )")
    constants = set(_constants(problem))
    if constants:
        lines.append("  (:constants")
        for o in problem.all_objects:
            if o.name in constants:
                lines.append(
                    f"    {o.name} - {o.type.name}"
                    f"{_comment(prov.get('object:' + o.name))}"
                )
        lines.append("  )")

    def signature(f: Fluent) -> str:
        params = " ".join(f"?{p.name} - {p.type.name}" for p in f.signature)
        return f"({f.name}{' ' + params if params else ''})"

    predicates = [f for f in problem.fluents if f.type.is_bool_type()]
    functions = [f for f in problem.fluents if not f.type.is_bool_type()]
    lines.append("  (:predicates " + " ".join(signature(f) for f in predicates) + ")")
    if functions:
        lines.append("  (:functions " + " ".join(signature(f) for f in functions) + ")")
    for action in problem.actions:
        lines.append("")
        if action.name in prov:
            lines.append(f"  ; {prov[action.name]}")
        params = " ".join(f"?{p.name} - {p.type.name}" for p in action.parameters)
        lines.append(f"  (:action {action.name}")
        lines.append(f"    :parameters ({params})")
        pre = [c for p in action.preconditions for c in _conjuncts(p)]
        lines.append("    :precondition (and" + "".join(f"\n      {_expr(c)}" for c in pre) + ")")
        lines.append(
            "    :effect (and" + "".join(f"\n      {_effect(e)}" for e in action.effects) + "))"
        )
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_problem(problem: Problem, header: Iterable[str] = ()) -> str:
    lines = [f"; {h}" for h in header]
    lines.append(f"(define (problem {problem.name}-problem)")
    lines.append(f"  (:domain {problem.name})")
    constants = set(_constants(problem))
    objects = [o for o in problem.all_objects if o.name not in constants]
    if objects:
        lines.append("  (:objects")
        lines += [f"    {o.name} - {o.type.name}" for o in objects]
        lines.append("  )")
    lines.append("  (:init")
    # every value, defaults included: an unlisted PDDL function is undefined, not 0, and
    # UP fills explicit_initial_values lazily, so only the full map gives stable text
    for fluent, value in problem.initial_values.items():
        if value.is_bool_constant():
            if value.bool_constant_value():
                lines.append(f"    {_atom(fluent)}")
        else:
            lines.append(f"    (= {_atom(fluent)} {_expr(value)})")
    lines.append("  )")
    goals = [g for goal in problem.goals for g in _conjuncts(goal)]
    lines.append("  (:goal (and" + "".join(f"\n    {_expr(g)}" for g in goals) + "))")
    lines.append(")")
    return "\n".join(lines) + "\n"


def derivation_provenance(d: Derivation) -> dict[str, str]:
    prov = {op.name: op.provenance + (f"; repeat {op.repeat}: its action runs {op.repeat} "
                                      f"times, cost {op.cost:g} in all" if op.repeat != 1 else "")
            for op in d.operators}
    for t in d.types:
        extra = f"; also a {', '.join(t.other_parents)}" if t.other_parents else ""
        prov["type:" + t.name] = t.provenance + extra
    for o in d.objects:
        extra = f"; also a {', '.join(o.other_parents)}" if o.other_parents else ""
        prov["object:" + o.name] = o.provenance + extra
    return prov


def _display_path(source: str) -> str:
    """Shipped specs by their path inside domains/, so the text is the same in every checkout."""
    from pathlib import Path

    from nesyworld.domains import DOMAINS_DIR

    try:
        return "domains/" + Path(source).resolve().relative_to(DOMAINS_DIR).as_posix()
    except ValueError:
        return source


def write_pddl(d: Derivation, classical: bool = False) -> tuple[str, str]:
    """Domain and problem text of a derivation, in the numeric or the classical form."""
    problem = classical_problem(d) if classical else numeric_problem(d)
    form = "classical (bounded counts as fact ladders)" if classical else "numeric"
    header = [
        f"nesyworld: '{d.name}' derived from {d.source}",
        f"form: {form}",
        "generated; edit freely and load it back with nesyworld parse",
    ]
    return write_domain(problem, derivation_provenance(d), header), write_problem(problem, header)
