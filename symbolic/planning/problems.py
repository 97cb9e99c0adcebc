"""Building unified-planning problems from a Derivation, in two forms of the same task.

- numeric: counts are integer fluents (`world`, `inventory`), for ENHSP and for reading beside
  the paper's domain;
- classical: each count that some precondition or goal compares becomes a ladder of facts
  `<fluent>_geq(item, nK)` ("at least K"), updated by conditional effects, for Fast Downward.

Ladders are capped at what the recipes and the goal can need (`count_caps`).
Soundness assumes that a count is only decreased by an operator that also requires it to be
high enough: consumption is guarded by `inventory(x) >= k`, and removing a thing from the map
by `world(x) >= 1` (the world's break and collect operators declare both). Above the cap a
count saturates, and a decrease from a saturated count assumes the least it could be, so every
classical plan is also a numeric plan (the encoding is sound); the cap is generous enough that
plans which do not hoard far beyond any need are kept too. Operators keep their names and
parameters in both forms, so a plan from one validates in the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from unified_planning.model import Fluent, FNode, InstantaneousAction, Object, Problem
from unified_planning.model.problem_kind import ProblemKind
from unified_planning.model.types import Type

from nesyworld.symbolic.derivation.derive import Derivation, count_thresholds
from nesyworld.symbolic.pddl.environment import shared_environment
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    WORLD,
    CountAtLeast,
    CountChange,
    Distinct,
    Fact,
    OperatorSchema,
    SetFact,
)

# The shared environment, whose planning engines (a second of imports) load only when a
# planner asks for them: deriving and grounding a task never does (symbolic/pddl/environment.py).
_ENV = shared_environment()
_ENV.credits_stream = None
_EM, _TM = _ENV.expression_manager, _ENV.type_manager
COUNT_FLUENTS = (WORLD, INVENTORY)
LEVEL_TYPE = "count_level"


class FinishedProblem(Problem):
    """A problem that nobody changes after it is built: its kind is worked out once.

    unified-planning recomputes `Problem.kind` (a walk over every action and effect) each time
    it is read, and one Fast Downward call reads it seven times: the engine's support check,
    the PDDL writer (twice each for the domain and the problem) and the plan reader. On
    pogostick a read takes about 23 ms, and a call took 11-16% less with one read
    (experiments/benchmarks/planning.py, its two `engine call` rows). The planner builds one
    of these for each engine call and drops it after (symbolic/planning/planners.py);
    `classical_problem` and `numeric_problem` return a plain `Problem` unless asked, since a
    caller may go on adding to it. A clone is a plain `Problem` (unified-planning's `clone`
    builds one)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._finished_kind: ProblemKind | None = None

    @property
    def kind(self) -> ProblemKind:
        if self._finished_kind is None:
            self._finished_kind = super().kind
        return self._finished_kind


@dataclass
class _Vocabulary:
    problem: Problem
    types: dict[str, Type]
    objects: dict[str, Object]
    facts: dict[str, Fluent]


def _base(d: Derivation, name: str, finished: bool) -> _Vocabulary:
    problem = FinishedProblem(name) if finished else Problem(name)
    types: dict[str, Type] = {}
    pending = list(d.types)
    while pending:  # parents before children, whatever order the spec listed them in
        ready = [n for n in pending if n.parent is None or n.parent in types]
        if not ready:
            raise ValueError(f"type hierarchy has no root for {[n.name for n in pending]}")
        for node in ready:
            types[node.name] = _TM.UserType(node.name, types[node.parent] if node.parent
                                           else None)
        pending = [n for n in pending if n.name not in types]
    objects = {}
    named = {a for op in d.operators for a in _names(op)}
    # objects the operators name first: they are the domain's constants when written
    for obj in sorted(d.objects, key=lambda o: o.name not in named):
        objects[obj.name] = Object(obj.name, types[obj.type])
        problem.add_object(objects[obj.name])
    root = next(types[n.name] for n in d.types if n.parent is None)
    for name in (*d.initial.names, *sorted(named)):
        if name not in objects:  # perceived or learned, but not in the registry's types
            objects[name] = Object(name, root)
            problem.add_object(objects[name])
    facts = {}
    for pred in fact_predicates(d):
        facts[pred] = Fluent(pred, _TM.BoolType(), x=root)
        problem.add_fluent(facts[pred], default_initial_value=False)
    init = d.initial
    problem.set_initial_value(facts[FACING](objects[init.names[init.facing]]), True)
    problem.set_initial_value(facts[HOLDING](objects[init.names[init.holding]]), True)
    for prop, t in sorted(init.props):
        if prop in facts:
            problem.set_initial_value(facts[prop](objects[init.names[t]]), True)
    return _Vocabulary(problem, types, objects, facts)


