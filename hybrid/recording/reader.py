"""Reading recordings back, with errors that say what is wrong and where.

The studio opens files a user picked, which may be truncated (a run killed mid-save), from
another tool, or hand-edited. Each problem is reported with the file, the line and column
(for broken JSON) or the path inside the document (for a wrong field), and what was expected,
so the page can show it instead of drawing nothing. Plain trajectories
(`nesyworld play --record`) open too: they are re-simulated into frames, without a plan.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nesyworld.hybrid.recording.writer import FORMAT, EpisodeRecording, FrameEncoder
from nesyworld.world.simulation.trajectory import FORMAT as TRAJECTORY_FORMAT
from nesyworld.world.simulation.trajectory import Trajectory, state_digest


class RecordingError(ValueError):
    """A recording that cannot be shown: `where` is file:line:column or file:field-path."""

    def __init__(self, message: str, where: str, expected: str = "") -> None:
        self.message, self.where, self.expected = message, where, expected
        text = f"{where}: {message}"
        super().__init__(text + (f" (expected {expected})" if expected else ""))


def read_recording(source: str | Path | bytes, name: str | None = None) -> EpisodeRecording:
    """A recording from a file path, or from the file's contents (`name` labels errors)."""
    if isinstance(source, Path) or (isinstance(source, str) and name is None):
        path = Path(source)
        name = str(path)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise RecordingError(f"cannot read the file: {exc.strerror}", name,
                                 "a readable recording file") from exc
    else:
        raw = source.encode() if isinstance(source, str) else source
    name = name or "<recording>"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(f"not text: byte {exc.start} is not UTF-8", name,
                             "a JSON recording from `nesyworld run --record`") from exc
    if not text.strip():
        raise RecordingError("the file is empty", name,
                             "a JSON recording from `nesyworld run --record`")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{name}:{exc.lineno}:{exc.colno}"
        # an unterminated string runs to the end of the file: JSON strings cannot hold a raw
        # newline, so a string that is never closed was cut off
        if exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string"):
            raise RecordingError("the file ends in the middle of the recording: it looks "
                                 "truncated (was the run stopped while saving?)", where,
                                 "a complete JSON document") from exc
        raise RecordingError(f"broken JSON: {exc.msg}", where, "valid JSON") from exc
    return recording_from_document(data, name)


def recording_from_document(data: Any, name: str) -> EpisodeRecording:
    if not isinstance(data, dict) or "format" not in data:
        raise RecordingError("not a nesyworld recording (no 'format' field)", name,
                             f"'{FORMAT}' or '{TRAJECTORY_FORMAT}'")
    if data["format"] == TRAJECTORY_FORMAT:
        return _from_trajectory(data, name)
    if data["format"] != FORMAT:
        raise RecordingError(f"unknown format '{data['format']}'", f"{name}:format",
                             f"'{FORMAT}' or '{TRAJECTORY_FORMAT}'")
    _Check(name).recording(data)
    fields = {k: v for k, v in data.items() if k != "format"}
    return EpisodeRecording(**fields)


