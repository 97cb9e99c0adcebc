"""A MiniGrid env as a `Host` (hybrid/boundary/interface.py): what the planning agent sees of
it and how it carries out the operators of domains/minigrid/minigrid.pddl.

MiniGrid refuses nothing: an action that cannot act (a pickup facing a wall) simply changes
nothing, so every step is accepted and the monitor finds the effects that did not happen.
Snapshots are copies of the grid, the agent's pose, what it carries and the step count.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from minigrid.core.constants import COLORS

from nesyworld.domains import DOMAINS_DIR
from nesyworld.hybrid.adapters.gym_host import GymHost
from nesyworld.hybrid.adapters.minigrid.detector import GOAL, detect, kind
from nesyworld.hybrid.adapters.minigrid.navigation import approach, face_free_cell
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.execution.skills import SkillStop
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.derivation.from_pddl import derivation_from_pddl
from nesyworld.world.actions.schema import (
    AIR,
    BEHIND_DOOR,
    THROUGH_PREFIX,
    WORLD,
    CountChange,
    Fact,
    OperatorSchema,
    SetFact,
)

DOMAIN = DOMAINS_DIR / "minigrid" / "minigrid.pddl"
ACTIONS = {"approach": "approach_{?x}", "pickup": "pickup", "drop": "drop",
           "enter_goal": "forward", "face_free_cell": "face_free_cell"}
"""Operators and the env action (or skill, for approach) that carries each out; opening and
unlocking a door are MiniGrid's toggle."""


PICK_UP = re.compile(r"(?:pick up|fetch|go get|get) (?:the|a|an) "
                     r"(?:(red|green|blue|purple|yellow|grey) )?(key|ball|box)\b")


def mission_goal(mission: str, z: SymbolicState) -> dict[str, int]:
    """{"yellow_key": 1} for "pick up the yellow key"; for an object named without a colour,
    the first such kind on the map; {"goal": 1} for a mission that names the goal square,
    and for any other."""
    m = PICK_UP.search(mission)
    if m is None or GOAL in mission.split():  # "get the key ... and go to the goal"
        return {GOAL: 1}
    colour, kind = m.groups()
    if colour:
        return {f"{colour}_{kind}": 1}
    on_map = [n for n in z.names if n.endswith("_" + kind) and z.count(WORLD, n) > 0]
    return {on_map[0]: 1} if on_map else {GOAL: 1}


@dataclass(frozen=True)
class MiniGridSnapshot:
    grid: Any
    pos: tuple[int, int]
    direction: int
    carrying: Any
    step_count: int


def env_action(op: str) -> str:
    return ACTIONS.get(op, "toggle" if op.startswith(("open_", "unlock_")) else op)


def with_doors(d: Derivation) -> Derivation:
    """Taking a gate out of the way brings within reach what was behind it: for each
    operator that opens a door kind D, or takes a thing of kind K off the map (a pickup),
    `when through_D(t): not behind_door(t)` for every kind t (the map effects of
    symbolic/derivation/map_effects.py, for this domain)."""
    things = [o.name for o in d.objects]
    out: list[OperatorSchema] = []
    for op in d.operators:
        cleared = [e.args[0] for e in op.effects if isinstance(e, SetFact)
                   and e.predicate == "open" and e.value]
        cleared += [e.arg for e in op.effects if isinstance(e, CountChange)
                    and e.fluent == WORLD and e.delta < 0]
        extra = [SetFact(BEHIND_DOOR, (t,), False, when=(Fact(THROUGH_PREFIX + gate, (t,)),))
                 for gate in cleared for t in things]
        out.append(OperatorSchema(op.name, op.params, op.preconditions,
                                  (*op.effects, *extra), op.action, op.provenance)
                   if extra else op)
    return d.with_operators(out)


@cache
def _domain() -> Derivation:
    text = DOMAIN.read_text()
    names = re.findall(r"\(:action\s+([\w-]+)", text)
    return with_doors(derivation_from_pddl(text, "domains/minigrid/minigrid.pddl",
                                           actions={n: env_action(n) for n in names}))


class MiniGridHost(GymHost):
    """The planning agent's view of a MiniGrid env (module docstring)."""

    give_up = "done"

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.domain = _domain()
        self.vocabulary = tuple(o.name for o in self.domain.objects)

    # --- the Environment ------------------------------------------------------------------
    def detect(self) -> Any:
        return detect(self.env, self.vocabulary)

    def actions(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.env.unwrapped.actions)

    def goal(self) -> dict[str, int]:
        """The task the env's mission states: holding the thing it names ("pick up the
        yellow key", "pick up a ball" for any colour the map has), or else standing on the
        goal square."""
        return mission_goal(str(getattr(self.env.unwrapped, "mission", "")), self.detect())

    def snapshot(self) -> MiniGridSnapshot:
        u = self.env.unwrapped
        return MiniGridSnapshot(copy.deepcopy(u.grid), (int(u.agent_pos[0]),
                                int(u.agent_pos[1])), int(u.agent_dir),
                                copy.deepcopy(u.carrying), int(u.step_count))

    def restore(self, snapshot: MiniGridSnapshot) -> None:
        u = self.env.unwrapped
        u.grid = copy.deepcopy(snapshot.grid)
        u.agent_pos = snapshot.pos
        u.agent_dir = snapshot.direction
        u.carrying = copy.deepcopy(snapshot.carrying)
        u.step_count = snapshot.step_count

    # --- the Host ---------------------------------------------------------------------------
    @property
    def step_count(self) -> int:
        return int(self.env.unwrapped.step_count)

    def skill(self, op: GroundOperator, mode: str) -> Iterator[str | SkillStop]:
        action = op.env_action
        if action.startswith("approach_"):
            return approach(self.env, action[len("approach_"):])
        if action == "face_free_cell":
            return face_free_cell(self.env)
        return super().skill(op, mode)

    # --- recordings (hybrid/recording/hosted_writer.py) -----------------------------------
    def frame(self) -> dict[str, Any]:
        """The map as rows of kinds (MiniGrid's y is the row), the agent's cell and facing
        (MiniGrid's right, down, left, up turned to north-first), what it carries."""
        u = self.env.unwrapped
        grid = [[kind(u.grid.get(x, y)) for x in range(u.grid.width)]
                for y in range(u.grid.height)]
        carried = kind(u.carrying) if u.carrying is not None else AIR
        return {"grid": grid, "pos": [int(u.agent_pos[1]), int(u.agent_pos[0])],
                "facing": (int(u.agent_dir) + 1) % 4,
                "inventory": {carried: 1} if carried != AIR else {}, "selected": carried}

    @staticmethod
    def appearance(name: str) -> tuple[str, list[int] | None]:
        """A glyph and a colour for a kind: MiniGrid's colours, its object's initial."""
        colour, _, obj = name.rpartition("_")
        glyphs = {"key": "k", "door": "D", "ball": "o", "box": "x", "floor": ".",
                  "wall": "W", "goal": "G", "lava": "L"}
        fixed = {"wall": [100, 100, 100], "goal": [0, 200, 0], "lava": [255, 128, 0]}
        if name == AIR:
            return " ", None
        rgb = COLORS.get(colour)
        return glyphs.get(obj, "?"), ([int(v) for v in rgb] if rgb is not None
                                      else fixed.get(obj))
