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
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.novelty.mid_episode import check_mid_episode
from nesyworld.world.registry import Registry
from nesyworld.world.spec.loader import build_spec, load_document, resolve_source
from nesyworld.world.spec.model import WorldSpec
from nesyworld.world.spec.yaml_source import (
    SourceMap,
    load_yaml_file,
    load_yaml_text,
    merge_documents,
)

CATEGORIES = ("detrimental", "beneficial", "nuisance")
LEVELS = ("objects", "agents", "actions", "interactions", "relations", "environments", "goals",
          "events")
NOVELTY_KEYS = {"novelty", "category", "level", "description", "inject", "changes",
                "transforms"}

Document = dict[str, Any]
TransformFn = Callable[[Document, Mapping[str, Any]], Document]

TRANSFORMS: Registry = Registry("transformation", "nesyworld.transforms")


def register_transform(name: str, *, mid_episode: bool = False
                       ) -> Callable[[TransformFn], TransformFn]:
    """Register a document transformation usable as `transforms: [{kind: name, ...}]`.
    `mid_episode`: it changes only what a running world takes on (novelty/mid_episode.py), so
    a novelty injected at a step may use it."""

    def decorator(fn: TransformFn) -> TransformFn:
        holder = type(f"Transform_{name}", (), {"apply": staticmethod(fn),
                                                 "MID_EPISODE": mid_episode})
        TRANSFORMS.register(name)(holder)
        return fn

    return decorator


@register_transform("scale_costs", mid_episode=True)
def scale_costs(doc: Document, params: Mapping[str, Any]) -> Document:
    """Multiply the step cost of some (default: all) actions, per-target costs included: a
    cost-function change."""
    factor = float(params.get("factor", 1.0))
    names = params.get("actions")
    for name, action in (doc.get("actions") or {}).items():
        if names is None or name in names:
            action["cost"] = float(action.get("cost", 1.0)) * factor
            costs = action.get("costs")
            targets = costs.get("target") if isinstance(costs, dict) else None
            for target, cost in (targets if isinstance(targets, dict) else {}).items():
                if isinstance(cost, int | float):  # per-target costs scale alike
                    targets[target] = float(cost) * factor
    return doc


@register_transform("remove_objects")
def remove_objects(doc: Document, params: Mapping[str, Any]) -> Document:
    """Take every placement of some entity types off the map (e.g. no trees at all)."""
    objects = (doc.get("map") or {}).get("objects") or {}
    for name in params.get("types", []):
        objects.pop(name, None)
    return doc


@dataclass(frozen=True)
class Injection:
    """When a novelty enters: before episode `episode` (0-based), or, with `step`, at that
    step of every episode from `episode` on (mid-episode)."""

    episode: int = 0
    step: int | None = None

    @property
    def mid_episode(self) -> bool:
        return self.step is not None


@dataclass(frozen=True)
class Novelty:
    """One transformation of a world, with its classification and schedule."""

    name: str
    category: str
    level: str
    description: str = ""
    inject: Injection = field(default_factory=Injection)
    changes: Mapping[str, Any] = field(default_factory=dict)
    transforms: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    source: str = "<novelty>"
    changes_map: SourceMap | None = field(default=None, compare=False, repr=False)

    def apply(self, doc: Document, smap: SourceMap) -> tuple[Document, SourceMap]:
        """This novelty's transformation of a raw spec document."""
        out, out_map = doc, smap
        if self.changes:
            over_map = self.changes_map or SourceMap(self.source)
            out, out_map = merge_documents(doc, smap, copy.deepcopy(dict(self.changes)),
                                           over_map)
        for kind, params in self.transforms:
            out = TRANSFORMS.get(kind).apply(copy.deepcopy(out), params)
        return out, out_map


def load_novelty(source: str | Path) -> Novelty:
    """A novelty from a YAML file, a shipped novelty's name (``axe``), or YAML text."""
    path = resolve_novelty_path(source)
    data, smap = load_yaml_file(path) if path else load_yaml_text(str(source), "<novelty>")
    if not isinstance(data, dict):
        raise smap.error((), "wrong type", found=data, expected="a novelty mapping")
    for key in data:
        if key not in NOVELTY_KEYS:
            raise smap.error((key,), f"unknown key '{key}'", key=True,
                             expected="one of " + ", ".join(sorted(NOVELTY_KEYS)))
    for key in ("novelty", "category", "level"):
        if key not in data:
            raise smap.error((), f"missing '{key}'", expected=f"{key}: ...")
    name = data["novelty"]
    if not isinstance(name, str):
        raise smap.error(("novelty",), "wrong type", found=name, expected="a name")
    for key, allowed in (("category", CATEGORIES), ("level", LEVELS)):
        if data[key] not in allowed:
            raise smap.error((key,), f"unknown {key}", found=data[key],
                             expected="one of " + ", ".join(allowed))
    inject = data.get("inject") or {}
    if not isinstance(inject, dict) or set(inject) - {"episode", "step"}:
        raise smap.error(("inject",), "invalid injection", found=inject,
                         expected="{episode: N} and/or {step: N}")
    for key, value in inject.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise smap.error(("inject", key), "wrong type", found=value,
                             expected="a non-negative integer")
    changes = data.get("changes") or {}
    if not isinstance(changes, dict):
        raise smap.error(("changes",), "wrong type", found=changes,
                         expected="a partial world spec (a mapping)")
    transforms = []
    for i, t in enumerate(data.get("transforms") or []):
        if not isinstance(t, dict) or "kind" not in t:
            raise smap.error(("transforms", i), "invalid transformation", found=t,
                             expected="{kind: <registered transformation>, ...}")
        if t["kind"] not in TRANSFORMS:
            raise smap.error(("transforms", i, "kind"), f"unknown transformation "
                             f"'{t['kind']}'", found=t["kind"],
                             expected="one of " + ", ".join(TRANSFORMS.names()))
        transforms.append((t["kind"], {k: v for k, v in t.items() if k != "kind"}))
    if inject.get("step") is not None:
        check_mid_episode(changes, transforms, smap, TRANSFORMS)
    return Novelty(
        name=name,
        category=data["category"],
        level=data["level"],
        description=str(data.get("description", "")),
        inject=Injection(inject.get("episode", 0), inject.get("step")),
        changes=changes,
        transforms=tuple(transforms),
        source=smap.file,
        changes_map=smap.subtree(("changes",)),
    )


def resolve_novelty_path(source: str | Path) -> Path | None:
    from nesyworld.domains import find_novelty

    return resolve_source(source, find_novelty, "novelty", "`nesyworld novelties`")


def apply_novelties(spec: str | Path | Mapping[str, Any] | WorldSpec,
                    novelties: Iterable[Novelty | str | Path]) -> WorldSpec:
    """The spec transformed by each novelty in order (composition), validated."""
    if isinstance(spec, WorldSpec):
        if spec.source.startswith("<"):
            raise ValueError("apply_novelties needs a spec with a file, its name, or its "
                             "document; this WorldSpec was built from text")
        spec = spec.source
    base_doc, base_map = load_document(spec)
    doc, smap = base_doc, base_map
    applied: list[Novelty] = []
    for nov in novelties:
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
    return [n if isinstance(n, Novelty) else load_novelty(n) for n in (items or [])]
