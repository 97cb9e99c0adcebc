"""MiniGrid's state as nesyworld's abstract state, over the vocabulary of the MiniGrid domain.

A cell's kind is its colour and object type (`yellow_key`, `red_door`), or the bare type for
walls, goal squares and lava, whose colour does not matter; an empty cell is `air`. A kind
the domain does not name (a novelty's new object) is still reported, by that same rule,
after the domain's names: unknown, but seen.

The map facts say what the agent can walk to: `behind_door(t)` when no thing of kind t is next
to a cell it can reach; `through_<door>(t)` when opening the closed doors of that kind next to
its region would bring a t within reach. A key, ball or box in the way is a gate too:
`through_<kind>(t)` when picking up the things of that kind next to the region would. They
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


def gate(obj: Any) -> bool:
    """Something in the way that an operator can take out of the way: a closed door (opened)
    or a key, ball or box (picked up)."""
    return obj is not None and ((obj.type == "door" and not obj.is_open)
                                or obj.type in PORTABLE)


def region(grid: Any, start: Cell, extra: Iterable[Cell] = ()) -> set[Cell]:
    """Cells the agent can reach from `start` through walkable cells and the `extra` ones."""
    allowed = set(extra)
    seen = {start}
    todo = deque([start])
    while todo:
        x, y = todo.popleft()
        for dx, dy in STEPS:
            c = (x + dx, y + dy)
            if c in seen or not (0 <= c[0] < grid.width and 0 <= c[1] < grid.height):
                continue
            if c in allowed or walkable(grid.get(*c)):
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


def through_facts(grid: Any, pos: Cell, near: set[Cell], reach: set[str],
                  gates: dict[str, list[Cell]], depth: int = 16) -> set[tuple[str, str]]:
    """`through_<gate>(t)`, gate by gate outward: the gates next to the agent's region
    first, then those next to the region all of them open onto, and so on (`depth`
    levels). A gate of a later level is only reached through an earlier one, so what it
    opens onto is counted as if the earlier ones were out of the way: a plan that takes the
    wrong earlier gate meets a refusal and replans."""
    out: set[tuple[str, str]] = set()
    known = set(near)
    cleared: list[Cell] = []
    for _ in range(depth):
        level = {k: [c for c in cells if c not in cleared and any(
            (c[0] + dx, c[1] + dy) in known for dx, dy in STEPS)] for k, cells in gates.items()}
        level = {k: cells for k, cells in level.items() if cells}
        if not level:
            break
        base = within_reach(grid, known) | reach
        for k, cells in level.items():
            wider = within_reach(grid, region(grid, pos, [*cleared, *cells])) - base
            out |= {(THROUGH_PREFIX + k, t) for t in wider}
        cleared += [c for cells in level.values() for c in cells]
        known = region(grid, pos, cleared)
    return out


def detect(env: Any, vocabulary: Sequence[str]) -> SymbolicState:
    """The abstract state of a MiniGrid env (its `unwrapped` is read)."""
    u = env.unwrapped
    grid = u.grid
    pos = (int(u.agent_pos[0]), int(u.agent_pos[1]))
    counts: dict[str, int] = {}
    gates: dict[str, list[Cell]] = {}
    props: set[tuple[str, str]] = set()
    for x in range(grid.width):
        for y in range(grid.height):
            obj = grid.get(x, y)
            if obj is None:
                continue
            k = kind(obj)
            counts[k] = counts.get(k, 0) + 1
            if gate(obj):
                gates.setdefault(k, []).append((x, y))
            if obj.type == "door":
                if obj.is_open:
                    props.add(("open", k))
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
    props |= through_facts(grid, pos, near, reach, gates)
    names = list(vocabulary)
    seen = sorted({*counts, *held, front} - set(names))
    names += seen
    index = {n: i for i, n in enumerate(names)}
    return SymbolicState(tuple(names), index[front], index[carrying],
                         tuple(counts.get(n, 0) for n in names),
                         tuple(held.get(n, 0) for n in names),
                         frozenset((p, index[k]) for p, k in props if k in index))
