"""Walking to a thing in MiniGrid: the shortest path, through cells the agent may walk, to a
cell next to a thing of the wanted kind, then a turn to face it. One action per step, the
grid read afresh before each, so a path that closes is walked around."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from nesyworld.hybrid.adapters.minigrid.detector import STEPS, Cell, kind, walkable
from nesyworld.hybrid.execution.skills import SkillStop


def route(grid: Any, start: Cell, target: str) -> tuple[list[Cell], Cell] | None:
    """(the cells to walk, the cell of the target to face), or None when none is in reach."""
    parent: dict[Cell, Cell | None] = {start: None}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        for dx, dy in STEPS:
            c = (here[0] + dx, here[1] + dy)
            if not (0 <= c[0] < grid.width and 0 <= c[1] < grid.height):
                continue
            obj = grid.get(*c)
            if obj is not None and kind(obj) == target:
                path: list[Cell] = []
                at: Cell | None = here
                while at is not None and at != start:
                    path.append(at)
                    at = parent[at]
                return path[::-1], c
            if c not in parent and walkable(obj):
                parent[c] = here
                todo.append(c)
    return None


def turn(direction: int, wanted: int) -> str | None:
    """The turn toward `wanted` (None when already facing it)."""
    if direction == wanted:
        return None
    return "right" if (wanted - direction) % 4 in (1, 2) else "left"


def approach(env: Any, target: str, max_steps: int = 400) -> Iterator[str | SkillStop]:
    """The actions that bring the agent next to a `target` and facing it."""
    for _ in range(max_steps):
        u = env.unwrapped
        pos = (int(u.agent_pos[0]), int(u.agent_pos[1]))
        found = route(u.grid, pos, target)
        if found is None:
            yield SkillStop(f"no reachable {target}")
            return
        path, goal = found
        step_to = path[0] if path else goal
        wanted = STEPS.index((step_to[0] - pos[0], step_to[1] - pos[1]))
        action = turn(int(u.agent_dir), wanted)
        if action is None and not path:
            return  # there, and facing it
        yield action or "forward"
    yield SkillStop(f"gave up walking to {target} after {max_steps} steps")


def face_free_cell(env: Any) -> Iterator[str | SkillStop]:
    """Turn until the cell in front is empty (at most three turns), else step to a free cell
    next to this one and look again."""
    for _ in range(8):
        u = env.unwrapped
        x, y = int(u.front_pos[0]), int(u.front_pos[1])
        inside = 0 <= x < u.grid.width and 0 <= y < u.grid.height
        if inside and u.grid.get(x, y) is None:
            return
        yield "left"
    yield SkillStop("no empty cell around the agent")
