"""Novelties: composable transformations of a world spec, injected on a schedule.

The open world is a base world plus transformations that may be novel to an agent. A
transformation maps a spec's raw document to a new one (layout, entities, recipes, actions,
dynamics, costs: everything a spec describes), so novelties compose by applying them in order,
and the result is validated like any spec, with errors located in the file that caused them.

A novelty file is YAML:

    novelty: axe
    category: detrimental          # detrimental | beneficial | nuisance (the paper's classes)
    level: objects                 # one of the eight SAIL-ON levels (LEVELS)
    description: Trees break only with a selected axe.
    inject: {episode: 0}           # or {step: 30}: mid-episode, at that step of every episode
    changes:                       # a partial spec, deep-merged (null removes an entry)
      entity_types:
        oak_log: {break_tool: axe}
    transforms:                    # registered transformations with parameters (optional)
      - {kind: scale_costs, factor: 2}

New behaviour comes from registered classes named in `changes` (a novelty package declares
them as entry points), never from module paths in the file.

This module composes and validates (`apply_novelties`) and blames (`blame_novelty`); the
novelty itself and the registered transformations are in `model`, reading a file in `reading`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.novelty.definition import (
    TRANSFORMS,
    Document,
    Injection,
    Novelty,
    TransformArgument,
    TransformFn,
    register_transform,
    remove_objects,
    scale_costs,
)
from nesyworld.world.novelty.reading import (
    CATEGORIES,
    LEVELS,
    NOVELTY_KEYS,
    load_novelty,
    resolve_novelty_path,
)
from nesyworld.world.spec.loader import build_spec, load_document
from nesyworld.world.spec.model import WorldSpec
from nesyworld.world.spec.yaml_source import SourceMap

MAX_NOVELTIES = 1_000
"""Novelties composed in one call: each is a deep copy and a merge of the whole document."""


def apply_novelties(spec: str | Path | Mapping[str, Any] | WorldSpec,
                    novelties: Iterable[Novelty | str | Path]) -> WorldSpec:
    """The spec transformed by each novelty in order (composition), validated."""
    if isinstance(spec, WorldSpec):
        if spec.source.startswith("<"):
            raise SpecError("apply_novelties needs a spec with a file, its name, or its "
                            "document; this WorldSpec was built from text",
                            found=spec.source, expected="a spec file, a shipped spec's name, "
                            "or a WorldSpec loaded from one")
        spec = spec.source
    base_doc, base_map = load_document(spec)
    doc, smap = base_doc, base_map
    applied: list[Novelty] = []
    for nov in _bounded(novelties):
        novelty = nov if isinstance(nov, Novelty) else load_novelty(nov)
        doc, smap = novelty.apply(doc, smap)
        applied.append(novelty)
    try:
        built = build_spec(doc, smap)
    except SpecError as err:
        raise blame_novelty(err, base_doc, base_map, applied) from err
    return WorldSpec(**{**built.__dict__, "source": base_map.file,
                        "novelties": tuple(n.source for n in applied)})


def blame_novelty(err: SpecError, doc: Document, smap: SourceMap,
                  novelties: Sequence[Novelty]) -> SpecError:
    """The error of a transformed spec, located in the novelty that caused it.

    A check of the whole spec (the goal became unreachable, say) fails at a line of the base
    spec, which is fine on its own; the user has to look at the novelty instead. So the
    novelties are applied one at a time until the spec breaks, and the error is moved to that
    novelty's changes, keeping the original place in its message. An error already located in
    a novelty file, or one the base spec has too, is returned as it is.
    """
    sources = {n.source for n in novelties}
    if not novelties or (err.location is not None and err.location.file in sources):
        return err
    try:
        build_spec(doc, smap)
    except SpecError:
        return err  # the base spec has the error itself
    for novelty in novelties:
        doc, smap = novelty.apply(doc, smap)
        try:
            build_spec(doc, smap)
        except SpecError:
            where = (novelty.changes_map.locate(()) if novelty.changes and novelty.changes_map
                     else Location(novelty.source, 1, 1))
            at = f" at {err.location}" if err.location else ""
            return SpecError(f"novelty '{novelty.name}' makes the spec invalid: {err.message}"
                             f" (at '{err.key_path}'{at})", location=where, found=err.found,
                             expected=err.expected)
    return err


def as_novelties(items: Sequence[Novelty | str | Path] | None) -> list[Novelty]:
    """Novelties from themselves, their files, their names or their text, each loaded."""
    return [n if isinstance(n, Novelty) else load_novelty(n) for n in _bounded(items or [])]


def _bounded(items: Iterable[Novelty | str | Path]) -> list[Novelty | str | Path]:
    out: list[Novelty | str | Path] = []
    for item in items:
        if len(out) == MAX_NOVELTIES:
            raise SpecError("too many novelties composed at once",
                            expected=f"at most {MAX_NOVELTIES:,}")
        out.append(item)
    return out


__all__ = ["CATEGORIES", "LEVELS", "NOVELTY_KEYS", "TRANSFORMS", "Document", "Injection",
           "Novelty", "TransformArgument", "TransformFn", "apply_novelties", "as_novelties",
           "blame_novelty", "load_novelty", "register_transform", "remove_objects",
           "resolve_novelty_path", "scale_costs"]
