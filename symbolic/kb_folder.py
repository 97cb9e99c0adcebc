"""Reading a knowledge-base folder back: kb.json checked field by field, the PDDL beside it read.

Why: ``KnowledgeBase.load`` took kb.json on trust, so a missing file, a truncated or hand-edited
JSON, a wrong type in one operator or a stray domain.pddl surfaced as KeyError, TypeError or
JSONDecodeError deep in the loader, or as a broken plan later. This is the one reader of the
folder (saved agents add only their policy files, hybrid/agents/saved_agent.py). It is built on
the project's JSON reader (world/simulation/json_input.py), so size and nesting limits and the
wording of JSON errors are those of every other JSON file a user hands in, and every problem is
one :class:`KnowledgeBaseError`: a SpecError with the file, the field path in the document
(``entries[1].status``) or the JSON line and column, and what was expected.

The folder: kb.json is required. domain.pddl and problem.pddl, written by ``save`` for planners
and people, are optional; when present they must read as PDDL (a located PDDLError if not), and
the domain's actions must be the knowledge base's active operators (an edited domain is read
with ``KnowledgeBase.from_pddl``, never silently ignored). The three are read as the folder's
own regular files: a symbolic link or a FIFO is refused unopened, so an error never quotes a
line of a file elsewhere and a pipe never blocks the load. Other files (the hybrid layer's
agent.json and policies/) are left to their owners.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nesyworld.symbolic.pddl.errors import printable
from nesyworld.symbolic.pddl.limits import MAX_NAME, load_pddl_text
from nesyworld.world.actions.schema import INVENTORY, WORLD
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.json_input import Fields, read_json

KB_FILE = "kb.json"
MAX_BYTES = 32_000_000
"""kb.json size: the pogostick knowledge base is about 60 kB."""
MAX_DEPTH = 32
"""JSON nesting (an entry's meta included): the format itself needs 6."""
MAX_ENTRIES = 10_000
"""Operators in one knowledge base (pogostick: a few dozen)."""
MAX_PARAMS = 64
"""Parameters of an operator, arguments of a fact (derived operators have at most 2)."""
MAX_ITEMS = 1_000
"""Preconditions, effects, conditions of one effect, notes of one operator."""
MAX_TEXT = 10_000
"""Characters of a provenance, note, reason or world path."""
MAX_COUNT = 2**31 - 1
"""Size of a count or a change: what a planner's integers hold."""
MAX_REPEAT = 1_000
"""Times one operator's env action may run (a block that takes several hits)."""
MAX_PATH_SHOWN = 120
"""Characters of a field path in a message (an unknown key can be a pasted document)."""

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
"""An operator name is a PDDL name (the grammar's NAME, pddl/grammar.lark): ``save`` writes it
into domain.pddl, which must read back."""
VARIABLE = re.compile(r"\?[A-Za-z][A-Za-z0-9_\-]*")
WHAT = "a knowledge base (nesyworld.kb/1) written by KnowledgeBase.save"
ORIGINS = ("derived", "edited", "learned", "repaired")
STATUSES = ("active", "demoted")
ITEM_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "fact": (("kind", "predicate", "args"), ("negated",)),
    "distinct": (("kind", "left", "right"), ()),
    "at_least": (("kind", "fluent", "arg", "value"), ()),
    "set": (("kind", "predicate", "args", "value"), ("when",)),
    "change": (("kind", "fluent", "arg", "delta"), ()),
}
"""Each item kind's (required, optional) keys, as schema_io.item_to_dict writes them."""
ANY_ITEM_KEY = tuple(sorted({k for keys in ITEM_KEYS.values() for k in keys[0] + keys[1]}))


class KnowledgeBaseError(SpecError):
    """A knowledge-base folder that cannot be loaded. A SpecError, so that it reads like every
    other refused input: ``<file>[:line:column]: <what> (at '<field path>'); expected <what>``.
    """


class _Fields(Fields):
    """json_input's checks, failing with KnowledgeBaseError and a printable, short path."""

    def fail(self, path: str, message: str, expected: str,
             found: object = None) -> KnowledgeBaseError:
        path = printable(path)
        if len(path) > MAX_PATH_SHOWN:
            path = path[: MAX_PATH_SHOWN - 3] + "..."
        return KnowledgeBaseError(message, file=self.file, key_path=path, expected=expected,
                                  found=found)


