"""A PDDL domain's declarations, checked: requirements, the type hierarchy (with the dialect
features it tolerates), constants, predicates and functions, and the action trees kept for
when a problem's objects are known."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from lark import Token, Tree
from unified_planning.environment import Environment

from nesyworld.symbolic.pddl.errors import Item, Source


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


def typed_variables(tree: Tree, source: Source) -> list[tuple[str, str | None, Item]]:
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
                params = [(n, t) for n, t, _ in typed_variables(skeleton.children[1], source)]
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


def can_move(
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
