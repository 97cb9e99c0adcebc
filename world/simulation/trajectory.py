"""Trajectories: a seed plus the main agent's actions, saved as JSON and replayed exactly.

Because every random draw (layout, NPCs) comes from the world's seeded generator, the seed and
the actions determine every state. Digests of each state are stored as well, so a replay can
prove it reached the same states rather than just the same final inventory.

Novelties that changed the world are part of what determines the states, so a trajectory
records each (`injections`: the step it arrived at and its whole definition, recorded_novelty.py)
and a replay lets each arrive at its step again. `digests[k]` is the state after k actions and
after the novelties that arrived then. A file without `injections` is one without novelties.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.definition import Novelty
from nesyworld.world.simulation.json_input import Fields, read_json
from nesyworld.world.simulation.recorded_novelty import (
    RecordedNovelty,
    arrive_due,
    composed_spec,
    inject_now,
    injection_document,
    read_injections,
)
from nesyworld.world.simulation.state import WorldState
from nesyworld.world.simulation.world import Outcome, World

FORMAT = "nesyworld.trajectory/1"
EPISODE_FORMAT = "nesyworld.episode/1"
"""The studio's episode recordings (`nesyworld.hybrid.recording.writer`) carry a trajectory."""
WHAT = f"a trajectory ({FORMAT}) from `nesyworld play --record`"
MAX_BYTES = 256 * 2**20
MAX_ACTIONS = 1_000_000
"""A million steps is thousands of episodes' worth; the limits keep a bad file cheap."""
MAX_SEED = 2**64 - 1
TRAJECTORY_FIELDS = ("spec", "seed", "actions", "outcomes", "digests")
OPTIONAL_FIELDS = ("injections",)
"""Absent from files without novelties, so those stay as older versions wrote and read them."""
DIGEST = re.compile(r"[0-9a-f]{24}")


def state_digest(state: WorldState) -> str:
    """A short hash of everything that defines a state."""
    h = hashlib.blake2b(digest_size=12)
    for arr in (state.grid, state.pos, state.facing, state.under, state.inventory,
                state.selected):
        h.update(arr.tobytes())
    h.update(repr(sorted(state.props.items())).encode())
    h.update(repr([(s.due, s.cell, s.type_id, s.expect) for s in state.schedule]).encode())
    h.update(f"{state.step}:{state.gave_up}".encode())
    if state.damage or state.fired:  # only when used, so recorded digests stay valid
        h.update(repr((sorted(state.damage.items()), state.fired)).encode())
    return h.hexdigest()


@dataclass
class Trajectory:
    """One recorded episode of the main agent."""

    spec: str
    seed: int
    actions: list[str] = field(default_factory=list)
    outcomes: list[dict[str, object]] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    injections: list[RecordedNovelty] = field(default_factory=list)
    """The novelties that changed the world, in the order they compose (recorded_novelty.py)."""

    file: str = field(default="", compare=False, repr=False)
    """The file it was loaded from, to locate errors found while replaying; not saved."""

    def document(self) -> dict[str, Any]:
        """The fields as a file holds them (an episode recording's `trajectory` too)."""
        data: dict[str, Any] = {"spec": self.spec, "seed": self.seed,
                                "actions": list(self.actions),
                                "outcomes": [dict(o) for o in self.outcomes],
                                "digests": list(self.digests)}
        if self.injections:
            data["injections"] = [injection_document(r) for r in self.injections]
        return data

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"format": FORMAT, **self.document()}, indent=1))

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """A trajectory file, or the trajectory inside an episode recording; every field is
        checked, and a bad one is a SpecError with the file and the field path."""
        name = str(path)
        data = read_json(path, name, what=WHAT, max_bytes=MAX_BYTES)
        kind = data.get("format") if isinstance(data, dict) else None
        if kind == EPISODE_FORMAT:
            if not data.get("trajectory"):
                hosted = ":" in str(data.get("spec", ""))  # a Gymnasium id: module:EnvId
                why = ("it was recorded on an env that is not nesyworld's; replay "
                       "re-simulates nesyworld's worlds only" if hosted else "a novelty "
                       "changed its world and the recording does not say how")
                raise SpecError(f"this recording cannot be replayed ({why})", file=name,
                                key_path="trajectory",
                                expected="a recording to open with `nesyworld studio`")
            return trajectory_from_document(data["trajectory"], name, "trajectory")
        if kind != FORMAT:
            raise SpecError("not a nesyworld trajectory", file=name, key_path="format",
                            expected=f"'{FORMAT}'", found=kind)
        return trajectory_from_document({k: v for k, v in data.items() if k != "format"},
                                        name)


