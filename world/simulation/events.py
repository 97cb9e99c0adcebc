"""Running a spec's `events:` (world/spec/events_section.py) at the end of each round.

An event fires once per episode, at the first end of a round at which the step has reached its
`at` and its `when` counts hold; `WorldState.fired` remembers which have fired, so snapshots,
saved states and `transition_to` keep that. Every choice an event makes (which things, which
of the equally near free cells) draws from the world's seeded generator, so a seed fixes it and
a restored snapshot draws as before. Things land only on air; a spawn or move that finds no
free cell does nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from nesyworld.world.spec.events_section import EventSpec

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

Cell = tuple[int, int]


def run_events(world: World) -> None:
    """Fire the events that are due now and have not fired this episode, in spec order."""
    st = world.state
    for i, event in enumerate(world.spec.events):
        if i not in st.fired and due(world, event):
            st.fired = tuple(sorted((*st.fired, i)))
            APPLY[event.kind](world, event)


def due(world: World, event: EventSpec) -> bool:
    """Both triggers hold: the step has reached `at`, the `when` counts are reached."""
    st, types = world.state, world.types
    if event.at is not None and st.step < event.at:
        return False
    inv = st.inventory[world.main]
    if any(inv[types.id(item)] < n for item, n in event.inventory.items()):
        return False
    if event.world:
        counts = world.counts()
        return all(counts[types.id(t)] >= n for t, n in event.world.items())
    return True


def nearest_free(world: World, origin: Cell | None) -> Cell | None:
    """A free (air) cell nearest `origin` by Chebyshev distance, the origin itself included;
    any free cell when `origin` is None. Ties are broken by the world's generator."""
    free = world.state.grid == 0
    if origin is not None:
        rows, cols = np.indices(free.shape)
        dist = np.maximum(abs(rows - origin[0]), abs(cols - origin[1]))
        if free.any():
            free &= dist == dist[free].min()
    cells = np.argwhere(free)
    if not len(cells):
        return None
    r, c = cells[int(world.rng.integers(len(cells)))]
    return (int(r), int(c))


def _origin(world: World, event: EventSpec) -> Cell | None:
    if event.near is not None:
        pos = world.state.pos[world.agent_names.index(event.near)]
        return (int(pos[0]), int(pos[1]))
    return event.cell


def _chosen(world: World, cells: np.ndarray, count: int | None) -> list[Cell]:
    """`count` of `cells` (all when None), drawn by the world's generator, in map order."""
    if count is not None and count < len(cells):
        cells = cells[np.sort(world.rng.choice(len(cells), size=count, replace=False))]
    return [(int(r), int(c)) for r, c in cells]


def _of_type(world: World, event: EventSpec) -> np.ndarray:
    return np.argwhere(world.state.grid == world.types.id(event.type))


def spawn(world: World, event: EventSpec) -> None:
    tid = world.types.id(event.type)
    for _ in range(event.count or 1):
        cell = nearest_free(world, _origin(world, event))
        if cell is None:
            return
        world.set_cell(cell, tid)


def remove(world: World, event: EventSpec) -> None:
    for cell in _chosen(world, _of_type(world, event), event.count):
        world.set_cell(cell, 0)


def move(world: World, event: EventSpec) -> None:
    """Agents of the type walk (are put) there; other things move with their properties and
    damage."""
    agents = [i for i, name in enumerate(world.agent_names)
              if world.spec.agents[name].type == event.type]
    if agents:
        picked = np.array(agents)
        if event.count is not None and event.count < len(agents):
            picked = np.sort(world.rng.choice(picked, size=event.count, replace=False))
        for agent in picked.tolist():
            cell = nearest_free(world, _origin(world, event))
            if cell is not None:
                world.move_agent(agent, cell)
        return
    st, tid = world.state, world.types.id(event.type)
    for src in _chosen(world, _of_type(world, event), event.count):
        dest = nearest_free(world, _origin(world, event))
        if dest is None:
            return
        props, damage = st.props.get(src), st.damage.get(src)
        world.set_cell(src, 0)
        world.set_cell(dest, tid)
        if props is not None:
            st.props[dest] = dict(props)
        if damage:
            st.damage[dest] = damage


def set_property(world: World, event: EventSpec) -> None:
    st = world.state
    for cell in _chosen(world, _of_type(world, event), event.count):
        st.props.setdefault(cell, {})[event.property] = event.value


APPLY: dict[str, Callable[[World, EventSpec], None]] = {
    "spawn": spawn, "remove": remove, "move": move, "set": set_property}
