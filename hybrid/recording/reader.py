"""Reading recordings back, with errors that say what is wrong and where.

The studio opens files a user picked, which may be truncated (a run killed mid-save), from
another tool, or hand-edited. Each problem is reported with the file, the line and column
(for broken JSON) or the path inside the document (for a wrong field), and what was expected,
so the page can show it instead of drawing nothing. Plain trajectories
(`nesyworld play --record`) open too: they are re-simulated into frames, without a plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from nesyworld.hybrid.knowledge.options import KNOWLEDGE_REGIMES, REFUSAL_MODES
from nesyworld.hybrid.recording.writer import FORMAT, EpisodeRecording, FrameEncoder
from nesyworld.world.errors import SpecError, shown
from nesyworld.world.simulation.json_input import Fields, read_bytes, read_json
from nesyworld.world.simulation.trajectory import FORMAT as TRAJECTORY_FORMAT
from nesyworld.world.simulation.trajectory import (
    arrivals,
    spec_world,
    state_digest,
    trajectory_from_document,
)

WHAT = "a JSON recording from `nesyworld run --record`"
MAX_BYTES = 64 * 2**20
"""The studio's upload limit too: a long episode on a large map is a few MB."""
MAX_SIDE = 1024
MAX_ITEMS = 100_000
MAX_TEXT = 100_000
"""PDDL domains and event texts are long strings; no field needs more."""
MAX_REPLAY = 20_000
"""Actions a plain trajectory may have to be re-simulated into frames for the page."""
FRAME_REQUIRED = ("step", "grid", "pos", "inventory")
FRAME_OPTIONAL = ("facing", "selected", "action", "ok", "reason", "reward", "operator",
                  "plan_index")


class RecordingError(ValueError):
    """A recording that cannot be shown: `where` is file:line:column or file:field-path.

    One line: `<where>: <message>; expected <expected>`."""

    def __init__(self, message: str, where: str, expected: str = "") -> None:
        self.message, self.where, self.expected = _line(message), _line(where), _line(expected)
        text = f"{self.where}: {self.message}"
        super().__init__(text + (f"; expected {self.expected}" if self.expected else ""))


def _line(text: str) -> str:
    return " ".join(str(text).split())[:500]


def from_spec_error(err: SpecError) -> RecordingError:
    """The same problem as a RecordingError (the studio shows those)."""
    where = str(err.location) if err.location else err.file
    if err.key_path and not err.location:
        where = f"{where}:{err.key_path}"
    found = "" if err.found is None else f", found {shown(err.found)}"
    return RecordingError(err.message + found, where, err.expected)


def read_recording(source: str | Path | bytes, name: str | None = None,
                   specs: Mapping[str, Path] | None = None) -> EpisodeRecording:
    """A recording from a file path, or from the file's contents (`name` labels errors).

    `specs`, when given, are the only spec files a plain trajectory may be re-simulated on
    (see `shipped_spec`): the studio passes the shipped specs for an upload, so a page's
    bytes never make it open a path they name. An episode recording needs no spec file: its
    frames and types are in the file."""
    try:
        if isinstance(source, Path) or (isinstance(source, str) and name is None):
            name = str(source)
            raw = read_bytes(source, name, what=WHAT, max_bytes=MAX_BYTES)
        else:
            raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
        name = name or "<recording>"
        data = read_json(raw, name, what=WHAT, max_bytes=MAX_BYTES)
        return recording_from_document(data, name, specs)
    except SpecError as err:
        raise from_spec_error(err) from None


def recording_from_document(data: Any, name: str,
                            specs: Mapping[str, Path] | None = None) -> EpisodeRecording:
    """An EpisodeRecording from a parsed document, every field checked (`specs`: see
    `read_recording`)."""
    if not isinstance(data, dict) or "format" not in data:
        raise RecordingError("not a nesyworld recording (no 'format' field)", name,
                             f"'{FORMAT}' or '{TRAJECTORY_FORMAT}'")
    try:
        if data["format"] == TRAJECTORY_FORMAT:
            return _from_trajectory(data, name, specs)
        if data["format"] != FORMAT:
            raise RecordingError(f"unknown format {shown(data['format'])}", f"{name}:format",
                                 f"'{FORMAT}' or '{TRAJECTORY_FORMAT}'")
        fields = _Check(name).recording(data)
    except SpecError as err:
        raise from_spec_error(err) from None
    return EpisodeRecording(**fields)


