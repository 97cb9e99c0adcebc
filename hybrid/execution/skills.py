"""Skills: how an operator drives the env's actions.

In "macro" mode every operator is its env action, one step (the paper's mode: approach is a
single step whose cost is the path length). In "primitive" mode an operator whose env action
can give a route (the approach class's `route`) is walked with primitive moves and a final
turn, one step each, re-planning the route every step because NPCs move; everything else is a
primitive action already. An operator with `repeat` > 1 (a block that takes several hits)
runs its action up to that many times, until the abstract state changes. The mapping comes
from the operator's env action and the class that implements it in the world's action
registry, not from a table of names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.world import World

Mode = Literal["macro", "primitive"]
RELATIVE_MOVES = {0: "forward", 1: "right", 2: "backward", 3: "left"}


@dataclass(frozen=True)
class SkillStop:
    """Why a skill ended without its action succeeding."""

    reason: str


Body = tuple[tuple[str, str, str | None], ...]
"""The agent's primitive actions as (name, kind, direction): what its env's adapter says its
moves and turns are (hybrid/boundary/world_adapter.py)."""


class Primitives:
    """The main agent's primitive moves and turns, as its env's adapter lists them."""

    def __init__(self, body: Body) -> None:
        self.move: dict[int, str] = {}
        self.turn: dict[str, str] = {}
        for name, kind, direction in body:
            if kind == "move":
                offset = {v: k for k, v in RELATIVE_MOVES.items()}[direction or "forward"]
                self.move[offset] = name
            elif kind == "rotate":
                self.turn[direction or "right"] = name

    @property
    def complete(self) -> bool:
        return len(self.move) == 4 and len(self.turn) == 2

    def toward(self, facing: int, direction: int) -> str:
        """One step toward the neighbouring cell in absolute `direction`."""
        return self.move[(direction - facing) % 4]

    def face(self, facing: int, direction: int) -> str | None:
        turn = (direction - facing) % 4
        if turn == 0:
            return None
        return self.turn["right"] if turn in (1, 2) else self.turn["left"]


def skill_actions(world: World, op: GroundOperator, mode: Mode, primitives: Primitives,
                  max_steps: int = 200) -> Iterator[str | SkillStop]:
    """The env actions that carry out `op`, one per step (the world is read afresh before
    each). Yields SkillStop when the skill cannot continue."""
    action = op.env_action
    try:
        index = world.action_index(action)
    except KeyError:
        yield SkillStop(f"the agent has no action '{action}'")
        return
    grounded = world.agent_actions()[index]
    route = getattr(grounded.action, "route", None)
    if mode == "macro" or route is None or not primitives.complete:
        yield from repeated(world, op)
        return
    for _ in range(max_steps):
        st = world.state
        a = world.main
        found = route(world, a, grounded.arg)
        if found is None:
            yield SkillStop(f"no reachable {grounded.arg_name}")
            return
        path, final = found
        facing = int(st.facing[a])
        if not path:
            turn = primitives.face(facing, final)
            if turn is None:
                return  # there, and facing it
            yield turn
            continue
        r, c = int(st.pos[a, 0]), int(st.pos[a, 1])
        nr, nc = path[0]
        direction = {(-1, 0): 0, (0, 1): 1, (1, 0): 2, (0, -1): 3}[(nr - r, nc - c)]
        yield primitives.toward(facing, direction)
    yield SkillStop(f"gave up walking to {grounded.arg_name} after {max_steps} steps")


def repeated(world: World, op: GroundOperator) -> Iterator[str]:
    """The operator's action `repeat` times (effects that take several hits), stopping early
    once the agent's own part of the abstract state has changed (what it faces or holds, its
    inventory, the properties the effects name): a block damaged before breaks sooner, and
    hitting on would strike whatever it left behind. World counts are left out: an NPC or an
    event may change them meanwhile."""
    return repeated_on(lambda: abstract(world), op)


def repeated_on(detect: Callable[[], SymbolicState], op: GroundOperator) -> Iterator[str]:
    """`repeated` for any env: `detect` reads the state (an adapter's detector)."""
    action, repeat = op.env_action, op.schema.repeat
    if repeat <= 1:
        yield action
        return
    named = {getattr(e, "predicate", None) for e in op.schema.effects}

    def own() -> tuple[object, ...]:
        z = detect()
        return z.facing, z.holding, z.inventory, {p for p in z.props if p[0] in named}

    start = own()
    yield action
    for _ in range(repeat - 1):
        if own() != start:
            return
        yield action
