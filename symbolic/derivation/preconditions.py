"""Making an operator's preconditions hold in a world, for the domain check.

symbolic/derivation/domain_check.py tests each derived operator on world
states where its preconditions hold; this module edits a world into such a state (places,
moves, turns the agent, sets properties, fills the inventory) and binds the operator's
variables to what the state then shows.
"""

from __future__ import annotations

import re

import numpy as np

from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.derivation.domain_check_map import read_off_map
from nesyworld.world import World
from nesyworld.world.actions.schema import (
    AIR,
    BEHIND_DOOR,
    FACING,
    HOLDING,
    INVENTORY,
    SPAWNING,
    WORLD,
    CountAtLeast,
    Distinct,
    Fact,
    OperatorSchema,
)
from nesyworld.world.simulation.layout import free_cells
from nesyworld.world.simulation.state import DIRECTIONS
from nesyworld.world.simulation.walkable import passable_regions

__all__ = ["LOOKAHEAD", "bind", "establish"]

LOOKAHEAD = re.compile(rf"^{FACING}_\d+$")
"""`facing_<d>`: what stands d cells ahead of the agent."""
_STEPS = tuple((int(r), int(c)) for r, c in DIRECTIONS)


def establish(
    world: World, op: OperatorSchema, rng: np.random.Generator
) -> tuple[dict[str, str], list[str]]:
    """Edit the state so the preconditions hold; returns the binding and what could not be
    arranged. World counts first (placements must not fill the cell the agent will face),
    then facing (which moves the agent), properties, holding and inventory; variables are
    bound to what the state then shows, and Distinct is repaired last."""
    types, st, a = world.types, world.state, world.main
    problems: list[str] = []
    pre = op.preconditions
    for c in pre:
        if isinstance(c, CountAtLeast) and c.fluent == WORLD and not _is_var(c.arg):
            tid = types.id(c.arg)
            while int((st.grid == tid).sum()) < c.value:
                if _place(world, tid, rng) is None:
                    problems.append(f"no free cell to place {c.arg}")
                    break
    for c in pre:  # `not behind_door(t)`: a t the agent can walk to
        if (isinstance(c, Fact) and c.predicate == BEHIND_DOOR and c.negated
                and abstract(world).holds(Fact(BEHIND_DOOR, c.args))
                and _place(world, types.id(c.args[0]), rng, reachable=True) is None):
            problems.append(f"no free cell in reach to place {c.args[0]}")
    for c in pre:
        if not isinstance(c, Fact):
            continue
        is_facing = c.predicate == FACING and not _is_var(c.args[0])
        if is_facing and not _face(world, types.id(c.args[0]), rng):
            problems.append(f"cannot face {c.args[0]}")
    for c in pre:
        if not isinstance(c, Fact):
            continue
        far = LOOKAHEAD.match(c.predicate) and not _is_var(c.args[0])
        if far and not _face_at(world, types.id(c.args[0]), int(c.predicate.split("_")[-1]),
                                rng):
            problems.append(f"cannot stand {c.predicate} from {c.args[0]}")
    for c in pre:
        if isinstance(c, Fact) and c.predicate == SPAWNING and not c.negated:
            _pend(world, types.id(c.args[0]), max(op.repeat, 1))
        elif isinstance(c, Fact) and not read_off_map(c.predicate, LOOKAHEAD):
            _set_property(world, c, rng)
    for c in pre:
        if isinstance(c, Fact) and c.predicate == HOLDING and not _is_var(c.args[0]):
            tid = types.id(c.args[0])
            st.selected[a] = tid
            if tid != 0:
                st.inventory[a, tid] = max(int(st.inventory[a, tid]), 1)
        elif isinstance(c, CountAtLeast) and c.fluent == INVENTORY and not _is_var(c.arg):
            tid = types.id(c.arg)
            extra = int(rng.integers(0, 3))
            st.inventory[a, tid] = max(int(st.inventory[a, tid]), c.value + extra)
    held_vars = {
        c.args[0]
        for c in pre
        if isinstance(c, Fact) and c.predicate == HOLDING and _is_var(c.args[0])
    }
    if held_vars and rng.random() < 0.5:  # vary what the variable is bound to
        owned = [int(t) for t in np.flatnonzero(st.inventory[a]) if t != 0]
        st.selected[a] = int(rng.choice([0, *owned]))
    binding = bind(world, op)
    for c in pre:
        if isinstance(c, Distinct) and binding.get(c.left, c.left) == binding.get(c.right, c.right):
            if c.left in held_vars:
                _select_other(world, binding.get(c.right, c.right), rng)
                binding = bind(world, op)
            else:
                problems.append(f"cannot make {c.left} differ from {c.right}")
    return binding, problems


def _pend(world: World, tid: int, steps: int) -> None:
    """A spawn of `tid` due in `steps` steps on the cell in front (what a break leaves)."""
    front = world.front(world.main)
    if front is not None:
        world.schedule(steps, front, tid, expect=int(world.state.grid[front]))


def _is_var(arg: str) -> bool:
    return arg.startswith("?")


def bind(world: World, op: OperatorSchema) -> dict[str, str]:
    """Variables take the types the state shows: the faced type or the selected item."""
    names, a = world.types.names, world.main
    binding: dict[str, str] = {}
    for c in op.preconditions:
        if isinstance(c, Fact) and c.args and _is_var(c.args[0]):
            if c.predicate == FACING:
                binding[c.args[0]] = names[world.front_type(a)]
            elif c.predicate == HOLDING:
                binding[c.args[0]] = names[int(world.state.selected[a])]
    return binding