def trajectory_from_document(data: Any, file: str, path: str = "",
                             seedless: bool = False) -> Trajectory:
    """A Trajectory from its fields (`path` is where they sit in the file), every one
    checked; `seedless` accepts a null seed (a recording made without one, not replayable)."""
    f = Fields(file)

    def at(key: str) -> str:
        return f"{path}.{key}" if path else key

    doc = f.mapping(data, path, TRAJECTORY_FIELDS, OPTIONAL_FIELDS)
    spec = f.string(doc["spec"], at("spec"), 4096, "the path or name of the spec file")
    if "\n" in spec:
        raise f.fail(at("spec"), "not a file name", "the path or name of the spec file")
    seed = doc["seed"]
    if not (seedless and seed is None):
        seed = f.integer(seed, at("seed"), 0, MAX_SEED)
    actions = f.listing(doc["actions"], at("actions"), MAX_ACTIONS, "a list of action names")
    for i, a in enumerate(actions):
        f.string(a, f"{at('actions')}[{i}]", 200, "an action name")
    outcomes = f.listing(doc["outcomes"], at("outcomes"), len(actions),
                         "one outcome per action", length=len(actions))
    for i, o in enumerate(outcomes):
        here = f"{at('outcomes')}[{i}]"
        f.mapping(o, here, ("ok", "cost", "reason"))
        f.boolean(o["ok"], f"{here}.ok")
        f.number(o["cost"], f"{here}.cost", "the action's cost")
        if o["reason"] is not None:
            f.string(o["reason"], f"{here}.reason", 1000, "why the action was refused, or null")
    digests = f.listing(doc["digests"], at("digests"), len(actions) + 1,
                        "one state digest after the reset and one per action")
    for i, d in enumerate(digests):
        if not isinstance(d, str) or not DIGEST.fullmatch(d):
            raise f.fail(f"{at('digests')}[{i}]", "not a state digest",
                         "24 hexadecimal digits", d)
    injections = read_injections(doc.get("injections", []), f, at("injections"), len(actions))
    return Trajectory(spec, seed, list(actions), list(outcomes), list(digests), injections,
                      file=file)


class Recorder:
    """Drives a World and records what it does; use `step` instead of `world.step`, and
    `inject` to let a novelty arrive mid-episode."""

    def __init__(self, world: World, seed: int) -> None:
        self.world = world
        world.reset(seed)
        self.trajectory = Trajectory(world.spec.source, seed, digests=[state_digest(world.state)])

    def step(self, action: int | str) -> Outcome:
        name = action if isinstance(action, str) else self.world.action_names()[action]
        outcome = self.world.step(name)
        self.trajectory.actions.append(name)
        self.trajectory.outcomes.append({"ok": outcome.ok, "cost": outcome.cost,
                                         "reason": outcome.reason})
        self.trajectory.digests.append(state_digest(self.world.state))
        return outcome

    def inject(self, novelty: Novelty | str | Path) -> RecordedNovelty:
        """`novelty` (a Novelty, a shipped name, a file or YAML text) arrives now, the world
        keeping its state; recorded with its definition, so the replay needs no file."""
        traj = self.trajectory
        record = inject_now(self.world, traj.spec, traj.injections, novelty, len(traj.actions))
        traj.injections.append(record)
        traj.digests[-1] = state_digest(self.world.state)
        return record


class ReplayMismatch(AssertionError):
    """A replay reached a different state than the recording; `step` is the number of
    actions taken when it did (0: the initial state)."""

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step


def replay(trajectory: Trajectory, world: World | None = None) -> World:
    """Re-run a trajectory, letting each recorded novelty arrive at its step, and check every
    state against its recorded digest. An action the spec does not have, or a recorded novelty
    that does not apply, is a SpecError located in the trajectory's file. A `world` given
    must be of the spec with the novelties of the reset (`spec_world` makes it)."""
    if world is None:
        world = spec_world(trajectory)
    world.reset(trajectory.seed)
    arrived = arrivals(trajectory, world, 0)
    if trajectory.digests and state_digest(world.state) != trajectory.digests[0]:
        raise ReplayMismatch("the initial state differs: was the spec changed?"
                             + _after(trajectory, arrived), 0)
    for i, name in enumerate(trajectory.actions):
        if name not in world.action_names():
            raise SpecError("not an action of the spec", file=trajectory.file or "<trajectory>",
                            key_path=f"actions[{i}]", expected="one of the spec's actions",
                            found=name)
        world.step(name)
        arrived = arrivals(trajectory, world, i + 1)
        if i + 1 < len(trajectory.digests) and state_digest(world.state) != (
                trajectory.digests[i + 1]):
            raise ReplayMismatch(f"state after action {i} ({name}) differs from the recording"
                                 + _after(trajectory, arrived), i + 1)
    return world


def arrivals(trajectory: Trajectory, world: World, step: int) -> list[int]:
    """Let the novelties recorded at `step` (after that many actions) arrive in `world`, the
    replay's running world; the indices of those that arrived."""
    return arrive_due(world, trajectory.spec, trajectory.injections, step,
                      trajectory.file or "<trajectory>")


def _after(trajectory: Trajectory, arrived: list[int]) -> str:
    names = ", ".join(f"'{trajectory.injections[i].novelty.name}'" for i in arrived)
    return f" (after novelty {names} arrived)" if arrived else ""


def spec_world(trajectory: Trajectory) -> World:
    """The world of the trajectory's spec, with the novelties recorded at its reset; a spec
    that no longer loads is located at `spec`, a novelty that does not apply at its entry."""
    file = trajectory.file or "<trajectory>"
    at_reset = [i for i, r in enumerate(trajectory.injections) if r.reset]
    try:
        if at_reset:
            return World(composed_spec(trajectory.spec, trajectory.injections, None, file,
                                       at_reset[-1]))
        return World(trajectory.spec)
    except SpecError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SpecError(f"cannot load the spec ({type(exc).__name__})",
                        file=file, key_path="spec",
                        expected="a spec that still loads") from None
