"""Simulation state as numpy arrays plus a few small records, cheap to copy and to save."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
DIRECTIONS = np.array([(-1, 0), (0, 1), (1, 0), (0, -1)], dtype=np.int32)
FACING_NAMES = ("north", "east", "south", "west")


@dataclass
class Scheduled:
    """A cell change due at a step: `type_id` appears at `cell` if the cell still holds
    `expect` (a sapling only appears where the tree's cell is still empty)."""

    due: int
    cell: tuple[int, int]
    type_id: int
    expect: int
    # lifelong regrowth ("same": waits while the cell is taken; "random": a random free
    # cell), or "" for an ordinary spawn, dropped when the cell no longer holds `expect`
    regrow: str = ""


@dataclass
class WorldState:
    """Everything that changes during an episode.

    Agents are written into `grid` with their type id, so observations see them like any other
    entity; `under` keeps what floor (air, a door) each agent is standing on.
    """

    grid: np.ndarray  # int16 (H, W) type ids
    pos: np.ndarray  # int32 (N, 2) row, col
    facing: np.ndarray  # int8 (N,)
    under: np.ndarray  # int16 (N,)
    inventory: np.ndarray  # int32 (N, T)
    selected: np.ndarray  # int16 (N,), 0 (air) when nothing is selected
    props: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    schedule: list[Scheduled] = field(default_factory=list)
    step: int = 0
    gave_up: bool = False
    static_version: int = 0  # bumped when a non-agent cell changes (path caches key on it)
    key: int = 0  # the episode's 32-bit key: NPC draws hash it with the step
    # hits taken by things that need several to break (`hits:`), by cell; a new content of
    # the cell (World.set_cell) starts undamaged
    damage: dict[tuple[int, int], int] = field(default_factory=dict)
    fired: tuple[int, ...] = ()  # indices of the spec's events that fired this episode

    def copy(self) -> WorldState:
        return WorldState(
            grid=self.grid.copy(),
            pos=self.pos.copy(),
            facing=self.facing.copy(),
            under=self.under.copy(),
            inventory=self.inventory.copy(),
            selected=self.selected.copy(),
            props={k: dict(v) for k, v in self.props.items()},
            schedule=[copy.copy(s) for s in self.schedule],
            step=self.step,
            gave_up=self.gave_up,
            static_version=self.static_version,
            key=self.key,
            damage=dict(self.damage),
            fired=self.fired,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (lists and ints), for saving to a file."""
        out: dict[str, Any] = {
            "grid": self.grid.tolist(),
            "pos": self.pos.tolist(),
            "facing": self.facing.tolist(),
            "under": self.under.tolist(),
            "inventory": self.inventory.tolist(),
            "selected": self.selected.tolist(),
            "props": [[list(k), v] for k, v in self.props.items()],
            # a fifth entry only for `regrow`, so files of episodic worlds are unchanged
            "schedule": [[s.due, list(s.cell), s.type_id, s.expect, *([s.regrow] * bool(
                s.regrow))] for s in self.schedule],
            "step": self.step,
            "gave_up": self.gave_up,
            "static_version": self.static_version,
            "key": self.key,
        }
        # only when used, so files of worlds without multi-hit blocks or events are unchanged
        if self.damage:
            out["damage"] = [[list(k), v] for k, v in self.damage.items()]
        if self.fired:
            out["fired"] = list(self.fired)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> WorldState:
        return cls(
            grid=np.array(d["grid"], dtype=np.int16),
            pos=np.array(d["pos"], dtype=np.int32).reshape(-1, 2),
            facing=np.array(d["facing"], dtype=np.int8),
            under=np.array(d["under"], dtype=np.int16),
            inventory=np.array(d["inventory"], dtype=np.int32),
            selected=np.array(d["selected"], dtype=np.int16),
            props={(int(k[0]), int(k[1])): dict(v) for k, v in d["props"]},
            schedule=[Scheduled(int(a), (int(b[0]), int(b[1])), int(c), int(e),
                                str(rest[0]) if rest else "")
                      for a, b, c, e, *rest in d["schedule"]],
            step=int(d["step"]),
            gave_up=bool(d["gave_up"]),
            static_version=int(d["static_version"]),
            key=int(d.get("key", 0)),
            damage={(int(k[0]), int(k[1])): int(v) for k, v in d.get("damage", [])},
            fired=tuple(int(i) for i in d.get("fired", [])),
        )

    def equals(self, other: WorldState) -> bool:
        return (
            np.array_equal(self.grid, other.grid)
            and np.array_equal(self.pos, other.pos)
            and np.array_equal(self.facing, other.facing)
            and np.array_equal(self.under, other.under)
            and np.array_equal(self.inventory, other.inventory)
            and np.array_equal(self.selected, other.selected)
            and self.props == other.props
            and [(s.due, s.cell, s.type_id, s.expect, s.regrow) for s in self.schedule]
            == [(s.due, s.cell, s.type_id, s.expect, s.regrow) for s in other.schedule]
            and self.step == other.step
            and self.gave_up == other.gave_up
            and self.key == other.key
            and self.damage == other.damage
            and self.fired == other.fired
        )
