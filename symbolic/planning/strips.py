"""A classical task as plain STRIPS: numbered atoms and ground actions with conditional effects.

Why our own flat form: an in-process search engine wants integers, not unified-planning
expressions, and the task must be ground once and then searched many times from different
states (a recovery asks hundreds of questions of one domain). `ground` reads a unified-planning
problem into numbers and refuses what plain STRIPS cannot say (numbers, disjunctions,
quantifiers), so a caller can fall back to another engine.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from unified_planning.model import FNode, InstantaneousAction, Problem

Atom = tuple[str, tuple[str, ...]]
"""A ground fact: its predicate and its arguments' names, e.g. ("facing", ("air",))."""


class UnsupportedTask(ValueError):
    """The task needs more than STRIPS with negative conditions and conditional effects."""


class UnknownObjects(UnsupportedTask):
    """A state names objects the task was not ground with: its actions over them are missing,
    so a search of it could miss plans (the task must be ground again for that state)."""


@dataclass(frozen=True)
class Conditions:
    """Atoms that must hold and atoms that must not."""

    true: tuple[int, ...] = ()
    false: tuple[int, ...] = ()


@dataclass(frozen=True)
class GroundAction:
    """One ground action, named by its lifted action and the arguments it was ground with."""

    name: str
    args: tuple[str, ...]
    pre: Conditions
    add: tuple[int, ...]
    delete: tuple[int, ...]
    conditional: tuple[tuple[Conditions, int, bool], ...] = ()
    """(condition, atom, value): the atom is set to value when the condition holds."""


@dataclass
class StripsTask:
    """A ground task. `init` and `goal` are those of the problem it was ground from; a search
    may start from any other state written over the same atoms."""

    atoms: list[Atom]
    actions: list[GroundAction]
    init: frozenset[int]
    goal: Conditions
    index: dict[Atom, int] = field(default_factory=dict)
    objects: frozenset[str] | None = None
    """The objects it was ground with (None: not known, nothing is checked)."""

    def __post_init__(self) -> None:
        self.index = {a: i for i, a in enumerate(self.atoms)}

    def state(self, atoms: Iterable[Atom], goal: Iterable[Atom]) -> tuple[frozenset[int],
                                                                          Conditions] | None:
        """A state and a goal of other facts, as numbers; None if the goal cannot hold.

        The grounding is the same for every state (nothing was pruned by the first state's
        facts), so a fact no action reads or writes is irrelevant and dropped; a goal fact
        of that kind holds only if the state has it. That holds only over the objects the
        task was ground with: a fact of another object is refused (UnknownObjects), since
        the actions that read it were never ground."""
        true = set(atoms)
        init = frozenset(self.index[a] for a in true if a in self.index)
        wanted = []
        for a in goal:
            if a in self.index:
                wanted.append(self.index[a])
            elif a not in true:
                self._check_objects(a)
                return None
        for a in true:
            if a not in self.index:
                self._check_objects(a)
        return init, Conditions(tuple(sorted(set(wanted))), ())

    def _check_objects(self, atom: Atom) -> None:
        unknown = [o for o in atom[1] if self.objects is not None and o not in self.objects]
        if unknown:
            raise UnknownObjects(f"the state's fact {atom[0]}({', '.join(atom[1])}) names "
                                 f"{', '.join(unknown)}, which the task was not ground with")

    def relaxed_rules(self) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]:
        """The delete relaxation as rules (conditions, atoms added, action number): one per
        action for its adds, one per conditional add with the action's and the effect's
        conditions. Negative conditions are dropped: read as always satisfiable, they keep
        the relaxation from ever calling a solvable task unsolvable."""
        rules = [(a.pre.true, a.add, k) for k, a in enumerate(self.actions)]
        rules += [(tuple(sorted({*a.pre.true, *c.true})), (atom,), k)
                  for k, a in enumerate(self.actions) for c, atom, value in a.conditional
                  if value]
        return rules


Term = int | str
"""A parameter's position in the action's parameters, or an object's name."""
Literal = tuple[str, str, tuple[Term, ...]]
"""("pos" | "neg", predicate, terms) or ("eq" | "neq", "", (left, right))."""


class _Never(Exception):
    """A condition that cannot hold (false, or an equality of distinct objects)."""


def _terms(node: FNode, params: Mapping[str, int]) -> tuple[Term, ...]:
    out: list[Term] = []
    for a in node.args:
        if a.is_parameter_exp():
            out.append(params[a.parameter().name])
        elif a.is_object_exp():
            out.append(a.object().name)
        else:
            raise UnsupportedTask(f"'{a}' in '{node}' is neither an object nor a parameter")
    return tuple(out)


def _fact(node: FNode, params: Mapping[str, int]) -> tuple[str, tuple[Term, ...]]:
    if not node.is_fluent_exp() or not node.fluent().type.is_bool_type():
        raise UnsupportedTask(f"'{node}' is not a boolean fact")
    return node.fluent().name, _terms(node, params)


def _ground_fact(node: FNode) -> Atom:
    """A fact of the initial state: with no parameters to bind, its terms are objects' names."""
    name, terms = _fact(node, {})
    return name, tuple(str(t) for t in terms)