class _Check:
    """Field checks that name the path of the first bad value."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, path: str, message: str, expected: str) -> RecordingError:
        return RecordingError(message, f"{self.name}:{path}", expected)

    def field(self, obj: dict[str, Any], key: str, kind: type | tuple[type, ...], path: str,
              expected: str) -> Any:
        if key not in obj:
            raise self.fail(f"{path}{key}", "missing", expected)
        value = obj[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (
                kind if isinstance(kind, tuple) else (kind,))):
            raise self.fail(f"{path}{key}", f"wrong type ({type(value).__name__})", expected)
        return value

    def recording(self, data: dict[str, Any]) -> None:
        known = set(EpisodeRecording.__dataclass_fields__) | {"format"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise self.fail(unknown[0], "unknown field", f"one of {sorted(known)}")
        self.field(data, "spec", str, "", "the spec's name")
        types = self.field(data, "types", list, "", "a list of entity types")
        if not types:
            raise self.fail("types", "empty", "at least one entity type")
        for i, t in enumerate(types):
            if not isinstance(t, dict):
                raise self.fail(f"types[{i}]", "wrong type", "an object with a name")
            self.field(t, "name", str, f"types[{i}].", "a type name")
        frames = self.field(data, "frames", list, "", "a list of frames")
        if not frames:
            raise self.fail("frames", "no frames", "at least the frame after the reset")
        shape = None
        for i, frame in enumerate(frames):
            shape = self.frame(frame, f"frames[{i}]", len(types), shape)
        for i, event in enumerate(self.field(data, "events", list, "", "a list of events")):
            path = f"events[{i}]"
            if not isinstance(event, dict):
                raise self.fail(path, "wrong type", "an object")
            k = self.field(event, "frame", int, f"{path}.", "a frame index")
            if not 0 <= k < len(frames):
                raise self.fail(f"{path}.frame", f"frame {k} does not exist",
                                f"0 to {len(frames) - 1}")
            self.field(event, "kind", str, f"{path}.", "an event kind")
            self.field(event, "text", str, f"{path}.", "the event's text")
            self.field(event, "data", dict, f"{path}.", "an object")
        for i, d in enumerate(self.field(data, "domains", list, "", "a list of domains")):
            self.field(d, "frame", int, f"domains[{i}].", "a frame index")
            self.field(d, "domain", str, f"domains[{i}].", "PDDL text")

    def frame(self, frame: Any, path: str, n_types: int,
              shape: tuple[int, int] | None) -> tuple[int, int]:
        if not isinstance(frame, dict):
            raise self.fail(path, "wrong type", "an object")
        grid = self.field(frame, "grid", list, f"{path}.", "rows of type indices")
        if not grid or not all(isinstance(row, list) for row in grid):
            raise self.fail(f"{path}.grid", "not a grid", "a non-empty list of rows")
        h, w = len(grid), len(grid[0])
        if shape is not None and (h, w) != shape:
            raise self.fail(f"{path}.grid", f"size {h}x{w} differs from the first frame's",
                            f"{shape[0]}x{shape[1]}")
        for r, row in enumerate(grid):
            if len(row) != w:
                raise self.fail(f"{path}.grid[{r}]", f"{len(row)} cells", f"{w} cells")
            for c, v in enumerate(row):
                if not isinstance(v, int) or not 0 <= v < n_types:
                    raise self.fail(f"{path}.grid[{r}][{c}]", f"bad type index {v!r}",
                                    f"0 to {n_types - 1}")
        pos = self.field(frame, "pos", list, f"{path}.", "[row, column]")
        if len(pos) != 2 or not (0 <= pos[0] < h and 0 <= pos[1] < w):
            raise self.fail(f"{path}.pos", f"{pos} is off the map", f"a cell of {h}x{w}")
        self.field(frame, "inventory", dict, f"{path}.", "item counts")
        self.field(frame, "step", int, f"{path}.", "the world step")
        return h, w


def _from_trajectory(data: dict[str, Any], name: str) -> EpisodeRecording:
    """Re-simulate a plain trajectory into frames (no agent events: it has none)."""
    try:
        traj = Trajectory(**{k: v for k, v in data.items() if k != "format"})
    except TypeError as exc:
        raise RecordingError(f"not a valid trajectory: {exc}", name,
                             "spec, seed, actions, outcomes, digests") from exc
    from nesyworld.world import World

    try:
        world = World(traj.spec)
    except Exception as exc:
        raise RecordingError(f"cannot load the trajectory's spec: {exc}", f"{name}:spec",
                             "a spec that still exists") from exc
    encoder = FrameEncoder()
    world.reset(traj.seed)
    if traj.digests and state_digest(world.state) != traj.digests[0]:
        raise RecordingError("the spec's initial state differs from the recorded one",
                             f"{name}:digests[0]", "the spec the trajectory was recorded on")
    frames = [encoder.frame(world)]
    for i, action in enumerate(traj.actions):
        if action not in world.action_names():
            raise RecordingError(f"unknown action '{action}'", f"{name}:actions[{i}]",
                                 "an action of the spec")
        outcome = world.step(action)
        frame = encoder.frame(world)
        frame.update(action=action, ok=outcome.ok, reason=outcome.reason or "",
                     reward=0.0)
        frames.append(frame)
    return EpisodeRecording(spec=world.spec.name, seed=traj.seed, agent="(trajectory)",
                            types=encoder.types, frames=frames,
                            result={"success": world.goal_reached(), "steps": len(frames) - 1},
                            trajectory={k: v for k, v in data.items() if k != "format"})
