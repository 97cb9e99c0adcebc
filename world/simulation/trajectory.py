"""Trajectories: a seed plus the main agent's actions, saved as JSON and replayed exactly.

Because every random draw (layout, NPCs) comes from the world's seeded generator, the seed and
the actions determine every state. Digests of each state are stored as well, so a replay can
prove it reached the same states rather than just the same final inventory.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nesyworld.world.simulation.state import WorldState
from nesyworld.world.simulation.world import Outcome, World

FORMAT = "nesyworld.trajectory/1"
EPISODE_FORMAT = "nesyworld.episode/1"
"""The studio's episode recordings (`nesyworld.hybrid.recording.writer`) carry a trajectory."""


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

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"format": FORMAT, **asdict(self)}, indent=1))

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        data = json.loads(Path(path).read_text())
        kind = data.pop("format", None)
        if kind == EPISODE_FORMAT:
            if not data.get("trajectory"):
                raise ValueError(f"{path}: this recording cannot be replayed (a novelty "
                                 "changed its world); open it with `nesyworld studio`")
            data = data["trajectory"]
        elif kind != FORMAT:
            raise ValueError(f"{path}: not a nesyworld trajectory ({FORMAT})")
        return cls(**data)


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
    """Re-run a trajectory and check every state against its recorded digest."""
    world = world if world is not None else World(trajectory.spec)
    world.reset(trajectory.seed)
    if trajectory.digests and state_digest(world.state) != trajectory.digests[0]:
        raise ReplayMismatch("the initial state differs: was the spec changed?")
    for i, name in enumerate(trajectory.actions):
        world.step(name)
        if i + 1 < len(trajectory.digests) and state_digest(world.state) != (
                trajectory.digests[i + 1]):
            raise ReplayMismatch(f"state after action {i} ({name}) differs from the recording")
    return world
