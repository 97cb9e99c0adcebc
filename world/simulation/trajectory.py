"""Trajectories: a seed plus the main agent's actions, saved as JSON and replayed exactly.

Because every random draw (layout, NPCs) comes from the world's seeded generator, the seed and
the actions determine every state. Digests of each state are stored as well, so a replay can
prove it reached the same states rather than just the same final inventory.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.json_input import Fields, read_json
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

    file: str = field(default="", compare=False, repr=False)
    """The file it was loaded from, to locate errors found while replaying; not saved."""

    def save(self, path: str | Path) -> None:
        data = {k: v for k, v in asdict(self).items() if k != "file"}
        Path(path).write_text(json.dumps({"format": FORMAT, **data}, indent=1))

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """A trajectory file, or the trajectory inside an episode recording; every field is
        checked, and a bad one is a SpecError with the file and the field path."""
        name = str(path)
        data = read_json(path, name, what=WHAT, max_bytes=MAX_BYTES)
        kind = data.get("format") if isinstance(data, dict) else None
        if kind == EPISODE_FORMAT:
            if not data.get("trajectory"):
                raise SpecError("this recording cannot be replayed (a novelty changed its "
                                "world)", file=name, key_path="trajectory",
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

    doc = f.mapping(data, path, TRAJECTORY_FIELDS)
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
    return Trajectory(spec, seed, list(actions), list(outcomes), list(digests), file=file)


class Recorder:
    """Drives a World and records what it does; use `step` instead of `world.step`."""

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


class ReplayMismatch(AssertionError):
    """A replay reached a different state than the recording."""


def replay(trajectory: Trajectory, world: World | None = None) -> World:
    """Re-run a trajectory and check every state against its recorded digest. An action the
    spec does not have is a SpecError located in the trajectory's file."""
    if world is None:
        world = spec_world(trajectory)
    world.reset(trajectory.seed)
    if trajectory.digests and state_digest(world.state) != trajectory.digests[0]:
        raise ReplayMismatch("the initial state differs: was the spec changed?")
    for i, name in enumerate(trajectory.actions):
        if name not in world.action_names():
            raise SpecError("not an action of the spec", file=trajectory.file or "<trajectory>",
                            key_path=f"actions[{i}]", expected="one of the spec's actions",
                            found=name)
        world.step(name)
        if i + 1 < len(trajectory.digests) and state_digest(world.state) != (
                trajectory.digests[i + 1]):
            raise ReplayMismatch(f"state after action {i} ({name}) differs from the recording")
    return world


def spec_world(trajectory: Trajectory) -> World:
    """The world of the trajectory's spec; a spec that no longer loads is located at `spec`."""
    try:
        return World(trajectory.spec)
    except SpecError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SpecError(f"cannot load the spec ({type(exc).__name__})",
                        file=trajectory.file or "<trajectory>", key_path="spec",
                        expected="a spec that still loads") from None
