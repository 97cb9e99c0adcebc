"""From lark parse trees of PDDL to unified-planning objects: declarations, checks, building.

This is the half of the PDDL reader that knows what the words mean.  The grammar only checks
layout; here every name is looked up in its declaration so that a wrong arity, an undeclared
type or a misspelt predicate is reported at the token that caused it, with file:line:column,
instead of surfacing later as a planner crash.

The UP objects are built the way ``unified_planning.io.PDDLReader`` builds them (one
precondition per action holding the whole formula, ``>=`` as ``LE`` with swapped arguments,
numeric functions as reals, ``total-cost`` turned into ``MinimizeActionCosts``, ...) so that a
problem read by either reader compares ``==`` to the other.

Tolerated dialect features (each one a :class:`PDDLDialectWarning`, never silently): a type
declared under two parents, a domain that names problem objects as if they were constants, an
object declared both as constant and as object, and names shared between types and objects.
"""

from __future__ import annotations

import sys
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import unified_planning.model as upm
from lark import Token, Tree
from unified_planning.environment import Environment, get_environment
from unified_planning.exceptions import UPException
from unified_planning.model import FNode

Item = Tree | Token
Scope = dict[str, FNode]
TOTAL_COST = "total-cost"
_HERE = str(Path(__file__).parent)


class PDDLError(ValueError):
    """A PDDL input error that knows where it is, so that tools and people can jump to it."""

    def __init__(
        self,
        reason: str,
        *,
        file: str,
        line: int,
        column: int,
        expected: Sequence[str] = (),
        found: str = "",
        source_line: str | None = None,
    ) -> None:
        self.reason = reason
        self.file, self.line, self.column = file, line, column
        self.expected = list(expected)
        self.found = found
        message = f"{file}:{line}:{column}: {reason}"
        if source_line is not None:
            message += f"\n    {source_line.replace(chr(9), ' ')}\n    {' ' * (column - 1)}^"
        super().__init__(message)


class PDDLSyntaxError(PDDLError):
    """The text does not follow the PDDL grammar (raised from lark's Unexpected* errors)."""


class PDDLSemanticError(PDDLError):
    """The text is grammatical but refers to something undeclared, or misuses it."""


