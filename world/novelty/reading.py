"""Reading a novelty file: every field checked for type and range at its file:line:column.

A novelty is input like a spec, and often a hand-edited or generated one; what it gets wrong
must be refused here, located, rather than surface later as a crash in `apply_novelties`, in
World construction or in the middle of an episode. The changes themselves are a partial spec,
validated when they are applied (`apply_novelties` runs the spec's own checks on the result
and blames the novelty for what it broke); this module checks everything else: the
classification, the schedule and the transformations' parameters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nesyworld.world.errors import SpecError, shown
from nesyworld.world.novelty.definition import (
    MAX_INJECT,
    TRANSFORMS,
    Injection,
    Novelty,
    check_params,
)
from nesyworld.world.novelty.mid_episode import check_mid_episode
from nesyworld.world.spec.loader import TOP_KEYS as SPEC_KEYS
from nesyworld.world.spec.loader import resolve_extends, resolve_source
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.yaml_source import SourceMap, load_yaml_file, load_yaml_text

CATEGORIES = ("detrimental", "beneficial", "nuisance")
LEVELS = ("objects", "agents", "actions", "interactions", "relations", "environments", "goals",
          "events")
NOVELTY_KEYS = {
    "novelty": "the novelty's name",
    "category": "one of " + ", ".join(CATEGORIES),
    "level": "one of " + ", ".join(LEVELS),
    "description": "free text",
    "inject": "{episode: N} and/or {step: N}",
    "changes": "a partial world spec, deep-merged onto the spec",
    "transforms": "a list of registered transformations, {kind: <name>, ...}",
}
MAX_NAME = 100
"""Characters of a novelty's name: it labels tables, records and messages."""
MAX_TRANSFORMS = 100
"""Transformations one novelty may list."""


def load_novelty(source: str | Path) -> Novelty:
    """A novelty from a YAML file, a shipped novelty's name (``axe``), or YAML text.

    `extends: <novelty>` (a path relative to the file, or a shipped novelty's name) makes the
    document a variant of another novelty: deep-merged onto it as a spec onto the spec it
    extends, so the variant states only what differs and needs a name of its own. Only files
    and text resolve it; a definition recorded in a trajectory is read whole (read_novelty).
    """
    path = resolve_novelty_path(source)
    data, smap = load_yaml_file(path) if path else load_yaml_text(str(source), "<novelty>")
    if isinstance(data, dict) and "extends" in data and "novelty" not in data:
        raise smap.error(("extends",), "a novelty that extends another has no name of its own",
                         key=True, expected="novelty: <a name for the variant>")
    return read_novelty(*resolve_extends(data, smap, find=_shipped_novelty, kind="novelty"))


def _shipped_novelty(name: str) -> Path | None:
    """A base novelty's path: only a shipped name here (a relative path is tried first)."""
    from nesyworld.domains import find_novelty

    return find_novelty(name)


def read_novelty(data: Any, smap: SourceMap) -> Novelty:
    """A loaded novelty document, checked (see the module docstring)."""
    rd = SpecReader(smap)
    top = rd.mapping(data, (), NOVELTY_KEYS)
    for key in ("novelty", "category", "level"):
        if key not in top:
            raise rd.fail((), f"missing '{key}'", expected=f"{key}: {NOVELTY_KEYS[key]}")
    name = rd.string(top["novelty"], ("novelty",))
    if len(name) > MAX_NAME or not name.isprintable():
        raise rd.fail(("novelty",), "invalid name", found=name,
                      expected=f"a name of at most {MAX_NAME} printable characters on one line")
    for key, allowed in (("category", CATEGORIES), ("level", LEVELS)):
        if not isinstance(top[key], str) or top[key] not in allowed:
            raise rd.fail((key,), f"unknown {key}", found=top[key],
                          expected="one of " + ", ".join(allowed))
    description = top.get("description")
    if description is not None and not isinstance(description, str):
        raise rd.fail(("description",), "wrong type", found=description, expected="free text")
    inject = _inject(rd, top.get("inject"))
    changes = rd.mapping(top.get("changes"), ("changes",), SPEC_KEYS, nullable=True)
    if "extends" in changes:
        raise rd.fail(("changes", "extends"), "a novelty cannot change what a spec extends",
                      key=True, expected="the changes themselves (a partial spec)")
    transforms = _transforms(rd, top.get("transforms"))
    if inject.mid_episode:
        check_mid_episode(changes, transforms, smap, TRANSFORMS)
    return Novelty(
        name=name,
        category=top["category"],
        level=top["level"],
        description=description or "",
        inject=inject,
        changes=changes,
        transforms=tuple(transforms),
        source=smap.file,
        changes_map=smap.subtree(("changes",)),
        transform_marks=tuple(smap.locate(("transforms", i)) for i in range(len(transforms))),
    )


def _inject(rd: SpecReader, value: Any) -> Injection:
    raw = rd.mapping(value, ("inject",), {"episode": "the first episode it is in (0-based)",
                                          "step": "the step of every episode it arrives at"},
                     nullable=True)
    values = {key: rd.integer(v, ("inject", key), maximum=MAX_INJECT) for key, v in raw.items()}
    return Injection(values.get("episode", 0), values.get("step"))


def _transforms(rd: SpecReader, value: Any) -> list[tuple[str, dict[str, Any]]]:
    items = rd.sequence(value, ("transforms",), NOVELTY_KEYS["transforms"])
    if len(items) > MAX_TRANSFORMS:
        raise rd.fail(("transforms",), "too many transformations", found=len(items),
                      expected=f"at most {MAX_TRANSFORMS}")
    out = []
    for i, entry in enumerate(items):
        path = ("transforms", i)
        if not isinstance(entry, dict) or "kind" not in entry:
            raise rd.fail(path, "invalid transformation", found=entry,
                          expected="{kind: <registered transformation>, ...}")
        kind = entry["kind"]
        if not isinstance(kind, str) or kind not in TRANSFORMS:
            raise rd.fail((*path, "kind"), f"unknown transformation {shown(kind)}", found=kind,
                          expected="one of " + ", ".join(TRANSFORMS.names()))
        out.append((kind, check_params(kind, rd.mapping(entry, path), rd, path)))
    return out


def resolve_novelty_path(source: str | Path) -> Path | None:
    """Where a novelty argument points: a file, a shipped novelty, or None for YAML text. A
    name the file system cannot even look up (too long, a NUL byte) is a SpecError too."""
    from nesyworld.domains import find_novelty, shipped_novelties

    try:
        return resolve_source(source, find_novelty, "novelty", "`nesyworld novelties`",
                              shipped_novelties())
    except SpecError:
        raise
    except (OSError, ValueError) as err:
        raise SpecError(f"cannot look up novelty {shown(str(source))} ({type(err).__name__})",
                        expected="a novelty file, a shipped novelty's name or YAML text"
                        ) from None