class _Check(Fields):
    """The recording's fields, each checked; failures name the path of the first bad value."""

    def recording(self, data: dict[str, Any]) -> dict[str, Any]:
        self.mapping(data, "", ("format", "spec", "agent", "types", "frames"),
                     ("seed", "novelties", "events", "domains", "problem", "result",
                      "trajectory", "knowledge", "refusals", "run_seed"))
        out = {k: v for k, v in data.items() if k != "format"}
        self.string(data["spec"], "spec", 4096, "the spec's name")
        self.string(data["agent"], "agent", 200, "the agent's name")
        for key, allowed in (("knowledge", ("", *KNOWLEDGE_REGIMES)),
                             ("refusals", REFUSAL_MODES)):
            if key in data and data[key] not in allowed:
                raise self.fail(key, f"unknown {key} {shown(data[key])}",
                                " or ".join(repr(a) for a in allowed))
        for key in ("seed", "run_seed"):
            out[key] = data.get(key)
            if out[key] is not None:
                self.integer(out[key], key, 0, 2**64 - 1)
        for i, n in enumerate(self.listing(data.get("novelties", []), "novelties", 64,
                                           "a list of novelty names")):
            self.string(n, f"novelties[{i}]", 4096, "a novelty name")
        types = self.listing(data["types"], "types", 4096, "a list of entity types")
        if not types:
            raise self.fail("types", "empty", "at least one entity type")
        for i, t in enumerate(types):
            self.type_entry(t, f"types[{i}]")
        frames = self.listing(data["frames"], "frames", MAX_ITEMS, "a list of frames")
        if not frames:
            raise self.fail("frames", "no frames", "at least the frame after the reset")
        shape = None
        for i, frame in enumerate(frames):
            shape = self.frame(frame, f"frames[{i}]", len(types), shape)
        for i, event in enumerate(self.listing(data.get("events", []), "events", MAX_ITEMS,
                                               "a list of events")):
            path = f"events[{i}]"
            self.mapping(event, path, ("frame", "kind", "text", "data"), ("step",))
            self.frame_index(event["frame"], f"{path}.frame", len(frames))
            if "step" in event:
                self.integer(event["step"], f"{path}.step", 0, 2**31 - 1)
            self.string(event["kind"], f"{path}.kind", 100, "an event kind")
            self.string(event["text"], f"{path}.text", MAX_TEXT, "the event's text")
            if not isinstance(event["data"], dict):
                raise self.fail(f"{path}.data", "not an object", "an object")
        for i, d in enumerate(self.listing(data.get("domains", []), "domains", MAX_ITEMS,
                                           "a list of domains")):
            self.mapping(d, f"domains[{i}]", ("frame", "domain"))
            self.frame_index(d["frame"], f"domains[{i}].frame", len(frames))
            self.string(d["domain"], f"domains[{i}].domain", MAX_TEXT * 10, "PDDL text")
        self.string(data.get("problem", ""), "problem", MAX_TEXT * 10, "PDDL text")
        if not isinstance(data.get("result", {}), dict):
            raise self.fail("result", "not an object", "an object (success, steps, reward)")
        if data.get("trajectory") is not None:
            trajectory_from_document(data["trajectory"], self.file, "trajectory",
                                     seedless=True)
        return out

    def type_entry(self, t: Any, path: str) -> None:
        self.mapping(t, path, ("name",), ("glyph", "color"))
        self.string(t["name"], f"{path}.name", 200, "a type name")
        if t.get("glyph") is not None:
            self.string(t["glyph"], f"{path}.glyph", 8, "one character")
        if t.get("color") is not None:
            self.int_rows(t["color"], f"{path}.color", (3,), 0, 255, "[red, green, blue]")

    def frame_index(self, value: Any, path: str, n_frames: int) -> int:
        if type(value) is int and not 0 <= value < n_frames:
            raise self.fail(path, f"frame {value} does not exist", f"0 to {n_frames - 1}")
        return self.integer(value, path, 0, n_frames - 1)

    def frame(self, frame: Any, path: str, n_types: int,
              shape: tuple[int, int] | None) -> tuple[int, int]:
        self.mapping(frame, path, FRAME_REQUIRED, FRAME_OPTIONAL)
        grid = self.listing(frame["grid"], f"{path}.grid", MAX_SIDE, "rows of type indices")
        if not grid or not isinstance(grid[0], list) or not grid[0]:
            raise self.fail(f"{path}.grid", "not a grid", "a non-empty list of rows")
        h, w = len(grid), len(grid[0])
        if shape is not None and (h, w) != shape:
            raise self.fail(f"{path}.grid", f"size {h}x{w} differs from the first frame's",
                            f"{shape[0]}x{shape[1]}")
        for r, row in enumerate(grid):
            self.listing(row, f"{path}.grid[{r}]", w, f"{w} cells", length=w)
            if all(type(v) is int for v in row) and min(row) >= 0 and max(row) < n_types:
                continue
            c, v = next((c, v) for c, v in enumerate(row)
                        if type(v) is not int or not 0 <= v < n_types)
            raise self.fail(f"{path}.grid[{r}][{c}]", f"bad type index {shown(v)}",
                            f"0 to {n_types - 1}")
        pos = frame["pos"]
        if (not isinstance(pos, list) or len(pos) != 2 or any(type(v) is not int for v in pos)
                or not (0 <= pos[0] < h and 0 <= pos[1] < w)):
            raise self.fail(f"{path}.pos", f"{shown(pos)} is off the map",
                            f"[row, column], a cell of {h}x{w}")
        inventory = frame["inventory"]
        if not isinstance(inventory, dict) or len(inventory) > 4096:
            raise self.fail(f"{path}.inventory", "not item counts", "an object of counts")
        for k, v in inventory.items():
            self.integer(v, f"{path}.inventory.{shown(k)}", 0, 2**31 - 1)
        self.integer(frame["step"], f"{path}.step", 0, 2**31 - 1)
        self.optional_fields(frame, path)
        return h, w

    def optional_fields(self, frame: dict[str, Any], path: str) -> None:
        if "facing" in frame:
            self.integer(frame["facing"], f"{path}.facing", 0, 3)
        for key in ("selected", "reason"):
            if key in frame:
                self.string(frame[key], f"{path}.{key}", 1000)
        for key in ("action", "operator"):
            if frame.get(key) is not None:
                self.string(frame[key], f"{path}.{key}", 1000, "a name or null")
        if "ok" in frame:
            self.boolean(frame["ok"], f"{path}.ok")
        if "reward" in frame:
            self.number(frame["reward"], f"{path}.reward", "the step's reward")
        if frame.get("plan_index") is not None:
            self.integer(frame["plan_index"], f"{path}.plan_index", 0, 2**31 - 1)


