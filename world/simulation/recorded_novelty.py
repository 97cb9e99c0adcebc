"""Novelties in a trajectory: when each arrived, and its whole definition, as JSON data.

A trajectory replays only if the replay meets the same worlds, so a novelty that changed the
world is recorded with it: the number of actions taken when it took effect (or that the world
was built with it, before the reset), and its definition as the document a novelty file holds.
The definition, not a path: a recording must replay without the novelty's file, and a path read
from a recording would let a file name the files a replay reads.

A recording is input like any file, so a recorded definition is read again with the novelty
file's own checks (`read_novelty`) and the spec's checks when it is applied; each failure is
one SpecError with the recording's file and the field path, like the rest of a trajectory.

Composition order is list order: the world after k actions is the spec transformed by every
recorded novelty that had arrived by then, in the order they are listed (which need not be the
order of their steps: NoveltyInjector composes in the order it was given the novelties).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.definition import Novelty
from nesyworld.world.novelty.mid_episode import arrive
from nesyworld.world.novelty.reading import read_novelty
from nesyworld.world.novelty.transforms import apply_novelties, as_novelties
from nesyworld.world.simulation.json_input import MAX_DEPTH, Fields, depth_over
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.bounds import MAX_NODES
from nesyworld.world.spec.model import WorldSpec
from nesyworld.world.spec.yaml_source import SourceMap

MAX_INJECTIONS = 16
"""Novelties one trajectory may record: each arrival composes all of them again, so the
replay's work grows with the square of their number; a handful is what runs use."""
MAX_TOTAL_NODES = MAX_NODES
"""Values in all the recorded definitions together: one novelty file's worth (bounds.py)."""
INJECTION_FIELDS = ("step", "reset", "novelty")
NESTING = 6
"""Levels above a definition in an episode recording (trajectory.injections[i].novelty), so
a recorded definition is at most MAX_DEPTH - NESTING deep and the whole file reads back."""


@dataclass(frozen=True)
class RecordedNovelty:
    """One novelty's arrival: after `step` actions (0: before the first), or, with `reset`,
    in the world from its reset on (step 0; the layout is the novelty's world's)."""

    step: int
    reset: bool
    novelty: Novelty


def novelty_document(novelty: Novelty) -> dict[str, Any]:
    """The novelty as the document its file holds; a ValueError when JSON cannot hold it as
    it is (a YAML date, a number key, a definition too large or too deep to read back)."""
    doc: dict[str, Any] = {"novelty": novelty.name, "category": novelty.category,
                           "level": novelty.level}
    if novelty.description:
        doc["description"] = novelty.description
    doc["inject"] = {"episode": novelty.inject.episode}
    if novelty.inject.step is not None:
        doc["inject"]["step"] = novelty.inject.step
    if novelty.changes:
        doc["changes"] = copy.deepcopy(dict(novelty.changes))
    if novelty.transforms:
        doc["transforms"] = [{"kind": kind, **copy.deepcopy(dict(params))}
                             for kind, params in novelty.transforms]
    try:
        same = json.loads(json.dumps(doc, allow_nan=False)) == doc
    except (TypeError, ValueError, RecursionError):
        same = False
    if not same or depth_over(doc, MAX_DEPTH - NESTING) or size(doc, MAX_NODES) is None:
        raise ValueError(f"novelty '{novelty.name}' cannot be recorded as JSON data")
    return doc


def injection_document(injection: RecordedNovelty) -> dict[str, Any]:
    """What a trajectory file holds for one arrival."""
    return {"step": injection.step, "reset": injection.reset,
            "novelty": novelty_document(injection.novelty)}


def recordable(novelties: Sequence[Novelty]) -> bool:
    """Whether `novelties` can be recorded together: each as JSON data (`novelty_document`),
    within MAX_INJECTIONS and MAX_TOTAL_NODES, so the file reads back."""
    total = 0
    try:
        for novelty in novelties:
            total += size(novelty_document(novelty), MAX_NODES) or 0
    except ValueError:
        return False
    return len(novelties) <= MAX_INJECTIONS and total <= MAX_TOTAL_NODES


def size(data: Any, limit: int) -> int | None:
    """The values, keys and containers of `data`, counted up to `limit` (a bounded walk); None
    past the limit, or for a string no UTF-8 file can hold (a lone surrogate from a JSON
    escape, which YAML never produces)."""
    stack, seen = [data], 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > limit:
            return None
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and any("\ud800" <= c <= "\udfff" for c in value):
            return None
    return seen


