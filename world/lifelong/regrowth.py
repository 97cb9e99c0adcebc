"""Lifelong regrowth: the two things an ordinary `on_break` spawn does not do.

A lifelong world's regrowth is an `on_break` spawn of the type itself, marked with its mode.
An ordinary spawn is dropped when its cell no longer holds what it expects (a sapling does not
appear under an agent); in a world that never resets that would lose resources for good, one
agent visit at a time. So a regrowth due on a taken cell waits a step and tries again
("same"), or appears on a random free (air) cell drawn from the world's generator ("random"),
so resources keep their number while their places drift, as in Jelly Bean World. The batched
core has no kernel for either (`compile_world` refuses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nesyworld.world.simulation.state import Scheduled

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

AIR = 0  # type id 0 is always air (the spec loader puts it first)


def regrow(world: World, due: Scheduled) -> None:
    """Fire a due regrowth, or put it back one step later when it has nowhere to go."""
    st = world.state
    if due.regrow == "random":
        free = np.flatnonzero(st.grid.ravel() == AIR)
        if len(free):
            k = int(free[world.rng.integers(len(free))])
            world.set_cell(divmod(k, st.grid.shape[1]), due.type_id)
            return
    elif st.grid[due.cell] == due.expect:
        world.set_cell(due.cell, due.type_id)
        return
    st.schedule.append(Scheduled(st.step + 1, due.cell, due.type_id, due.expect, due.regrow))