def read_kb_json(folder: str | Path) -> dict[str, Any]:
    """kb.json of `folder`, parsed and checked against the format (see the module docstring)."""
    root = Path(folder)
    if not root.is_dir():
        raise KnowledgeBaseError("not a folder", file=str(root), expected="a knowledge-base "
                                 "folder written by KnowledgeBase.save (kb.json inside)")
    path = root / KB_FILE
    try:
        data = read_json(path, str(path), what=WHAT, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH,
                         follow_links=False)
    except SpecError as err:
        raise KnowledgeBaseError(err.message, location=err.location, file=err.file,
                                 key_path=err.key_path, found=err.found,
                                 expected=err.expected) from None
    check_kb_data(data, str(path))
    return data


def check_kb_data(data: Any, file: str) -> None:
    """Check the parsed kb.json: every field's presence, type and range, names unique."""
    from nesyworld.symbolic.knowledge_base import FORMAT

    f = _Fields(file)
    keys = ("format", "world", "entries")
    doc = data if isinstance(data, dict) else f.mapping(data, "", keys)
    if doc.get("format") != FORMAT:  # before the keys: another document says what it is not
        raise f.fail("format", "not a nesyworld knowledge base" if "format" in doc else
                     "missing", f"'{FORMAT}' ({WHAT})", doc.get("format"))
    f.mapping(doc, "", keys)
    f.string(doc["world"], "world", MAX_TEXT, "the world's name or spec path (a string)")
    names: set[str] = set()
    for i, entry in enumerate(f.listing(doc["entries"], "entries", MAX_ENTRIES,
                                        "a list of operator entries")):
        at = f"entries[{i}]"
        f.mapping(entry, at, ("operator", "origin", "status"), ("reason", "meta"))
        f.one_of(entry["origin"], f"{at}.origin", ORIGINS)
        f.one_of(entry["status"], f"{at}.status", STATUSES)
        f.string(entry.get("reason", ""), f"{at}.reason", MAX_TEXT)
        if not isinstance(entry.get("meta", {}), dict):
            raise f.fail(f"{at}.meta", "not an object", "an object: the entry's provenance "
                         "(what made the operator, from what)")
        name = _operator(f, entry["operator"], f"{at}.operator")
        if name in names:
            raise f.fail(f"{at}.operator.name", "an operator listed twice",
                         "one entry per operator", name)
        names.add(name)


def _operator(f: _Fields, op: Any, at: str) -> str:
    f.mapping(op, at, ("name", "params", "preconditions", "effects", "action", "provenance"),
              ("cost", "macro", "notes", "repeat"))
    name = f.string(op["name"], f"{at}.name", MAX_NAME, "an operator name")
    if not NAME.fullmatch(name):
        raise f.fail(f"{at}.name", "not a PDDL name", "letters, digits, '_' and '-', "
                     "starting with a letter", name)
    f.string(op["action"], f"{at}.action", MAX_TEXT, "the env action that runs the operator")
    f.string(op["provenance"], f"{at}.provenance", MAX_TEXT)
    params = f.listing(op["params"], f"{at}.params", MAX_PARAMS, "a list of [name, type]")
    for j, param in enumerate(params):
        pair = f.listing(param, f"{at}.params[{j}]", 2, '["?name", "type"]', length=2)
        variable = f.string(pair[0], f"{at}.params[{j}][0]", MAX_NAME, "a ?variable")
        if not VARIABLE.fullmatch(variable):
            raise f.fail(f"{at}.params[{j}][0]", "not a PDDL variable", "'?' and a name",
                         variable)
        f.string(pair[1], f"{at}.params[{j}][1]", MAX_NAME, "a type of the world")
    for key, allowed in (("preconditions", ("fact", "distinct", "at_least")),
                         ("effects", ("set", "change"))):
        items = f.listing(op[key], f"{at}.{key}", MAX_ITEMS, f"a list of {key}")
        for j, item in enumerate(items):
            _item(f, item, allowed, f"{at}.{key}[{j}]")
    if f.number(op.get("cost", 1.0), f"{at}.cost", "a finite number >= 0") < 0:
        raise f.fail(f"{at}.cost", "negative", "a finite number >= 0", op["cost"])
    f.boolean(op.get("macro", False), f"{at}.macro")
    for j, note in enumerate(f.listing(op.get("notes", []), f"{at}.notes", MAX_ITEMS,
                                       "a list of strings")):
        f.string(note, f"{at}.notes[{j}]", MAX_TEXT)
    f.integer(op.get("repeat", 1), f"{at}.repeat", 1, MAX_REPEAT)
    return name