def _select_other(world: World, avoid: str, rng: np.random.Generator) -> None:
    """Hold something other than `avoid`: empty hands, or an item (given one if needed)."""
    st, a, types = world.state, world.main, world.types
    if avoid != AIR:
        st.selected[a] = 0
        return
    owned = [int(t) for t in np.flatnonzero(st.inventory[a]) if t != 0]
    if not owned:
        items = [types.id(n) for n in next(iter(world.actions.values())).item_types()]
        items = items or list(range(1, len(types)))
        tid = int(rng.choice(items))
        st.inventory[a, tid] = 1
        owned = [tid]
    st.selected[a] = int(rng.choice(owned))


def _walkable(world: World) -> np.ndarray:
    """Cells the main agent may be moved to: walkable, free, or its own."""
    st = world.state
    walk = world.types.passable[st.grid].copy()
    walk[int(st.pos[world.main, 0]), int(st.pos[world.main, 1])] = True
    return walk


def _neighbours(cell: tuple[int, int], shape: tuple[int, ...]) -> list[tuple[int, tuple[int, int]]]:
    out = []
    for d, (dr, dc) in enumerate(_STEPS):
        r, c = cell[0] + dr, cell[1] + dc
        if 0 <= r < shape[0] and 0 <= c < shape[1]:
            out.append((d, (r, c)))
    return out


def _place(world: World, tid: int, rng: np.random.Generator, reachable: bool = False
           ) -> tuple[int, int] | None:
    """Put a `tid` on a free cell that keeps a walkable neighbour, so it can be faced (with
    `reachable`, a neighbour in the agent's walkable region)."""
    st = world.state
    me = (int(st.pos[world.main, 0]), int(st.pos[world.main, 1]))
    walk = _walkable(world)
    if reachable:
        w = st.grid.shape[1]
        region = passable_regions(world).of(me[0] * w + me[1]).cells
        walk = walk & np.array([[bool(region >> (r * w + c) & 1) for c in range(w)]
                                for r in range(st.grid.shape[0])])
    cells = [(int(r), int(c)) for r, c in free_cells(st.grid, world.spec, None)]
    cells = [
        c
        for c in cells
        if c != me and any(walk[n] and n != c for _, n in _neighbours(c, st.grid.shape))
    ]
    if not cells:
        return None
    cell = cells[int(rng.integers(len(cells)))]
    world.set_cell(cell, tid)
    return cell


def _face(world: World, tid: int, rng: np.random.Generator) -> bool:
    """Move the main agent beside a `tid` (placing one if there is none) and turn to it."""
    st, a = world.state, world.main
    me = (int(st.pos[a, 0]), int(st.pos[a, 1]))
    for attempt in range(2):
        targets = st.grid == tid
        targets[me] = False
        walk = _walkable(world)
        options = [
            (cell, d)
            for cell in [(r, c) for r, c in np.argwhere(walk).tolist()]
            for d, n in _neighbours(cell, st.grid.shape)
            if targets[n] and n != me
        ]  # air under the agent is not in front
        if options:
            cell, d = options[int(rng.integers(len(options)))]
            if cell != me:
                world.move_agent(a, cell)
            st.facing[a] = d
            return True
        if attempt or tid == 0 or _place(world, tid, rng) is None:
            return False
    return False


def _face_at(world: World, tid: int, distance: int, rng: np.random.Generator) -> bool:
    """Stand `distance` cells from a `tid`, facing it, with empty cells between."""
    st, a = world.state, world.main
    h, w = st.grid.shape
    me = (int(st.pos[a, 0]), int(st.pos[a, 1]))
    walk = _walkable(world)
    options = []
    for r, c in map(tuple, np.argwhere(st.grid == tid).tolist()):
        for d, (dr, dc) in enumerate(DIRECTIONS.tolist()):
            stand = (r - dr * distance, c - dc * distance)
            between = [(r - dr * k, c - dc * k) for k in range(1, distance)]
            if not (0 <= stand[0] < h and 0 <= stand[1] < w) or stand == (r, c):
                continue
            if (walk[stand] or stand == me) and all(
                    st.grid[b] == 0 and b != me for b in between):
                options.append((stand, d))
    if not options:
        return False
    stand, d = options[int(rng.integers(len(options)))]
    if stand != me:
        world.move_agent(a, stand)
    st.facing[a] = d
    return True


def _set_property(world: World, fact: Fact, rng: np.random.Generator) -> None:
    """`p(T)` true: the faced T (or some T) gets p; `not p(T)`: no T has p."""
    st, types = world.state, world.types
    tid = types.id(fact.args[0])
    if fact.negated:
        for r, c in np.argwhere(st.grid == tid).tolist():
            st.props.setdefault((r, c), {})[fact.predicate] = False
        return
    front = world.front(world.main)
    if front is not None and int(st.grid[front]) == tid:
        cell: tuple[int, int] | None = front
    else:
        found = np.argwhere(st.grid == tid).tolist()
        cell = (found[0][0], found[0][1]) if found else _place(world, tid, rng)
    if cell is not None:
        st.props.setdefault(cell, {})[fact.predicate] = True