class PDDLDialectWarning(UserWarning):
    """Input outside standard PDDL that the reader accepts, e.g. Metric-FF's NovelGym domains."""

    def __init__(self, message: str, file: str = "", line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.file, self.line, self.column = file, line, column


@dataclass(frozen=True)
class Source:
    """A file name with its text: what every error and warning needs to say where it is."""

    file: str
    text: str

    def position(self, item: Item) -> tuple[int, int]:
        if isinstance(item, Token):
            return item.line or 1, item.column or 1
        meta = item.meta
        return getattr(meta, "line", 1), getattr(meta, "column", 1)

    def line_text(self, line: int) -> str | None:
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None

    def error(self, item: Item, reason: str) -> PDDLSemanticError:
        line, column = self.position(item)
        found = str(item) if isinstance(item, Token) else ""
        return PDDLSemanticError(
            reason,
            file=self.file,
            line=line,
            column=column,
            found=found,
            source_line=self.line_text(line),
        )

    def warn(self, item: Item, message: str) -> None:
        line, column = self.position(item)
        text = f"{self.file}:{line}:{column}: {message}"
        warnings.warn(PDDLDialectWarning(text, self.file, line, column), stacklevel=_caller())


def _caller() -> int:
    """The stacklevel of the first frame outside this package: where the user called us."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        level, frame = level + 1, frame.f_back
    return level


@dataclass
class Signature:
    """A predicate or function declaration; types are names, resolved when a problem is built."""

    name: str
    token: Token
    params: list[tuple[str, str | None]]
    numeric: bool


@dataclass
class Domain:
    """A checked PDDL domain, kept as declarations plus action trees.

    Why not a UP Problem right away: NovelGym's domains use problem objects inside actions, so
    the actions can only be built once the problem's objects are known.  ``read_domain``
    nevertheless builds every action once (unknown names as placeholders) to report all other
    errors early; the names it could not resolve are in ``free_names``.
    """

    name: str
    source: Source = field(repr=False)
    requirements: list[str]
    types: dict[str, str | None]
    constants: dict[str, tuple[str | None, Token]]
    fluents: dict[str, Signature]
    actions: list[Tree] = field(repr=False)
    object_type_needed: bool
    reparented: dict[str, str] = field(default_factory=dict)
    free_names: dict[str, Token] = field(default_factory=dict)


def typed_list(tree: Tree, source: Source) -> list[tuple[Item, str | None, Item | None]]:
    """Flatten ``a b - t c`` into (item, type name or None, type token) triples."""
    out: list[tuple[Item, str | None, Item | None]] = []
    pending: list[Item] = []
    for child in tree.children:
        if isinstance(child, Tree) and child.data in ("names", "variables", "skeletons"):
            pending = list(child.children)
            continue
        if isinstance(child, Tree):  # either_type
            raise source.error(child, "'either' types are not supported: UP types have one parent")
        out.extend((item, str(child), child) for item in pending)
        pending = []
    out.extend((item, None, None) for item in pending)
    return out


def _variables(tree: Tree, source: Source) -> list[tuple[str, str | None, Item]]:
    seen: set[str] = set()
    out = []
    for tok, tname, ttok in typed_list(tree, source):
        name = str(tok)[1:]
        if name in seen:
            raise source.error(tok, f"variable '?{name}' is declared twice")
        seen.add(name)
        out.append((name, tname, ttok or tok))
    return out


def domain_from_tree(tree: Tree, source: Source) -> Domain:
    """Collect and check the declarations of a parsed domain (actions are checked later)."""
    requirements: list[str] = []
    type_decls: list[tuple[Item, str | None, Item | None]] = []
    constants: dict[str, tuple[str | None, Token]] = {}
    fluents: dict[str, Signature] = {}
    actions: list[Tree] = []
    for section in tree.children[1:]:
        kind = section.data
        if kind == "requirements":
            requirements += [str(t).lower() for t in section.children]
        elif kind == "types_def":
            type_decls += typed_list(section.children[0], source)
        elif kind == "constants_def":
            for tok, tname, _ in typed_list(section.children[0], source):
                if str(tok) in constants:
                    raise source.error(tok, f"constant '{tok}' is declared twice")
                constants[str(tok)] = (tname, tok)
        elif kind in ("predicates_def", "functions_def"):
            numeric = kind == "functions_def"
            entries = (
                typed_list(section.children[0], source)
                if numeric
                else [(sk, None, None) for sk in section.children]
            )
            for skeleton, ftype, ftok in entries:
                assert isinstance(skeleton, Tree)
                name_tok = skeleton.children[0]
                if ftok is not None and ftype != "number":
                    raise source.error(ftok, f"function type '{ftype}': only numbers supported")
                if str(name_tok) in fluents:
                    raise source.error(name_tok, f"'{name_tok}' is declared twice")
                params = [(n, t) for n, t, _ in _variables(skeleton.children[1], source)]
                fluents[str(name_tok)] = Signature(str(name_tok), name_tok, params, numeric)
        else:  # action_def
            actions.append(section)
    # Like UP's reader: an `object` type exists when something is untyped or typed `object`.
    uses = [t for t, _ in constants.values()]
    uses += [t for sig in fluents.values() for _, t in sig.params]
    for action in actions:
        for tv in action.find_data("typed_vars"):
            uses += [t for _, t, _ in typed_list(tv, source)]
    object_needed = any(t in (None, "object") for t in uses)
    types, reparented = _type_hierarchy(type_decls, source, constants, object_needed)
    return Domain(
        str(tree.children[0]),
        source,
        requirements,
        types,
        constants,
        fluents,
        actions,
        object_needed,
        reparented,
    )


def _type_hierarchy(
    decls: list[tuple[Item, str | None, Item | None]],
    source: Source,
    constants: dict[str, tuple[str | None, Token]],
    object_needed: bool,
) -> tuple[dict[str, str | None], dict[str, str]]:
    """Reduce the declared type graph to the single-parent tree that UP can represent.

    A type declared under a second parent keeps its first one.  When that loses nothing (the
    second parent is already an ancestor, or is narrower than the first, or the first parent can
    be moved under the second because all of its subtypes are declared there too, as in
    NovelGym's ``agent - actor`` / ``agent - placeable``), the second relation is kept through
    the tree; otherwise the warning says which memberships are lost.
    """
    dag: dict[str, list[tuple[str, Item]]] = {}
    extras: list[tuple[str, str, Item]] = []
    explicit_object = {"object"} & {str(tok) for tok, _, _ in decls}
    under_object: set[str] = set()
    for tok, parent, _ in decls:
        name = str(tok)
        if name == "object":
            continue
        entry = dag.setdefault(name, [])
        if parent in (None, "object"):
            under_object.update([name] if parent == "object" else [])
            continue
        if parent == name:
            raise source.error(tok, f"type '{name}' is declared as a subtype of itself")
        if any(p == parent for p, _ in entry):
            continue
        if entry:
            extras.append((name, parent, tok))
        entry.append((parent, tok))
    for name in list(dag):
        for parent, _ in dag[name]:
            dag.setdefault(parent, [])

    def dag_ancestors(name: str, trail: tuple[str, ...] = ()) -> set[str]:
        out: set[str] = set()
        for parent, tok in dag[name]:
            if parent in trail or parent == name:
                raise source.error(tok, f"type '{name}' is its own ancestor")
            out |= {parent} | dag_ancestors(parent, (*trail, name))
        return out

    for name in dag:
        dag_ancestors(name)
    tree: dict[str, str | None] = {n: (ps[0][0] if ps else None) for n, ps in dag.items()}

    def ancestors(name: str | None) -> list[str]:
        out = []
        while name is not None and tree.get(name) is not None:
            name = tree[name]
            assert name is not None
            out.append(name)
        return out

    reparented: dict[str, str] = {}
    for name, second, tok in extras:
        first = tree[name]
        assert first is not None
        first_line = source.position(dag[name][0][1])[0]
        if second in ancestors(name):
            how = f"'{second}' is still an ancestor of '{name}' (through '{first}')"
        elif first in ancestors(second):
            tree[name] = second
            how = f"'{name}' now sits under '{second}', which is itself a '{first}'"
        elif _can_move(first, second, tree, ancestors, dag_ancestors, constants):
            tree[first] = second
            reparented[first] = second
            how = (
                f"'{second}' still holds because '{first}' was moved under '{second}' "
                f"(every subtype of '{first}' is declared a '{second}')"
            )
        else:
            how = f"objects of type '{name}' will NOT count as '{second}'"
        source.warn(
            tok,
            f"type '{name}' is declared with a second parent '{second}' (first: '{first}', "
            f"line {first_line}); unified-planning types have one parent, so '{first}' is kept; "
            + how,
        )
    out: dict[str, str | None] = {}
    if object_needed or explicit_object:
        out["object"] = None

    def add(name: str) -> None:
        if name in out:
            return
        parent = tree[name]
        if parent is None and (object_needed or (explicit_object and name in under_object)):
            parent = "object"
        if parent is not None:
            add(parent)
        out[name] = parent

    for name in dag:
        add(name)
    return out, reparented


def _can_move(
    moved: str,
    under: str,
    tree: dict[str, str | None],
    ancestors: Callable[[str | None], list[str]],
    dag_ancestors: Callable[[str], set[str]],
    constants: dict[str, tuple[str | None, Token]],
) -> bool:
    """Whether putting ``moved`` under ``under`` adds no membership the declarations deny."""
    subtypes = [t for t in tree if moved in ancestors(t)]
    return (
        under != moved
        and moved not in ancestors(under)
        and under not in subtypes
        and all(under in dag_ancestors(t) for t in subtypes)
        and (tree[moved] is None or tree[moved] in ancestors(under))
        and all(t != moved for t, _ in constants.values())
    )


@contextmanager
def _shared_names_allowed(env: Environment, allowed: bool) -> Iterator[None]:
    """Let objects share a name with a type (NovelGym) while building, without UP's warnings."""
    if not allowed:
        yield
        return
    previous = env.error_used_name
    env.error_used_name = False
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*(already used|already defined)")
            yield
    finally:
        env.error_used_name = previous


class ProblemBuilder:
    """Builds one ``up.model.Problem`` from a :class:`Domain` and optionally a problem tree.

    One object holds what every expression needs: the declared objects and fluents, which file
    is being read (for error positions) and, in ``probe`` mode (used by ``read_domain``),
    placeholders for names that only a problem can declare.
    """

    def __init__(
        self,
        domain: Domain,
        problem: Tree | None = None,
        problem_source: Source | None = None,
        *,
        probe: bool = False,
        numeric_default: float | None = None,
        environment: Environment | None = None,
    ) -> None:
        self.env = get_environment(environment)
        self.em, self.tm = self.env.expression_manager, self.env.type_manager
        self.domain, self.tree, self.probe = domain, problem, probe
        self.numeric_default = numeric_default
        self.source = domain.source
        self.psource = problem_source or domain.source
        self.sections: dict[str, list[Tree]] = {}
        for section in problem.children[2:] if problem is not None else []:
            self.sections.setdefault(section.data, []).append(section)
        self.types: dict[str, upm.Type] = {}
        self.fluents: dict[str, upm.Fluent] = {}
        self.objects: dict[str, upm.Object] = {}
        self.free_names: dict[str, Token] = {}
        self.problem_objects_used: dict[str, Token] = {}
        self.in_domain = True
        self.costs: dict[upm.Action, FNode] = {}
        self.cost_terms: list[FNode] = []
        self.action_costs = self._uses_action_costs()

    # ------------------------------------------------------------------ top level
    def build(self) -> upm.Problem:
        tree, domain = self.tree, self.domain
        name = str(tree.children[0]) if tree is not None else domain.name
        if tree is not None and str(tree.children[1]) != domain.name:
            self.psource.warn(tree.children[1], f"problem is for domain '{tree.children[1]}'")
        defaults: dict[upm.Type, FNode] = {self.tm.BoolType(): self.em.FALSE()}
        if self.numeric_default is not None:
            value = Fraction(self.numeric_default)
            defaults[self.tm.RealType()] = self.em.Real(value)
        problem = upm.Problem(name, self.env, initial_defaults=defaults)
        self.problem = problem
        objects = self._object_declarations()
        shared = self._shared_names(objects)
        with _shared_names_allowed(self.env, bool(shared)):
            for tname, parent in domain.types.items():
                self.types[tname] = self.tm.UserType(tname, self.types.get(parent or ""))
                # UP adds types only through their uses; its own reader declares them like this.
                problem._add_user_type(self.types[tname])
            for sig in domain.fluents.values():
                if sig.name == TOTAL_COST and self.action_costs:
                    continue
                params = OrderedDict((n, self._type(t, sig.token)) for n, t in sig.params)
                ftype = self.tm.RealType() if sig.numeric else self.tm.BoolType()
                self.fluents[sig.name] = upm.Fluent(sig.name, ftype, params, self.env)
                problem.add_fluent(self.fluents[sig.name])
            for oname, (tname, tok, source) in objects.items():
                self.objects[oname] = upm.Object(oname, self._type(tname, tok, source), self.env)
                problem.add_object(self.objects[oname])
            for action in domain.actions:
                self._action(action)
            self.in_domain = False
            self.source = self.psource
            if self.problem_objects_used:
                names = ", ".join(
                    f"'{n}' (line {t.line})" for n, t in self.problem_objects_used.items()
                )
                domain.source.warn(
                    next(iter(self.problem_objects_used.values())),
                    f"the domain names problem objects as if they were constants: {names}; "
                    "Metric-FF accepts this, standard PDDL does not",
                )
            if tree is not None:
                self._init_goal_metric()
        return problem

    def _object_declarations(self) -> dict[str, tuple[str | None, Token, Source]]:
        """Constants then problem objects, merging the duplicates NovelGym writes.

        A name declared twice keeps the narrower of its two types when one contains the other
        (NovelGym's constant ``rubber - physobj`` and object ``rubber - rubber``): the narrower
        type loses no membership.  Otherwise the first declaration wins.
        """
        merged = {n: (t, tok, self.source) for n, (t, tok) in self.domain.constants.items()}
        for section in self.sections.get("objects_def", []):
            for tok, tname, _ in typed_list(section.children[0], self.psource):
                name = str(tok)
                if name not in merged:
                    merged[name] = (tname, tok, self.psource)
                    continue
                old, first, _ = merged[name]
                keep = old
                if tname != old and self._narrower(tname, old):
                    keep = tname
                    merged[name] = (tname, tok, self.psource)
                what = "a constant" if first is self.domain.constants.get(name, (0, 0))[1] else ""
                self.psource.warn(
                    tok,
                    f"'{name}' is declared twice: as {what or 'an object'} of type '{old}' and "
                    f"as an object of type '{tname}'; kept '{keep}'",
                )
        for name, (tname, tok, _) in merged.items():
            if tname in self.domain.reparented:
                self.psource.warn(
                    tok,
                    f"object '{name}' has type '{tname}', which was moved under "
                    f"'{self.domain.reparented[tname]}', so it is now also one of those",
                )
        return merged

    def _narrower(self, new: str | None, old: str | None) -> bool:
        chain, name = [], new
        while name is not None:
            name = self.domain.types.get(name)
            chain.append(name)
        return old in chain or old is None

    def _shared_names(self, objects: dict[str, tuple[str | None, Token, Source]]) -> list[str]:
        actions = {str(a.children[0]) for a in self.domain.actions}
        groups = [set(self.domain.types), set(self.domain.fluents), set(objects), actions]
        shared = sorted(
            n for i, g in enumerate(groups) for n in g if any(n in h for h in groups[i + 1 :])
        )
        if shared:
            name = shared[0]
            where: Item = self.domain.actions[0] if self.domain.actions else objects[name][1]
            source = self.source
            if name in objects:
                _, where, source = objects[name]
            elif name in self.domain.fluents:
                where = self.domain.fluents[name].token
            source.warn(
                where,
                "names shared between types, predicates, objects or actions: "
                + ", ".join(shared)
                + " (unified-planning rejects this by default; accepted here)",
            )
        return shared

    # ------------------------------------------------------------------ lookups
    def _type(self, name: str | None, item: Item, source: Source | None = None) -> upm.Type:
        if name in (None, "object"):
            if "object" not in self.types:
                self.types["object"] = self.tm.UserType("object")
            return self.types["object"]
        if name not in self.types:
            raise (source or self.source).error(item, f"undeclared type '{name}'")
        return self.types[name]

    def _fluent(self, tok: Token, numeric: bool) -> upm.Fluent:
        fluent = self.fluents.get(str(tok))
        kind = "function" if numeric else "predicate"
        if fluent is None:
            raise self.source.error(tok, f"undeclared {kind} '{tok}'")
        if fluent.type.is_bool_type() == numeric:
            raise self.source.error(tok, f"'{tok}' is not a {kind}")
        return fluent

    def _object(self, tok: Token, expected: upm.Type | None) -> FNode:
        name = str(tok)
        obj = self.objects.get(name)
        if obj is None and self.probe:
            self.free_names.setdefault(name, tok)
            obj = upm.Object(name, expected or self._type(None, tok), self.env)
        elif obj is None:
            raise self.source.error(tok, f"undeclared object or constant '{name}'")
        elif self.in_domain and name not in self.domain.constants:
            self.problem_objects_used.setdefault(name, tok)
        return self.em.ObjectExp(obj)

    def _term(self, tok: Token, scope: Scope, expected: upm.Type | None = None) -> FNode:
        if tok.type == "VARIABLE":
            if tok[1:] not in scope:
                raise self.source.error(tok, f"undeclared variable '{tok}'")
            return scope[tok[1:]]
        return self._object(tok, expected)

    def _fluent_exp(self, fluent: upm.Fluent, tok: Token, args: list, scope: Scope) -> FNode:
        signature = fluent.signature
        if len(args) != len(signature):
            raise self.source.error(
                tok, f"'{tok}' takes {len(signature)} argument(s) but is given {len(args)}"
            )
        exprs = []
        for arg, param in zip(args, signature, strict=True):
            expr = self._term(arg, scope, param.type)
            if not param.type.is_compatible(expr.type):
                raise self.source.error(
                    arg,
                    f"'{arg}' is a '{_name(expr.type)}' but argument ?{param.name} of '{tok}' "
                    f"must be a '{_name(param.type)}'",
                )
            exprs.append(expr)
        return self.em.FluentExp(fluent, exprs)

    def _quantified(self, tree: Tree, scope: Scope) -> tuple[list[upm.Variable], Scope]:
        variables, inner = [], dict(scope)
        for name, tname, tok in _variables(tree, self.source):
            variables.append(upm.Variable(name, self._type(tname, tok), self.env))
            inner[name] = self.em.VariableExp(variables[-1])
        return variables, inner

    # ------------------------------------------------------------------ expressions
    def _gd(self, node: Tree, scope: Scope) -> FNode:
        em, kind, kids = self.em, node.data, node.children
        if kind == "empty":
            return em.TRUE()
        if kind in ("and_gd", "or_gd"):
            return (em.And if kind == "and_gd" else em.Or)(*[self._gd(k, scope) for k in kids])
        if kind == "not_gd":
            return em.Not(self._gd(kids[0], scope))
        if kind == "imply_gd":
            return em.Implies(self._gd(kids[0], scope), self._gd(kids[1], scope))
        if kind in ("exists_gd", "forall_gd"):
            variables, inner = self._quantified(kids[0], scope)
            body = self._gd(kids[1], inner)
            if not variables:
                return body
            return (em.Exists if kind == "exists_gd" else em.Forall)(body, *variables)
        if kind == "comparison":
            return self._comparison(node, scope)
        return self._fluent_exp(self._fluent(kids[0], False), kids[0], kids[1:], scope)

    def _comparison(self, node: Tree, scope: Scope) -> FNode:
        op, left_tree, right_tree = node.children
        if op == "=":
            left = self._fexp(left_tree, scope)
            right = self._fexp(right_tree, scope, left.type)
            if left.type.is_user_type() != right.type.is_user_type():
                raise self.source.error(node, "'=' compares an object with a number")
            return self._checked(node, self.em.Equals, left, right)
        left, right = self._numeric(left_tree, scope), self._numeric(right_tree, scope)
        em = self.em
        build = {"<": em.LT, "<=": em.LE, ">": em.GT, ">=": em.GE}[str(op)]
        return build(left, right)

    def _numeric(self, node: Tree, scope: Scope) -> FNode:
        expr = self._fexp(node, scope)
        if not (expr.type.is_int_type() or expr.type.is_real_type()):
            raise self.source.error(node, f"expected a numeric expression, found '{expr}'")
        return expr

    def _fexp(self, node: Tree, scope: Scope, expected: upm.Type | None = None) -> FNode:
        em, kind, kids = self.em, node.data, node.children
        if kind == "number":
            value = Fraction(str(kids[0]))
            return em.Int(value.numerator) if value.denominator == 1 else em.Real(value)
        if kind == "bare_name":
            fluent = self.fluents.get(str(kids[0]))
            if fluent is not None and not fluent.type.is_bool_type() and fluent.arity == 0:
                return em.FluentExp(fluent)
            return self._object(kids[0], expected)
        if kind == "bare_variable":
            return self._term(kids[0], scope)
        if kind == "fluent_term":
            return self._fluent_exp(self._fluent(kids[0], True), kids[0], kids[1:], scope)
        if kind == "minus":
            args = [self._numeric(k, scope) for k in kids]
            return em.Times(-1, args[0]) if len(args) == 1 else em.Minus(*args)
        args = [self._numeric(k, scope) for k in kids[1:]]
        if kids[0] == "+":
            return em.Plus(*args)
        if kids[0] == "*":
            return em.Times(*args)
        result = args[0]
        for arg in args[1:]:
            result = em.Div(result, arg)
        return result

    def _checked(self, item: Item, build: Callable[..., Any], *args: object, **kw: object) -> Any:
        """Call a UP builder, reporting its complaints at ``item`` instead of deep in UP."""
        try:
            return build(*args, **kw)
        except UPException as err:
            raise self.source.error(item, str(err).splitlines()[0]) from err

    # ------------------------------------------------------------------ actions
    def _action(self, node: Tree) -> None:
        name_tok, parts = node.children[0], node.children[1:]
        by_kind: dict[str, list[Tree]] = {}
        for part in parts:
            by_kind.setdefault(part.data, []).append(part)
        for kind, found in by_kind.items():
            if len(found) > 1:
                part = kind.replace("_def", "")
                raise self.source.error(found[1], f"action '{name_tok}' has two :{part} parts")
        if self.problem.has_action(str(name_tok)):
            raise self.source.error(name_tok, f"action '{name_tok}' is declared twice")
        params: OrderedDict[str, upm.Type] = OrderedDict()
        for part in by_kind.get("parameters", []):
            for pname, tname, tok in _variables(part.children[0], self.source):
                params[pname] = self._type(tname, tok)
        action = upm.InstantaneousAction(str(name_tok), params, self.env)
        scope = {p: self.em.ParameterExp(action.parameter(p)) for p in params}
        for part in by_kind.get("precondition", []):
            self._checked(part, action.add_precondition, self._gd(part.children[0], scope))
        self.cost_terms = []
        for part in by_kind.get("effect_def", []):
            self._effects(part.children[0], scope, action, self.em.TRUE(), (), top=True)
        if self.cost_terms:
            self.costs[action] = self.em.Plus(*self.cost_terms)
        self.problem.add_action(action)

    def _effects(
        self,
        node: Tree,
        scope: Scope,
        action: upm.InstantaneousAction,
        cond: FNode,
        forall: tuple[upm.Variable, ...],
        top: bool,
    ) -> None:
        em, kind, kids = self.em, node.data, node.children
        if kind == "and_effect":
            for kid in kids:
                self._effects(kid, scope, action, cond, forall, top)
        elif kind == "forall_effect":
            variables, inner = self._quantified(kids[0], scope)
            self._effects(kids[1], inner, action, cond, (*forall, *variables), False)
        elif kind == "when_effect":
            guard = self._gd(kids[0], scope)
            guard = (guard if cond.is_true() else em.And(cond, guard)).simplify()
            if not guard.is_false():
                self._effects(kids[1], scope, action, guard, forall, False)
        elif kind in ("atom", "not_effect"):
            atom = node if kind == "atom" else kids[0]
            target = self._gd(atom, scope)
            value = em.TRUE() if kind == "atom" else em.FALSE()
            self._checked(node, action.add_effect, target, value, cond, forall=forall)
        elif kind == "numeric_effect":
            op, target_tree, value_tree = str(kids[0].children[0]).lower(), kids[1], kids[2]
            if top and self.action_costs and op == "increase" and _is_total_cost(target_tree):
                self.cost_terms.append(self._numeric(value_tree, scope))
                return
            target = self._numeric(target_tree, scope)
            if not target.is_fluent_exp():
                raise self.source.error(target_tree, f"'{op}' needs a function term to change")
            value = self._numeric(value_tree, scope)
            add = {
                "assign": action.add_effect,
                "increase": action.add_increase_effect,
                "decrease": action.add_decrease_effect,
            }.get(op, action.add_effect)
            if op == "scale-up":
                value = em.Times(target, value)
            elif op == "scale-down":
                value = em.Div(target, value)
            self._checked(node, add, target, value, cond, forall=forall)

    # ------------------------------------------------------------------ problem part
    def _uses_action_costs(self) -> bool:
        """Whether ``total-cost`` is used only as PDDL's :action-costs idiom.

        Same conditions as UP's reader, checked on the trees before anything is built: a 0-ary
        function ``total-cost``, only ever increased unconditionally at the top of effects, set
        to 0 (or not at all) in :init, absent from goals, and the metric minimizes it.
        """
        sig = self.domain.fluents.get(TOTAL_COST)
        metrics = self.sections.get("metric_def", [])
        if sig is None or not sig.numeric or sig.params or len(metrics) != 1:
            return False
        optimization, target = metrics[0].children
        if str(optimization.children[0]).lower() != "minimize" or not _is_total_cost(target):
            return False
        for action in self.domain.actions:
            allowed = sum(
                1
                for part in action.children[1:]
                if part.data == "effect_def"
                for _ in _top_level_cost_increases(part.children[0])
            )
            if _count_total_cost(action) != allowed:
                return False
        for goal in self.sections.get("goal_def", []):
            if _count_total_cost(goal):
                return False
        for init in self.sections.get("init_def", []):
            for item in init.find_data("numeric_init"):
                if _is_total_cost(item.children[1]):
                    value = item.children[2]
                    if value.data != "number" or Fraction(str(value.children[0])) != 0:
                        return False
        return True

    def _init_goal_metric(self) -> None:
        problem, em = self.problem, self.em
        for init in self.sections.get("init_def", []):
            for item in init.children:
                if item.data == "atom":
                    problem.set_initial_value(self._gd(item, {}), em.TRUE())
                elif item.data == "negative_init":
                    self._gd(item.children[0], {})
                elif self.action_costs and _is_total_cost(item.children[1]):
                    continue
                else:
                    target = self._numeric(item.children[1], {})
                    if not target.is_fluent_exp() or item.children[2].data != "number":
                        raise self.source.error(item, "expected (= (function args) number)")
                    problem.set_initial_value(target, self._fexp(item.children[2], {}))
        goals = self.sections.get("goal_def", [])
        if len(goals) != 1:
            where = goals[1] if goals else self.tree.children[0]
            raise self.source.error(where, "a problem needs exactly one :goal")
        self._checked(goals[0], problem.add_goal, self._gd(goals[0].children[0], {}))
        for metric in self.sections.get("metric_def", [])[:1]:
            optimization, target = metric.children
            minimize = str(optimization.children[0]).lower() == "minimize"
            if self.action_costs:
                quality = upm.metrics.MinimizeActionCosts(self.costs, default=em.Int(0))
            elif minimize and target.data == "bare_name" and target.children[0] == "total-time":
                quality = upm.metrics.MinimizeMakespan()
            elif minimize:
                quality = upm.metrics.MinimizeExpressionOnFinalState(self._numeric(target, {}))
            else:
                quality = upm.metrics.MaximizeExpressionOnFinalState(self._numeric(target, {}))
            problem.add_quality_metric(quality)


def _name(t: upm.Type) -> str:
    return getattr(t, "name", str(t))


def _is_total_cost(node: Tree) -> bool:
    """``(total-cost)`` or a bare ``total-cost`` in a numeric position."""
    kids = node.children
    return node.data in ("fluent_term", "bare_name") and len(kids) == 1 and kids[0] == TOTAL_COST


def _count_total_cost(tree: Tree) -> int:
    return sum(
        1
        for node in tree.iter_subtrees()
        if node.data in ("fluent_term", "bare_name") and node.children[0] == TOTAL_COST
    )


def _top_level_cost_increases(node: Tree) -> Iterator[Tree]:
    """The unconditional ``(increase (total-cost) v)`` effects where v leaves total-cost alone."""
    if node.data == "and_effect":
        for kid in node.children:
            yield from _top_level_cost_increases(kid)
    elif node.data == "numeric_effect":
        op, target, value = node.children
        increase = str(op.children[0]).lower() == "increase"
        if increase and _is_total_cost(target) and not _count_total_cost(value):
            yield node