def _literals(node: FNode, params: Mapping[str, int], out: list[Literal]) -> None:
    """The literals of a conjunction, read once per action (bindings come later)."""
    if node.is_and():
        for part in node.args:
            _literals(part, params, out)
    elif node.is_bool_constant():
        if not node.bool_constant_value():
            raise _Never
    elif node.is_equals() or (node.is_not() and node.arg(0).is_equals()):
        equals = node if node.is_equals() else node.arg(0)
        out.append(("eq" if node.is_equals() else "neq", "", _terms(equals, params)))
    elif node.is_not():
        out.append(("neg", *_fact(node.arg(0), params)))
    else:
        out.append(("pos", *_fact(node, params)))


def _bind(terms: tuple[Term, ...], combo: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(combo[t] if isinstance(t, int) else t for t in terms)


class _Numbering(dict[Atom, int]):
    def __missing__(self, atom: Atom) -> int:
        self[atom] = len(self)
        return self[atom]

    def conditions(self, literals: list[Literal], combo: tuple[str, ...]) -> Conditions:
        true: set[int] = set()
        false: set[int] = set()
        for kind, pred, terms in literals:
            names = _bind(terms, combo)
            if kind == "pos":
                true.add(self[(pred, names)])
            elif kind == "neg":
                false.add(self[(pred, names)])
            elif (names[0] == names[1]) != (kind == "eq"):
                raise _Never
        return Conditions(tuple(sorted(true)), tuple(sorted(false)))


@dataclass
class _Template:
    """An action read once: its conditions and effects with parameters left as positions."""

    name: str
    pre: list[Literal]
    effects: list[tuple[list[Literal] | None, str, tuple[Term, ...], bool]]

    def ground(self, combo: tuple[str, ...], index: _Numbering) -> GroundAction | None:
        try:
            pre = index.conditions(self.pre, combo)
        except _Never:
            return None
        add: set[int] = set()
        delete: set[int] = set()
        conditional = []
        for condition, pred, terms, value in self.effects:
            atom = index[(pred, _bind(terms, combo))]
            if condition is None:
                (add if value else delete).add(atom)
                continue
            try:
                conditional.append((index.conditions(condition, combo), atom, value))
            except _Never:
                continue
        return GroundAction(self.name, combo, pre, tuple(sorted(add)),
                            tuple(sorted(delete - add)), tuple(conditional))


def _template(action: Any) -> _Template:
    if not isinstance(action, InstantaneousAction):
        raise UnsupportedTask(f"action '{action.name}' is not instantaneous")
    params = {p.name: i for i, p in enumerate(action.parameters)}
    pre: list[Literal] = []
    try:
        for node in action.preconditions:
            _literals(node, params, pre)
    except _Never:
        pre = [("eq", "", ("a", "b"))]  # never applicable
    effects: list[tuple[list[Literal] | None, str, tuple[Term, ...], bool]] = []
    for e in action.effects:
        if e.is_forall() or not e.value.is_bool_constant():
            raise UnsupportedTask(f"effect '{e}' of '{action.name}' does not set a truth value")
        condition: list[Literal] | None = None
        if e.is_conditional():
            condition = []
            try:
                _literals(e.condition, params, condition)
            except _Never:
                continue
        effects.append((condition, *_fact(e.fluent, params), e.value.bool_constant_value()))
    return _Template(action.name, pre, effects)


def ground(problem: Problem) -> StripsTask:
    """Every action under every binding of its parameters to objects of their types.

    Nothing is pruned by the problem's initial state (no reachability, no static facts):
    the task is searched later from other states, where those facts may differ. Our own
    grounder rather than unified-planning's because that one builds a problem of ground
    actions through its expression walkers, about 0.3 s on the pogostick task against
    milliseconds here (each action is read once, then bound)."""
    index = _Numbering()
    if any(not v.is_bool_constant() for v in problem.fluents_defaults.values()):
        raise UnsupportedTask("the task has numeric fluents")
    if any(v.is_true() for v in problem.fluents_defaults.values()):
        values = problem.initial_values  # every ground fact, as some default true
    else:
        values = problem.explicit_initial_values
    init = set()
    for fluent, value in values.items():
        if not value.is_bool_constant():
            raise UnsupportedTask(f"'{fluent}' starts with a number")
        if value.is_true():
            init.add(index[_ground_fact(fluent)])
    actions = []
    for action in problem.actions:
        template = _template(action)
        choices = [[o.name for o in problem.objects(p.type)] for p in action.parameters]
        for combo in itertools.product(*choices):
            grounded = template.ground(tuple(combo), index)
            if grounded is not None:
                actions.append(grounded)
    goal_literals: list[Literal] = []
    try:
        for node in problem.goals:
            _literals(node, {}, goal_literals)
        goal = index.conditions(goal_literals, ())
    except _Never:  # a goal that cannot hold: an atom no action adds and no state has
        goal = Conditions((index[("(never)", ())],), ())
    atoms = sorted(index, key=index.__getitem__)
    return StripsTask(atoms, actions, frozenset(init), goal,
                      objects=frozenset(o.name for o in problem.all_objects))