def read_injections(value: Any, f: Fields, path: str, n_actions: int
                    ) -> list[RecordedNovelty]:
    """A trajectory's `injections`, every field checked and every definition read again as a
    novelty file would be; errors name `f.file` and the field path."""
    items = f.listing(value, path, MAX_INJECTIONS, "a list of recorded novelties")
    out, budget = [], MAX_TOTAL_NODES
    for i, item in enumerate(items):
        here = f"{path}[{i}]"
        entry = f.mapping(item, here, INJECTION_FIELDS)
        reset = f.boolean(entry["reset"], f"{here}.reset")
        step = f.integer(entry["step"], f"{here}.step", 0, 0 if reset else n_actions)
        novelty, used = read_definition(entry["novelty"], f.file, f"{here}.novelty", budget)
        budget -= used
        out.append(RecordedNovelty(step, reset, novelty))
    return out


def read_definition(data: Any, file: str, path: str, budget: int = MAX_TOTAL_NODES
                    ) -> tuple[Novelty, int]:
    """A recorded novelty definition, checked by the novelty file reader, and its size; its
    errors are moved to the recording's field path (the JSON has no lines to point at)."""
    if not isinstance(data, dict):
        raise SpecError("not a novelty definition", file=file, key_path=path,
                        expected="an object with novelty, category, level, inject, changes")
    used = size(data, min(budget, MAX_NODES))
    if used is None:
        raise SpecError("a definition too large, or with text no file can hold", file=file,
                        key_path=path, expected=f"definitions of at most {MAX_TOTAL_NODES:,} "
                        "values in all, of UTF-8 text")
    try:
        return read_novelty(copy.deepcopy(data), SourceMap(file)), used
    except SpecError as err:
        raise SpecError(err.message, file=file, key_path=_join(path, err.key_path),
                        expected=err.expected, found=err.found) from None


def composed_spec(spec: str | Path, injections: Sequence[RecordedNovelty], step: int | None,
                  file: str, blamed: int) -> WorldSpec:
    """The spec with the novelties arrived by `step` actions (None: those of the reset), in
    recorded order; a failure is located at injection `blamed`, the one that just arrived."""
    arrived = [r.novelty for r in injections if r.reset or (step is not None and r.step <= step)]
    try:
        return apply_novelties(spec, arrived)
    except SpecError as err:
        if err.file != file:  # the base spec's own error, located in it
            raise
        inner = f" (spec field '{err.key_path}')" if err.key_path else ""
        raise SpecError(f"the recorded novelties do not apply: {err.message}{inner}", file=file,
                        key_path=f"injections[{blamed}]", expected=err.expected,
                        found=err.found) from None


def arrive_due(world: World, spec: str | Path, injections: Sequence[RecordedNovelty],
               step: int, file: str) -> list[int]:
    """Let the novelties recorded at `step` (after that many actions) arrive in the running
    world, as they did when it was recorded; the indices of those that arrived."""
    due = [i for i, r in enumerate(injections) if not r.reset and r.step == step]
    if due:
        new = composed_spec(spec, injections, step, file, due[-1])
        try:
            arrive(world, new, injections[due[0]].novelty)
        except SpecError as err:
            raise SpecError(err.message, file=file, key_path=f"injections[{due[0]}]",
                            expected=err.expected, found=err.found) from None
    return due


def inject_now(world: World, spec: str | Path, injections: Sequence[RecordedNovelty],
               novelty: Novelty | str | Path, step: int) -> RecordedNovelty:
    """`novelty` (a Novelty, a shipped name, a file or YAML text) arrives in the running
    `world` now, after `step` actions; `world` runs `spec` with `injections`. The record to
    append to them: the state digest taken after this is the one of `step`."""
    loaded = as_novelties([novelty])[0]
    record = RecordedNovelty(step, False, loaded)
    if not recordable([*(r.novelty for r in injections), loaded]):
        raise SpecError(f"novelty '{loaded.name}' cannot be recorded", file=loaded.source,
                        expected=f"at most {MAX_INJECTIONS} novelties in a recording, "
                        f"{MAX_TOTAL_NODES:,} values in all, of plain JSON data")
    arrive(world, apply_novelties(spec, [*(r.novelty for r in injections), loaded]), loaded)
    return record


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if key else path