def shipped_spec(spec: str, specs: Mapping[str, Path]) -> Path | None:
    """The spec of `specs` that a trajectory's `spec` names, decided from the text alone:
    a name (``pogostick``), or a path that ends in ``<domain>/<name>.yaml`` of one of them
    (the absolute path a recording made on any checkout holds). Nothing is looked up on
    disk, so a name of any other file is None whether or not it exists."""
    if spec in specs:
        return specs[spec]
    parts = PurePosixPath(spec.replace("\\", "/")).parts
    if len(parts) < 2 or (len(parts) > 2 and parts[-3] != "domains"):
        return None
    return next((path for path in specs.values()
                 if (path.parent.name, path.name) == parts[-2:]), None)


def _from_trajectory(data: dict[str, Any], name: str,
                     specs: Mapping[str, Path] | None) -> EpisodeRecording:
    """Re-simulate a plain trajectory into frames (no agent events: it has none)."""
    fields = {k: v for k, v in data.items() if k != "format"}
    traj = trajectory_from_document(fields, name)
    if len(traj.actions) > MAX_REPLAY:
        raise RecordingError(f"{len(traj.actions)} actions to re-simulate", f"{name}:actions",
                             f"at most {MAX_REPLAY}; replay it with `nesyworld replay`")
    if specs is not None:
        found = shipped_spec(traj.spec, specs)
        if found is None:
            raise RecordingError("the trajectory's spec is not a shipped spec", f"{name}:spec",
                                 "a shipped spec's name (an uploaded trajectory is re-simulated "
                                 "on a shipped spec only), or an episode recording, which "
                                 "holds its frames")
        traj.spec = str(found)
    world = spec_world(traj)
    encoder = FrameEncoder()
    world.reset(traj.seed)
    arrivals(traj, world, 0)
    if traj.digests and state_digest(world.state) != traj.digests[0]:
        raise RecordingError("the spec's initial state differs from the recorded one",
                             f"{name}:digests[0]", "the spec the trajectory was recorded on")
    frames = [encoder.frame(world)]
    names = world.action_names()
    for i, action in enumerate(traj.actions):
        if action not in names:
            raise RecordingError(f"unknown action {shown(action)}", f"{name}:actions[{i}]",
                                 "an action of the spec")
        outcome = world.step(action)
        if arrivals(traj, world, i + 1):  # the recorded novelties, at their steps
            names = world.action_names()
        frame = encoder.frame(world)
        frame.update(action=action, ok=outcome.ok, reason=outcome.reason or "",
                     reward=0.0)
        frames.append(frame)
    return EpisodeRecording(spec=world.spec.name, seed=traj.seed, agent="(trajectory)",
                            novelties=[r.novelty.name for r in traj.injections],
                            types=encoder.types, frames=frames,
                            result={"success": world.goal_reached(), "steps": len(frames) - 1},
                            trajectory=fields)