def fact_predicates(d: Derivation) -> list[str]:
    """The boolean predicates of both forms: facing, holding, the world's properties, and
    those only learned operators name (a property new since a novelty: on_fire)."""
    learned = sorted({p for op in d.operators for p in _predicates(op)}
                     - {FACING, HOLDING, *d.properties})
    return [FACING, HOLDING, *d.properties, *learned]


def _names(op: OperatorSchema) -> set[str]:
    out: set[str] = set()
    for item in (*op.preconditions, *op.effects):
        for attr in ("args", "arg", "left", "right"):
            value = getattr(item, attr, None)
            values = value if isinstance(value, tuple) else (value,)
            out |= {a for a in values if isinstance(a, str) and not a.startswith("?")}
    return out


def _predicates(op: OperatorSchema) -> set[str]:
    whens = [c for e in op.effects if isinstance(e, SetFact) for c in e.when]
    return {item.predicate for item in (*op.preconditions, *op.effects, *whens)
            if isinstance(item, (Fact, SetFact))}


def _root(d: Derivation, v: _Vocabulary) -> Type:
    return next(v.types[n.name] for n in d.types if n.parent is None)


def _params(action_name: str, op: OperatorSchema, v: _Vocabulary) -> InstantaneousAction:
    params = {p.name.lstrip("?"): v.types[p.type] for p in op.params}
    return InstantaneousAction(action_name, **params)


def _arg(action: InstantaneousAction, v: _Vocabulary, name: str) -> FNode | Object:
    if name.startswith("?"):
        return action.parameter(name.lstrip("?"))
    return v.objects[name]


def _fact_conditions(
    action: InstantaneousAction, op: OperatorSchema, v: _Vocabulary, counts: list[FNode]
) -> None:
    """Add the precondition (one conjunction, as a PDDL reader builds it, so a written and
    re-read problem is equal to this one) and the fact effects."""
    conditions = list(counts)
    for c in op.preconditions:
        if isinstance(c, Fact):
            atom = v.facts[c.predicate](*(_arg(action, v, a) for a in c.args))
            conditions.append(_EM.Not(atom) if c.negated else atom)
        elif isinstance(c, Distinct):
            conditions.append(_EM.Not(_EM.Equals(_arg(action, v, c.left),
                                               _arg(action, v, c.right))))
    if len(conditions) == 1:
        action.add_precondition(conditions[0])
    elif conditions:
        action.add_precondition(_EM.And(conditions))
    for positive in (False, True):
        for e in op.effects:
            if isinstance(e, SetFact) and e.value is positive:
                atom = v.facts[e.predicate](*(_arg(action, v, a) for a in e.args))
                if e.when:  # a conditional effect (what opening a door reaches)
                    action.add_effect(atom, positive, condition=_EM.And(
                        [_fact(action, v, c) for c in e.when]))
                else:
                    action.add_effect(atom, positive)


def _fact(action: InstantaneousAction, v: _Vocabulary, c: Fact) -> FNode:
    atom = v.facts[c.predicate](*(_arg(action, v, a) for a in c.args))
    return _EM.Not(atom) if c.negated else atom


def numeric_problem(d: Derivation, name: str | None = None, finished: bool = False) -> Problem:
    """The task with integer count fluents (the paper's form). `finished`: a FinishedProblem,
    for a caller that will not change it."""
    v = _base(d, name or d.name, finished)
    root = _root(d, v)
    counts = {f: Fluent(f, _TM.RealType(), x=root) for f in COUNT_FLUENTS}
    for f in counts.values():
        v.problem.add_fluent(f, default_initial_value=0)
    for fluent, values in ((WORLD, d.initial.world), (INVENTORY, d.initial.inventory)):
        for i, value in enumerate(values):
            if value:
                v.problem.set_initial_value(counts[fluent](v.objects[d.initial.names[i]]), value)
    for op in d.operators:
        action = _params(op.name, op, v)
        _fact_conditions(action, op, v, [
            _EM.GE(counts[c.fluent](_arg(action, v, c.arg)), c.value)
            for c in op.preconditions if isinstance(c, CountAtLeast)])
        for e in op.effects:
            if isinstance(e, CountChange):
                target = counts[e.fluent](_arg(action, v, e.arg))
                if e.delta > 0:
                    action.add_increase_effect(target, e.delta)
                else:
                    action.add_decrease_effect(target, -e.delta)
        v.problem.add_action(action)
    for item, n in sorted(d.goal.items()):
        v.problem.add_goal(_EM.GE(counts[INVENTORY](v.objects[item]), n))
    return v.problem


