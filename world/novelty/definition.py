"""What a novelty is: its schedule, its changes, and the registered transformations it names.

A transformation runs on a raw spec document, before the spec is validated: the document may
be anything a user's YAML made of it (a list where a mapping belongs, a string for a cost). So
each transformation declares the arguments it takes (`TransformArgument`), which
`load_novelty` checks with their file:line:column, and tolerates a malformed document by
leaving what it cannot use for `build_spec` to refuse, located. Anything else a
transformation raises is still turned into a SpecError at the novelty's entry for it: a
novelty is input, and a crash while applying it must not read as a bug of the caller.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nesyworld.world.errors import Location, SpecError, shown
from nesyworld.world.registry import Registry
from nesyworld.world.spec.bounds import MAX_STEPS
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.yaml_source import KeyPath, SourceMap, merge_documents

Document = dict[str, Any]
TransformFn = Callable[[Document, Mapping[str, Any]], Document]

TRANSFORMS: Registry = Registry("transformation", "nesyworld.transforms")

MAX_NAMES = 10_000
"""Names one transformation parameter may list (a spec has far fewer types or actions)."""
MAX_FACTOR = 1_000_000.0
"""The largest cost factor: a bigger one only turns every cost into an overflow."""
MAX_INJECT = MAX_STEPS
"""The latest episode or step a novelty may be injected at."""


@dataclass(frozen=True)
class TransformArgument:
    """One argument a registered transformation takes: `kind` is "number" (within [minimum,
    maximum]) or "names" (a list of names), `what` says what it means, for error messages."""

    kind: str
    what: str
    required: bool = False
    minimum: float = 0.0
    maximum: float = MAX_FACTOR


def register_transform(name: str, *, mid_episode: bool = False,
                       params: Mapping[str, TransformArgument] | None = None
                       ) -> Callable[[TransformFn], TransformFn]:
    """Register a document transformation usable as `transforms: [{kind: name, ...}]`.
    `mid_episode`: it changes only what a running world takes on (novelty/mid_episode.py), so
    a novelty injected at a step may use it. `params`: what it accepts, checked at load time
    (None: unchecked, the transformation validates its own parameters)."""

    def decorator(fn: TransformFn) -> TransformFn:
        holder = type(f"Transform_{name}", (), {"apply": staticmethod(fn),
                                                 "MID_EPISODE": mid_episode,
                                                 "PARAMS": params})
        TRANSFORMS.register(name)(holder)
        return fn

    return decorator


def check_params(kind: str, raw: Mapping[str, Any], rd: SpecReader, path: KeyPath
                 ) -> dict[str, Any]:
    """A transformation's parameters (its entry without `kind`), checked against its declared
    `TransformArgument`s; every failure is located at the offending key or value."""
    declared: Mapping[str, TransformArgument] | None = getattr(TRANSFORMS.get(kind), "PARAMS", None)
    params = {k: v for k, v in raw.items() if k != "kind"}
    if declared is None:
        return params
    allowed = ", ".join(["kind", *sorted(declared)])
    for key in params:
        if key not in declared:
            raise rd.fail((*path, key), f"unknown parameter {shown(key)} of transformation "
                          f"'{kind}'", key=True, expected="one of " + allowed)
    for key, param in declared.items():
        if param.required and key not in params:
            raise rd.fail(path, f"transformation '{kind}' needs '{key}'",
                          expected=f"{key}: {param.what}")
    out: dict[str, Any] = {}
    for key, value in params.items():
        param, at = declared[key], (*path, key)
        if param.kind == "number":
            out[key] = rd.number(value, at, minimum=param.minimum, maximum=param.maximum)
        elif value is None and not param.required:
            out[key] = None
        else:
            items = rd.sequence(value, at, f"a list of names ({param.what})", nullable=False)
            if len(items) > MAX_NAMES:
                raise rd.fail(at, "too many names", found=len(items),
                              expected=f"at most {MAX_NAMES:,}")
            out[key] = [rd.string(item, (*at, i)) for i, item in enumerate(items)]
    return out


def _scalable(value: Any) -> float | None:
    """`value` as a float when it is a finite number a transformation may scale, else None
    (build_spec refuses what is left, at its own location)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        out = float(value)
    except OverflowError:
        return None
    return out if math.isfinite(out) else None


@register_transform("scale_costs", mid_episode=True, params={
    "factor": TransformArgument("number", f"the cost multiplier, 0 to {MAX_FACTOR:g}"),
    "actions": TransformArgument("names", "the actions whose costs change (default: all)")})
def scale_costs(doc: Document, params: Mapping[str, Any]) -> Document:
    """Multiply the step cost of some (default: all) actions, per-target costs included: a
    cost-function change."""
    factor = float(params.get("factor", 1.0))
    names = params.get("actions")
    actions = doc.get("actions")
    for name, action in (actions.items() if isinstance(actions, dict) else ()):
        if not isinstance(action, dict) or (names is not None and name not in names):
            continue
        cost = _scalable(action.get("cost", 1.0))
        if cost is not None:
            action["cost"] = cost * factor
        costs = action.get("costs")
        targets = costs.get("target") if isinstance(costs, dict) else None
        if not isinstance(targets, dict):
            continue
        for target, value in targets.items():
            scaled = _scalable(value)
            if scaled is not None:  # per-target costs scale alike
                targets[target] = scaled * factor
    return doc


@register_transform("remove_objects", params={
    "types": TransformArgument("names", "the entity types taken off the map", required=True)})
def remove_objects(doc: Document, params: Mapping[str, Any]) -> Document:
    """Take every placement of some entity types off the map (e.g. no trees at all)."""
    layout = doc.get("map")
    objects = layout.get("objects") if isinstance(layout, dict) else None
    if isinstance(objects, dict):
        for name in params.get("types") or []:
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
    transform_marks: tuple[Location, ...] = field(default=(), compare=False, repr=False)
    """Where each of `transforms` is written, for errors raised while applying it."""

    def apply(self, doc: Document, smap: SourceMap) -> tuple[Document, SourceMap]:
        """This novelty's transformation of a raw spec document."""
        out, out_map = doc, smap
        if self.changes:
            over_map = self.changes_map or SourceMap(self.source)
            out, out_map = merge_documents(doc, smap, copy.deepcopy(dict(self.changes)),
                                           over_map)
        for i, (kind, params) in enumerate(self.transforms):
            out = self._transform(i, kind, params, out)
        return out, out_map

    def _transform(self, i: int, kind: str, params: Mapping[str, Any], doc: Document
                   ) -> Document:
        where = (self.transform_marks[i] if i < len(self.transform_marks)
                 else Location(self.source, 1, 1))
        try:
            out = TRANSFORMS.get(kind).apply(copy.deepcopy(doc), params)
        except SpecError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError,
                RecursionError) as err:  # a plugin's transformation choking on this document
            raise SpecError(f"transformation '{kind}' of novelty '{self.name}' failed on "
                            f"this spec ({type(err).__name__}: {shown(str(err))})",
                            location=where, key_path=f"transforms.{i}",
                            expected="a spec document the transformation can change") from None
        if not isinstance(out, dict):
            raise SpecError(f"transformation '{kind}' returned no spec document",
                            location=where, key_path=f"transforms.{i}", found=type(out).__name__,
                            expected="a mapping (the transformed spec)")
        return out