def _item(f: _Fields, item: Any, allowed: tuple[str, ...], at: str) -> None:
    kind = f.one_of(f.mapping(item, at, ("kind",), ANY_ITEM_KEY)["kind"], f"{at}.kind",
                    allowed)
    f.mapping(item, at, *ITEM_KEYS[kind])
    for key, value in item.items():
        path = f"{at}.{key}"
        if key in ("predicate", "left", "right", "arg"):
            f.string(value, path, MAX_NAME)
        elif key == "fluent":
            f.one_of(value, path, (WORLD, INVENTORY))
        elif key == "args":
            for k, arg in enumerate(f.listing(value, path, MAX_PARAMS, "a list of names")):
                f.string(arg, f"{path}[{k}]", MAX_NAME)
        elif key == "negated" or (key == "value" and kind == "set"):
            f.boolean(value, path)
        elif key in ("value", "delta"):
            f.integer(value, path, -MAX_COUNT, MAX_COUNT)
        elif key == "when":
            for k, cond in enumerate(f.listing(value, path, MAX_ITEMS, "a list of facts")):
                _item(f, cond, ("fact",), f"{path}[{k}]")


def check_vocabulary(entries: list[dict[str, Any]], base: Any, file: str) -> None:
    """Every operator of a checked kb.json can be written over the derivation: parameter types
    are its types or objects (without this, an unknown type surfaced as a KeyError from the PDDL
    writer at the first plan), and every `?variable` an item uses is a parameter.

    Predicates and constants outside the derivation are allowed: an agent that adapted to a
    novelty saves operators over what it met there (`holding axe`, `on_fire`), and the
    planner's problem declares the names the state adds (symbolic/planning/problems.py)."""
    f = _Fields(file)
    world = f"the world '{printable(str(base.name))}'"
    names = {t.name for t in base.types} | {o.name for o in base.objects}
    for i, entry in enumerate(entries):
        op, at = entry["operator"], f"entries[{i}].operator"
        for j, (_, ptype) in enumerate(op["params"]):
            if ptype not in names:
                raise f.fail(f"{at}.params[{j}][1]", "unknown type",
                             f"a type or object of {world}", ptype)
        variables = {variable for variable, _ in op["params"]}
        for path, item in _conditions(op, at):
            for key, arg in _arguments(item):
                if arg.startswith("?") and arg not in variables:
                    raise f.fail(f"{path}.{key}", "unknown variable",
                                 "a parameter of the operator", arg)


def _conditions(op: dict[str, Any], at: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, item) of every precondition, effect and condition of an effect."""
    for key in ("preconditions", "effects"):
        for j, item in enumerate(op[key]):
            yield f"{at}.{key}[{j}]", item
            for k, cond in enumerate(item.get("when", [])):
                yield f"{at}.{key}[{j}].when[{k}]", cond


def _arguments(item: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key path inside the item, name) of every argument of an item."""
    for k, arg in enumerate(item.get("args", [])):
        yield f"args[{k}]", arg
    for key in ("arg", "left", "right"):
        if key in item:
            yield key, item[key]


def check_pddl_files(folder: Path, active: list[str]) -> None:
    """domain.pddl and problem.pddl, when present, read as PDDL (a PDDLError says where not),
    and the domain's actions are the `active` operators."""
    from nesyworld.symbolic.pddl.reader import read_pddl  # unified-planning: loaded when used

    domain_path, problem_path = folder / "domain.pddl", folder / "problem.pddl"
    if not _present(domain_path):
        if _present(problem_path):
            raise KnowledgeBaseError("a problem without domain.pddl beside it",
                                     file=str(problem_path), expected="both files, or neither")
        return
    # the folder's own files, never a link: an error quotes the line it fails at, and a link
    # would make that a line of a file the folder does not hold (input_files.py)
    domain = load_pddl_text(domain_path, follow_links=False)
    problem = (load_pddl_text(problem_path, follow_links=False) if _present(problem_path)
               else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read = read_pddl(domain, problem, str(domain_path), str(problem_path),
                         numeric_default=0)
    actions = [a.name for a in read.actions]
    if sorted(actions) != sorted(active):
        extra = sorted(set(actions) - set(active))
        missing = sorted(set(active) - set(actions))
        raise KnowledgeBaseError(
            "an action that is not an active operator of kb.json" if extra else
            "an active operator of kb.json has no action", file=str(domain_path),
            found=(extra or missing)[0], expected="the domain KnowledgeBase.save wrote for "
            "kb.json (read an edited domain with KnowledgeBase.from_pddl)")


def _present(path: Path) -> bool:
    """Whether anything is at `path`: a file, or a link (even one that leads nowhere)."""
    return path.exists() or path.is_symlink()
