"""The domain check's handling of the facts read off the map (map_facts.py): running an
operator with the clock its own doing needs (a spawn), comparing door facts as the bounds they
are, and telling which preconditions no property edit can make true."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.world import World
from nesyworld.world.actions.schema import (
    BEHIND_DOOR,
    FACING,
    HOLDING,
    PARTLY_BEHIND_DOOR,
    SPAWNING,
    THROUGH_PREFIX,
    WAITS_NOTE,
    OperatorSchema,
)


def act_own_round(world: World, action: str, op: OperatorSchema) -> Any:
    """Run the action once, then the clock as far as the action's own doing goes: the
    schedule entries it made (an `on_break` spawn) and, for a waiting operator, the entries
    of the cell in front. Other entries and NPCs stay still, so a change is still the
    operator's own; a spawn due in the same step appears, as it does in the env."""
    st = world.state
    earlier = list(st.schedule)
    front = world.front(world.main)
    outcome = world.act(world.main, action)
    if not outcome.ok:
        return outcome
    own = [s for s in st.schedule if not any(s is e for e in earlier)]
    if WAITS_NOTE in op.notes:
        own += [s for s in earlier if s.cell == front and s in st.schedule]
    if own:
        others = [s for s in st.schedule if not any(s is o for o in own)]
        st.schedule = own
        fired, st.fired = st.fired, tuple(range(len(world.spec.events)))  # events: no one's doing
        world.end_round()
        st.schedule, st.fired = [*st.schedule, *others], fired
    return outcome


def door_bounds(expected: SymbolicState, observed: SymbolicState
                 ) -> tuple[SymbolicState, SymbolicState]:
    """Door facts compared as the bounds they are (map_effects.py): what lies behind which
    door is data for conditions, not an effect, so `partly_behind_door` and `through_<D>`
    are not compared; `behind_door(t)` is promised pessimistically, so observing it false
    where the effects say true is fine (another t was still in reach), never the reverse."""
    derived = (PARTLY_BEHIND_DOOR, BEHIND_DOOR)

    def split(z: SymbolicState) -> tuple[frozenset[tuple[str, int]], frozenset[int]]:
        kept = frozenset(p for p in z.props
                         if p[0] not in derived and not p[0].startswith(THROUGH_PREFIX))
        return kept, frozenset(t for p, t in z.props if p == BEHIND_DOOR)

    (e_props, e_behind), (o_props, o_behind) = split(expected), split(observed)
    if e_props == expected.props and o_props == observed.props:
        return expected, observed  # no door facts: nothing to bound
    if o_behind <= e_behind:
        e_behind = o_behind
    return (replace(expected, props=e_props | {(BEHIND_DOOR, t) for t in e_behind}),
            replace(observed, props=o_props | {(BEHIND_DOOR, t) for t in o_behind}))


def read_off_map(predicate: str, lookahead: re.Pattern[str]) -> bool:
    """Facts the abstraction computes from geometry or the schedule, not from properties:
    no property edit makes them true (a door fact holds or not where the sample stands)."""
    return (predicate in (FACING, HOLDING, SPAWNING, BEHIND_DOOR, PARTLY_BEHIND_DOOR)
            or predicate.startswith(THROUGH_PREFIX) or bool(lookahead.match(predicate)))
