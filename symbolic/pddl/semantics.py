"""From lark parse trees of PDDL to unified-planning objects: the problem builder.

This is the half of the PDDL reader that knows what the words mean (the domain's declarations
are checked in declarations.py, errors are located by errors.py).  The grammar only checks
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

Why one module of this size: `ProblemBuilder` is one walk over one tree whose methods share
its scopes and declarations; the parts that stand alone are apart (declarations.py,
action_costs.py, name_index.py, errors.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import unified_planning.model as upm
from lark import Token, Tree
from unified_planning.environment import Environment
from unified_planning.exceptions import UPException
from unified_planning.model import FNode

from nesyworld.symbolic.pddl.action_costs import TOTAL_COST, is_total_cost, uses_action_costs
from nesyworld.symbolic.pddl.declarations import (
    Domain,
    shared_names_allowed,
    typed_list,
    typed_variables,
)
from nesyworld.symbolic.pddl.environment import reading_environment
from nesyworld.symbolic.pddl.errors import Item, Source, as_token, shown
from nesyworld.symbolic.pddl.name_index import indexed_names

Scope = dict[str, FNode]


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
        self.env = reading_environment(environment)  # engines load only if a planner asks
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
        self.action_names: set[str] = set()
        self.cost_terms: list[FNode] = []
        self.action_costs = uses_action_costs(domain, self.sections)

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
        with shared_names_allowed(self.env, bool(shared)), indexed_names(problem):
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
            for oname, (otype, tok, source) in objects.items():
                self.objects[oname] = upm.Object(oname, self._type(otype, tok, source), self.env)
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
            for item, tname, _ in typed_list(section.children[0], self.psource):
                tok = as_token(item)  # the grammar's `names: NAME+`
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
            raise (source or self.source).error(item, f"undeclared type '{name}'",
                                                "a type declared in :types")
        return self.types[name]

    def _fluent(self, tok: Token, numeric: bool) -> upm.Fluent:
        fluent = self.fluents.get(str(tok))
        kind = "function" if numeric else "predicate"
        if fluent is None:
            section = ":functions" if numeric else ":predicates"
            raise self.source.error(tok, f"undeclared {kind} '{tok}'",
                                    f"a {kind} declared in {section}")
        if fluent.type.is_bool_type() == numeric:
            raise self.source.error(tok, f"'{tok}' is not a {kind}", f"a {kind} here")
        return fluent

    def _object(self, tok: Token, expected: upm.Type | None) -> FNode:
        name = str(tok)
        obj = self.objects.get(name)
        if obj is None and self.probe:
            self.free_names.setdefault(name, tok)
            obj = upm.Object(name, expected or self._type(None, tok), self.env)
        elif obj is None:
            raise self.source.error(tok, f"undeclared object or constant '{name}'",
                                    "a constant of the domain or an object of the problem")
        elif self.in_domain and name not in self.domain.constants:
            self.problem_objects_used.setdefault(name, tok)
        return self.em.ObjectExp(obj)

    def _term(self, tok: Token, scope: Scope, expected: upm.Type | None = None) -> FNode:
        if tok.type == "VARIABLE":
            if tok[1:] not in scope:
                raise self.source.error(tok, f"undeclared variable '{tok}'",
                                        "a parameter or a quantified variable in scope")
            return scope[tok[1:]]
        return self._object(tok, expected)

    def _fluent_exp(self, fluent: upm.Fluent, tok: Token, args: list, scope: Scope) -> FNode:
        signature = fluent.signature
        if len(args) != len(signature):
            raise self.source.error(
                tok, f"'{tok}' takes {len(signature)} argument(s) but is given {len(args)}",
                f"{len(signature)}",
            )
        exprs = []
        for arg, param in zip(args, signature, strict=True):
            expr = self._term(arg, scope, param.type)
            if not param.type.is_compatible(expr.type):
                raise self.source.error(
                    arg,
                    f"'{arg}' is a '{_name(expr.type)}' but argument ?{param.name} of '{tok}' "
                    f"must be a '{_name(param.type)}'",
                    f"an object of type '{_name(param.type)}'",
                )
            exprs.append(expr)
        return self.em.FluentExp(fluent, exprs)

    def _quantified(self, tree: Tree, scope: Scope) -> tuple[list[upm.Variable], Scope]:
        variables, inner = [], dict(scope)
        for name, tname, tok in typed_variables(tree, self.source):
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
        name = as_token(kids[0])  # the grammar's `atom: "(" NAME _term* ")"`
        return self._fluent_exp(self._fluent(name, False), name, kids[1:], scope)

    def _comparison(self, node: Tree, scope: Scope) -> FNode:
        op, left_tree, right_tree = node.children
        if op == "=":
            left = self._fexp(left_tree, scope)
            right = self._fexp(right_tree, scope, left.type)
            if left.type.is_user_type() != right.type.is_user_type():
                raise self.source.error(node, "'=' compares an object with a number",
                                        "two objects or two numbers")
            return self._checked(node, self.em.Equals, left, right)
        left, right = self._numeric(left_tree, scope), self._numeric(right_tree, scope)
        em = self.em
        build = {"<": em.LT, "<=": em.LE, ">": em.GT, ">=": em.GE}[str(op)]
        return build(left, right)

    def _numeric(self, node: Tree, scope: Scope) -> FNode:
        expr = self._fexp(node, scope)
        if not (expr.type.is_int_type() or expr.type.is_real_type()):
            raise self.source.error(node, f"'{shown(str(expr))}' is not numeric",
                                    "a number, a function term or arithmetic")
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
            return self._object(as_token(kids[0]), expected)
        if kind == "bare_variable":
            return self._term(as_token(kids[0]), scope)
        if kind == "fluent_term":
            name = as_token(kids[0])
            return self._fluent_exp(self._fluent(name, True), name, kids[1:], scope)
        if kind == "minus":
            args = [self._numeric(k, scope) for k in kids]
            if len(args) == 1:
                return self._checked(node, em.Times, -1, args[0])
            return self._checked(node, em.Minus, *args)
        args = [self._numeric(k, scope) for k in kids[1:]]
        if kids[0] == "+":
            return self._checked(node, em.Plus, *args)
        if kids[0] == "*":
            return self._checked(node, em.Times, *args)
        result = args[0]
        for arg, tree in zip(args[1:], kids[2:], strict=True):
            # Refused before UP sees it: its type checker divides the bounds of a constant
            # divisor, and a node that failed there stays in the expression cache.
            if arg.type.lower_bound == 0 and arg.type.upper_bound == 0:
                raise self.source.error(tree, "division by zero", "a non-zero divisor")
            result = self._checked(node, em.Div, result, arg)
        return result

    def _checked(self, item: Item, build: Callable[..., Any], *args: object, **kw: object) -> Any:
        """Call a UP builder, reporting its complaints at ``item`` instead of deep in UP (its
        type checker divides the bounds of constants, so ``(/ 1 0)`` is a ZeroDivisionError)."""
        try:
            return build(*args, **kw)
        except ArithmeticError as err:
            raise self.source.error(item, f"arithmetic on constants fails ({err})",
                                    "a non-zero divisor and numbers of a usable size") from err
        except UPException as err:
            first = (str(err).splitlines() or [type(err).__name__])[0]
            raise self.source.error(item, shown(first, 200),
                                    "an expression unified-planning accepts") from err

    # ------------------------------------------------------------------ actions
    def _action(self, node: Tree) -> None:
        name_tok, parts = node.children[0], node.children[1:]
        by_kind: dict[str, list[Tree]] = {}
        for part in parts:
            by_kind.setdefault(part.data, []).append(part)
        for kind, found in by_kind.items():
            if len(found) > 1:
                part = kind.replace("_def", "")
                raise self.source.error(found[1], f"action '{name_tok}' has two :{part} parts",
                                        f"at most one :{part}")
        if str(name_tok) in self.action_names:
            raise self.source.error(name_tok, f"action '{name_tok}' is declared twice",
                                    "distinct action names")
        params: OrderedDict[str, upm.Type] = OrderedDict()
        for part in by_kind.get("parameters", []):
            for pname, tname, tok in typed_variables(part.children[0], self.source):
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
        self.action_names.add(action.name)

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
            if top and self.action_costs and op == "increase" and is_total_cost(target_tree):
                self.cost_terms.append(self._numeric(value_tree, scope))
                return
            target = self._numeric(target_tree, scope)
            if not target.is_fluent_exp():
                raise self.source.error(target_tree, f"'{op}' needs a function term to change",
                                        "a function term such as (f ?x)")
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
    def _init_goal_metric(self) -> None:
        problem, em, tree = self.problem, self.em, self.tree
        assert tree is not None, "called for a problem file only"
        for init in self.sections.get("init_def", []):
            for item in init.children:
                if item.data == "atom":
                    problem.set_initial_value(self._gd(item, {}), em.TRUE())
                elif item.data == "negative_init":
                    self._gd(item.children[0], {})
                elif self.action_costs and is_total_cost(item.children[1]):
                    continue
                else:
                    target = self._numeric(item.children[1], {})
                    if not target.is_fluent_exp() or item.children[2].data != "number":
                        raise self.source.error(item, "a numeric :init entry that is not "
                                                "a constant value",
                                                "(= (function args) number)")
                    problem.set_initial_value(target, self._fexp(item.children[2], {}))
        goals = self.sections.get("goal_def", [])
        if len(goals) != 1:
            where = goals[1] if goals else tree.children[0]
            raise self.source.error(where, f"a problem with {len(goals)} :goal sections",
                                    "exactly one :goal")
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
