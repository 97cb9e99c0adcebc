"""MiniGrid's state as nesyworld's abstract state, over the vocabulary of the MiniGrid domain.

A cell's kind is its colour and object type (`yellow_key`, `red_door`), or the bare type for
walls, goal squares and lava, whose colour does not matter; an empty cell is `air`. A kind
the domain does not name (a novelty's new object) is still reported, by that same rule,
after the domain's names: unknown, but seen.

The map facts say what the agent can walk to: `behind_door(t)` when no thing of kind t is next
to a cell it can reach; `through_<door>(t)` when opening the closed doors of that kind next to
its region would bring a t within reach. A key, ball or box in the way does not count as a
door: the agent can pick it up (the walk to something then goes around it or fails). They
are read afresh each state, as nesyworld's own detector reads them
(symbolic/derivation/map_facts.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.world.actions.schema import AIR, BEHIND_DOOR, THROUGH_PREFIX

BARE = frozenset({"wall", "goal", "lava"})
"""Object types named without their colour."""
GOAL = "goal"
Cell = tuple[int, int]
STEPS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
"""MiniGrid's directions, in its order: right, down, left, up (x, y)."""


def kind(obj: Any) -> str:
    if obj is None or obj.type == "empty":
        return AIR
    return str(obj.type) if obj.type in BARE else f"{obj.color}_{obj.type}"


PORTABLE = frozenset({"key", "ball", "box"})


def walkable(obj: Any) -> bool:
    """A cell the agent may walk through on the way to something: empty, an open door, a
    floor tile. Not the goal (stepping on it ends the episode) and not lava."""
    return obj is None or (obj.can_overlap() and obj.type not in ("goal", "lava"))


def clearable(obj: Any) -> bool:
    """Walkable, or in the way only until it is picked up (a key, a ball, a box)."""
    return walkable(obj) or obj.type in PORTABLE


def region(grid: Any, start: Cell, extra: Iterable[Cell] = ()) -> set[Cell]:
    """Cells the agent could reach from `start` through walkable cells, the `extra` ones and
    things it can pick up out of the way: what is behind a door is a matter of doors."""
    allowed = set(extra)
    seen = {start}
    todo = deque([start])
    while todo:
        x, y = todo.popleft()
        for dx, dy in STEPS:
            c = (x + dx, y + dy)
            if c in seen or not (0 <= c[0] < grid.width and 0 <= c[1] < grid.height):
                continue
            if c in allowed or clearable(grid.get(*c)):
                seen.add(c)
                todo.append(c)
    return seen


def within_reach(grid: Any, cells: set[Cell]) -> set[str]:
    """Kinds of the things next to (or on) a cell of `cells`."""
    out: set[str] = set()
    for x, y in cells:
        for dx, dy in ((0, 0), *STEPS):
            c = (x + dx, y + dy)
            if 0 <= c[0] < grid.width and 0 <= c[1] < grid.height:
                obj = grid.get(*c)
                if obj is not None:
                    out.add(kind(obj))
    return out


def detect(env: Any, vocabulary: Sequence[str]) -> SymbolicState:
    """The abstract state of a MiniGrid env (its `unwrapped` is read)."""
    u = env.unwrapped
    grid = u.grid
    pos = (int(u.agent_pos[0]), int(u.agent_pos[1]))
    counts: dict[str, int] = {}
    doors: dict[str, list[Cell]] = {}
    props: set[tuple[str, str]] = set()
    for x in range(grid.width):
        for y in range(grid.height):
            obj = grid.get(x, y)
            if obj is None:
                continue
            k = kind(obj)
            counts[k] = counts.get(k, 0) + 1
            if obj.type == "door":
                if obj.is_open:
                    props.add(("open", k))
                else:
                    doors.setdefault(k, []).append((x, y))
                if obj.is_locked:
                    props.add(("locked", k))
    carrying = kind(u.carrying) if u.carrying is not None else AIR
    fx, fy = int(u.front_pos[0]), int(u.front_pos[1])
    inside = 0 <= fx < grid.width and 0 <= fy < grid.height
    front = kind(grid.get(fx, fy)) if inside else "wall"
    held: dict[str, int] = {carrying: 1} if carrying != AIR else {}
    here = grid.get(*pos)
    if here is not None and here.type == GOAL:
        held[GOAL] = 1  # the task: stand on the goal square
    near = region(grid, pos)
    reach = within_reach(grid, near)
    for k, n in counts.items():
        if n > 0 and k not in reach:
            props.add((BEHIND_DOOR, k))
    for door, cells in doors.items():
        gates = [c for c in cells if any((c[0] + dx, c[1] + dy) in near for dx, dy in STEPS)]
        if gates:
            wider = within_reach(grid, region(grid, pos, gates)) - reach
            props |= {(THROUGH_PREFIX + door, k) for k in wider}
    names = list(vocabulary)
    seen = sorted({*counts, *held, front} - set(names))
    names += seen
    index = {n: i for i, n in enumerate(names)}
    return SymbolicState(tuple(names), index[front], index[carrying],
                         tuple(counts.get(n, 0) for n in names),
                         tuple(held.get(n, 0) for n in names),
                         frozenset((p, index[k]) for p, k in props if k in index))