def count_caps(d: Derivation) -> dict[tuple[str, str], int]:
    """Ladder length for every count a precondition or the goal compares.

    Enough for the largest comparison, for the goal, and for every consumer of the item to be
    fed once, and never below the initial value (so initial counts are exact).
    """
    thresholds = count_thresholds(d.operators)
    for item, n in d.goal.items():
        key = (INVENTORY, item)
        thresholds[key] = max(thresholds.get(key, 0), n)
    consumption: dict[tuple[str, str], int] = {}
    for op in d.operators:
        for e in op.effects:
            if isinstance(e, CountChange) and e.delta < 0:
                key = (e.fluent, e.arg)
                consumption[key] = consumption.get(key, 0) - e.delta
    caps = {}
    for key, threshold in thresholds.items():
        fluent, item = key
        values = d.initial.world if fluent == WORLD else d.initial.inventory
        initial = values[d.initial.names.index(item)] if item in d.initial.names else 0
        caps[key] = max(
            initial,
            threshold + consumption.get(key, 0),
            threshold,
            d.goal.get(item, 0) if fluent == INVENTORY else 0,
        )
    return caps


def _rungs(d: Derivation, caps: Mapping[tuple[str, str], int]) -> list[tuple[str, str, int]]:
    """(fluent, item, K) for every "at least K" rung the initial state holds."""
    out = []
    for (fluent, item), cap in sorted(caps.items()):
        values = d.initial.world if fluent == WORLD else d.initial.inventory
        start = values[d.initial.names.index(item)] if item in d.initial.names else 0
        out += [(fluent, item, k) for k in range(1, min(start, cap) + 1)]
    return out


def classical_atoms(
    d: Derivation, caps: Mapping[tuple[str, str], int]
) -> tuple[list[tuple[str, tuple[str, ...]]], list[tuple[str, tuple[str, ...]]]]:
    """The true facts of the classical problem's initial state and its goal, as
    (predicate, argument names), without building the problem: what an engine that keeps a
    ground task needs to search from another state (symbolic/planning/in_process.py)."""
    init = d.initial
    atoms: list[tuple[str, tuple[str, ...]]] = [
        (FACING, (init.names[init.facing],)), (HOLDING, (init.names[init.holding],))]
    known = set(fact_predicates(d))
    atoms += [(prop, (init.names[t],)) for prop, t in sorted(init.props) if prop in known]
    atoms += [(f"{fluent}_geq", (item, f"n{k}")) for fluent, item, k in _rungs(d, caps)]
    goal: list[tuple[str, tuple[str, ...]]] = [
        (f"{INVENTORY}_geq", (item, f"n{n}")) for item, n in sorted(d.goal.items()) if n > 0]
    return atoms, goal


def classical_problem(
    d: Derivation, name: str | None = None, caps: Mapping[tuple[str, str], int] | None = None,
    finished: bool = False,
) -> Problem:
    """The same task with bounded counts compiled to facts, for classical planners.
    `finished`: a FinishedProblem, for a caller that will not change it."""
    v = _base(d, name or d.name, finished)
    caps = dict(caps if caps is not None else count_caps(d))
    top = max(caps.values(), default=1)
    level_type = _TM.UserType(LEVEL_TYPE)
    levels = [Object(f"n{k}", level_type) for k in range(1, top + 1)]
    v.problem.add_objects(levels)
    root = _root(d, v)
    ladders = {
        f: Fluent(f"{f}_geq", _TM.BoolType(), x=root, n=level_type)
        for f in COUNT_FLUENTS
        if any(k[0] == f for k in caps)
    }
    for f in ladders.values():
        v.problem.add_fluent(f, default_initial_value=False)
    for fluent, item, k in _rungs(d, caps):
        v.problem.set_initial_value(ladders[fluent](v.objects[item], levels[k - 1]), True)

    def geq(fluent: str, item: FNode | Object, k: int) -> FNode:
        return ladders[fluent](item, levels[k - 1])

    for op in d.operators:
        action = _params(op.name, op, v)
        _fact_conditions(action, op, v, [
            geq(c.fluent, _arg(action, v, c.arg), c.value)
            for c in op.preconditions if isinstance(c, CountAtLeast) and c.value > 0])
        for e in op.effects:
            if not isinstance(e, CountChange) or (e.fluent, e.arg) not in caps:
                continue  # a count nothing compares is irrelevant to planning
            cap, item, d_ = caps[(e.fluent, e.arg)], _arg(action, v, e.arg), e.delta
            for k in range(1, cap + 1):
                if d_ > 0:
                    if k <= d_:
                        action.add_effect(geq(e.fluent, item, k), True)
                    else:
                        action.add_effect(
                            geq(e.fluent, item, k), True, condition=geq(e.fluent, item, k - d_)
                        )
                elif k - d_ > cap:
                    action.add_effect(geq(e.fluent, item, k), False)
                else:
                    action.add_effect(geq(e.fluent, item, k), False,
                                      condition=_EM.Not(geq(e.fluent, item, k - d_)))
        v.problem.add_action(action)
    for item, n in sorted(d.goal.items()):
        if n > 0:  # "at least 0" holds always; the ladder has no rung 0
            v.problem.add_goal(geq(INVENTORY, v.objects[item], n))
    return v.problem
