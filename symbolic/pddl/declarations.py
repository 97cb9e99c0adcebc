"""A PDDL domain's declarations, checked: requirements, the type hierarchy (with the dialect
features it tolerates), constants, predicates and functions, and the action trees kept for
when a problem's objects are known."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lark import Token, Tree

from nesyworld.symbolic.pddl.errors import Item, Source
from nesyworld.symbolic.pddl.limits import MAX_SECOND_PARENTS, MAX_TYPE_DEPTH, MAX_TYPES

if TYPE_CHECKING:
    from unified_planning.environment import Environment


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
            raise source.error(child, "'either' types are not supported (unified-planning "
                               "types have one parent)", "a single type name")
        out.extend((item, str(child), child) for item in pending)
        pending = []
    out.extend((item, None, None) for item in pending)
    return out


def typed_variables(tree: Tree, source: Source) -> list[tuple[str, str | None, Item]]:
    seen: set[str] = set()
    out = []
    for tok, tname, ttok in typed_list(tree, source):
        name = str(tok)[1:]
        if name in seen:
            raise source.error(tok, f"variable '?{name}' is declared twice",
                               "each variable once in a list")
        seen.add(name)
        out.append((name, tname, ttok or tok))
    return out


def declared_parameters(tree: Tree, source: Source, owner: Token) -> list[tuple[str, str | None]]:
    """A predicate's or function's parameters, a repeated name renamed with a warning.

    Why tolerate what an action's parameters may not do: in a declaration the names are
    placeholders that nothing refers to, and IPC domains repeat them (logistics00's ADL
    domain declares `(in ?obj ?obj)`). The second `?obj` becomes `?obj_2`, the arity and
    the types stay as written.
    """
    entries = typed_list(tree, source)
    taken = {str(tok)[1:] for tok, _, _ in entries}
    seen: set[str] = set()
    out = []
    for tok, tname, _ in entries:
        name = str(tok)[1:]
        if name in seen:
            k = 2
            while f"{name}_{k}" in taken:
                k += 1
            renamed = f"{name}_{k}"
            source.warn(tok, f"parameter '?{name}' of '{owner}' is declared twice; the "
                             f"second is read as '?{renamed}'")
            taken.add(renamed)
            name = renamed
        seen.add(name)
        out.append((name, tname))
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
                assert isinstance(tok, Token)  # the grammar's `names: NAME+`
                if str(tok) in constants:
                    raise source.error(tok, f"constant '{tok}' is declared twice",
                                       "each constant once")
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
                assert isinstance(name_tok, Token)  # the grammar's `skeleton: "(" NAME ...`
                if ftok is not None and ftype != "number":
                    raise source.error(ftok, f"function type '{ftype}' is not supported",
                                       "'number'")
                if str(name_tok) in fluents:
                    raise source.error(name_tok, f"'{name_tok}' is declared twice",
                                       "one declaration per predicate or function")
                params = declared_parameters(skeleton.children[1], source, name_tok)
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
    types, reparented = type_hierarchy(type_decls, source, constants, object_needed)
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


def type_hierarchy(
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
        if len(dag) > MAX_TYPES:
            raise source.error(tok, f"more than {MAX_TYPES:,} types", f"at most {MAX_TYPES:,}")
        if parent in (None, "object"):
            under_object.update([name] if parent == "object" else [])
            continue
        if parent == name:
            raise source.error(tok, f"type '{name}' is declared as a subtype of itself",
                               "another type as its parent")
        if any(p == parent for p, _ in entry):
            continue
        if entry:
            extras.append((name, parent, tok))
            if len(extras) > MAX_SECOND_PARENTS:
                raise source.error(tok, f"more than {MAX_SECOND_PARENTS} types declared under "
                                   "a second parent", f"at most {MAX_SECOND_PARENTS}")
        entry.append((parent, tok))
    for name in list(dag):
        for parent, tok in dag[name]:
            dag.setdefault(parent, [])
            if len(dag) > MAX_TYPES:
                raise source.error(tok, f"more than {MAX_TYPES:,} types", f"at most {MAX_TYPES:,}")
    known: dict[str, set[str]] = {}  # memo: without it, a chain of diamonds is exponential
    levels: dict[str, int] = {}  # the longest chain of parents above each type

    def dag_ancestors(name: str, trail: tuple[str, ...] = ()) -> set[str]:
        if name in known:
            return known[name]
        out: set[str] = set()
        levels[name] = 0
        for parent, tok in dag[name]:
            if parent in trail or parent == name:
                raise source.error(tok, f"type '{name}' is its own ancestor",
                                   "a type hierarchy without cycles")
            out |= {parent} | dag_ancestors(parent, (*trail, name))
            levels[name] = max(levels[name], levels[parent] + 1)
            if levels[name] > MAX_TYPE_DEPTH:
                raise source.error(tok, f"the type hierarchy is more than {MAX_TYPE_DEPTH} "
                                   "levels deep", f"at most {MAX_TYPE_DEPTH}")
        known[name] = out
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
        elif can_move(first, second, tree, ancestors, dag_ancestors, constants):
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

    def parent_of(name: str) -> str | None:
        parent = tree[name]
        if parent is None and (object_needed or (explicit_object and name in under_object)):
            return "object"
        return parent

    for name in dag:  # each type after its parent (a loop: reparenting lengthens chains)
        chain: list[str] = []
        step: str | None = name
        while step is not None and step not in out:
            chain.append(step)
            step = parent_of(step) if step != "object" else None
        for link in reversed(chain):
            out[link] = parent_of(link)
    return out, reparented


def can_move(
    moved: str,
    under: str,
    tree: dict[str, str | None],
    ancestors: Callable[[str | None], list[str]],
    dag_ancestors: Callable[[str], set[str]],
    constants: dict[str, tuple[str | None, Token]],
) -> bool:
    """Whether putting ``moved`` under ``under`` adds no membership the declarations deny."""
    children: dict[str, list[str]] = {}
    for child, parent in tree.items():
        children.setdefault(parent or "", []).append(child)
    subtypes, stack = [], [moved]
    while stack:  # the tree's descendants of `moved`, in time linear in the tree
        for child in children.get(stack.pop(), []):
            subtypes.append(child)
            stack.append(child)
    return (
        under != moved
        and moved not in ancestors(under)
        and under not in subtypes
        and all(under in dag_ancestors(t) for t in subtypes)
        and (tree[moved] is None or tree[moved] in ancestors(under))
        and all(t != moved for t, _ in constants.values())
    )


@contextmanager
def shared_names_allowed(env: Environment, allowed: bool) -> Iterator[None]:
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
