"""Gymnasium's Taxi as a `Host` (hybrid/boundary/interface.py), over the vocabulary of
domains/taxi/taxi.pddl.

Taxi's state is one integer that encodes the taxi's row and column, where the passenger is
(one of four stands, or in the taxi) and the destination; the detector decodes it. Taxi
names no actions, so this adapter does: south, north, east, west, pickup, dropoff, in
Taxi's order. An illegal pickup or dropoff costs -10 and changes nothing: accepted, as Taxi
refuses nothing, and the monitor sees what did not change.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from functools import cache
from typing import Any

from nesyworld.domains import DOMAINS_DIR
from nesyworld.hybrid.adapters.gym_host import GymHost
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.execution.skills import SkillStop
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.derivation.from_pddl import derivation_from_pddl
from nesyworld.world.actions.schema import AIR

DOMAIN = DOMAINS_DIR / "taxi" / "taxi.pddl"
ACTIONS = ("south", "north", "east", "west", "pickup", "dropoff")
MOVES = {"south": (1, 0), "north": (-1, 0), "east": (0, 1), "west": (0, -1)}
STANDS = ("red_stand", "green_stand", "yellow_stand", "blue_stand")
"""Taxi's locations R, G, Y, B, in its order."""
IN_TAXI = 4


@cache
def _domain() -> Derivation:
    return derivation_from_pddl(DOMAIN.read_text(), "domains/taxi/taxi.pddl", actions={
        "drive_to": "drive_to_{?s}", "pick_up": "pickup", "drop_off": "dropoff"})


def open_moves(desc: Any, row: int, col: int) -> list[tuple[str, tuple[int, int]]]:
    """The moves out of a cell that no wall blocks, and where each leads."""
    rows, cols = desc.shape[0] - 2, (desc.shape[1] - 1) // 2
    out = []
    for name, (dr, dc) in MOVES.items():
        r, c = row + dr, col + dc
        if not (0 <= r < rows and 0 <= c < cols):
            continue
        if dc and desc[1 + row, 2 * min(col, c) + 2] == b"|":
            continue
        out.append((name, (r, c)))
    return out


def drive(env: Any, target: tuple[int, int], max_steps: int = 50) -> Iterator[str | SkillStop]:
    """The moves of a shortest drive to `target`, one per step, from where the taxi is then."""
    u = env.unwrapped
    for _ in range(max_steps):
        row, col, _, _ = u.decode(u.s)
        if (row, col) == target:
            return
        first: dict[tuple[int, int], str] = {}
        todo = deque([(row, col)])
        seen = {(row, col)}
        while todo and target not in first:
            here = todo.popleft()
            for name, cell in open_moves(u.desc, *here):
                if cell not in seen:
                    seen.add(cell)
                    first[cell] = first.get(here, name)
                    todo.append(cell)
        if target not in first:
            yield SkillStop(f"no road to {target}")
            return
        yield first[target]
    yield SkillStop(f"gave up driving to {target} after {max_steps} steps")


class TaxiHost(GymHost):
    """The planning agent's view of a Taxi env (module docstring)."""

    give_up = "dropoff"
    """Taxi has no action that ends an episode; a dropoff the agent has no plan for is the
    least harmful (it changes nothing when illegal)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.domain = _domain()
        self.names = tuple(o.name for o in self.domain.objects)

    def detect(self) -> SymbolicState:
        u = self.env.unwrapped
        row, col, passenger, destination = u.decode(u.s)
        at = [STANDS[i] for i, loc in enumerate(u.locs) if tuple(loc) == (row, col)]
        index = {n: i for i, n in enumerate(self.names)}
        world = [0] * len(self.names)
        held = [0] * len(self.names)
        props = {("destination", index[STANDS[destination]])}
        if passenger == IN_TAXI:
            held[index["passenger"]] = 1
        elif passenger == destination:
            held[index["delivered"]] = 1
        else:
            world[index["passenger"]] = 1
            props.add(("waiting_at", index[STANDS[passenger]]))
        return SymbolicState(self.names, index[at[0] if at else AIR], index[AIR],
                             tuple(world), tuple(held), frozenset(props))

    def actions(self) -> tuple[str, ...]:
        return ACTIONS

    def goal(self) -> dict[str, int]:
        return {"delivered": 1}

    def snapshot(self) -> tuple[int, int]:
        return int(self.env.unwrapped.s), self.step_count

    def restore(self, snapshot: tuple[int, int]) -> None:
        self.env.unwrapped.s = snapshot[0]

    @property
    def step_count(self) -> int:
        try:
            return int(self.env.get_wrapper_attr("_elapsed_steps"))
        except AttributeError:  # no time limit wrapper counts them
            return 0

    def goal_reached(self) -> bool:
        u = self.env.unwrapped
        _, _, passenger, destination = u.decode(u.s)
        return bool(passenger == destination)

    def skill(self, op: GroundOperator, mode: str) -> Iterator[str | SkillStop]:
        action = op.env_action
        if action.startswith("drive_to_"):
            stand = STANDS.index(action[len("drive_to_"):])
            return drive(self.env, tuple(self.env.unwrapped.locs[stand]))
        return super().skill(op, mode)

