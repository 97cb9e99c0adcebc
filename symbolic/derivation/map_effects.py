"""What derived operators do to the map facts (`map_facts.py`), added to every operator.

The action classes declare what they do to the cell in front; what that means for doors and
for pending spawns follows from the same effects, whatever class declared them, so it is
added here once rather than in each class:

- an operator that turns a closed door type D (`closed_door_types`) in front into a walkable
  type opens it: for every t, `when through_D(t): not behind_door(t)`. `through_D(t)` holds
  only when opening *any* D next to the agent's region reaches some t, so it does not matter
  which D the approach before it found;
- an operator that removes the t in front may have removed the last t the agent could walk
  to: `when partly_behind_door(t): behind_door(t)`. This is pessimistic (other t may still be
  reachable), which keeps plans sound: a plan then opens the door first;
- an operator that changes what the agent faces (by moving it or by changing the cell) ends
  `spawning(t)` for every spawn t it does not itself start: the new front cell is not one a
  spawn waits for.

Door facts are those of the state a plan starts from. They stay true for the doors that state
shows; a plan that first opens another passage (breaks a wall) may meet doors they do not
describe, and its approach is then refused and the agent replans. Only declared doors are
modelled: a fence around a tree keeps the approach's "may be refused" note.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from nesyworld.world import WorldSpec
from nesyworld.world.actions.movement import closed_door_types
from nesyworld.world.actions.schema import (
    BEHIND_DOOR,
    FACING,
    PARTLY_BEHIND_DOOR,
    SPAWNING,
    THROUGH_PREFIX,
    WORLD,
    CountChange,
    Effect,
    Fact,
    OperatorSchema,
    SetFact,
)


def spawn_types(spec: WorldSpec) -> tuple[str, ...]:
    """Types whose `spawning` fact some break can make true (see `break_leaves`)."""
    out: list[str] = []
    for et in spec.entity_types.values():
        s = et.on_break
        if s is not None and s.regrow != "random" and s.after >= 2 and s.spawn not in out:
            out.append(s.spawn)
    return tuple(out)


def with_map_effects(spec: WorldSpec, operators: Iterable[OperatorSchema]
                     ) -> list[OperatorSchema]:
    """The operators with their door and spawn bookkeeping (unchanged in a world that has
    neither closed doors nor waited-for spawns)."""
    doors = closed_door_types(spec)
    spawns = spawn_types(spec)
    if not doors and not spawns:
        return list(operators)
    return [_augment(spec, op, doors, spawns) for op in operators]


def _augment(spec: WorldSpec, op: OperatorSchema, doors: tuple[str, ...],
             spawns: tuple[str, ...]) -> OperatorSchema:
    faced_off = [e.args[0] for e in op.effects
                 if isinstance(e, SetFact) and e.predicate == FACING and not e.value]
    faced_on = [e.args[0] for e in op.effects
                if isinstance(e, SetFact) and e.predicate == FACING and e.value]
    extra: list[Effect] = []
    if faced_off:
        told = {e.args[0] for e in op.effects if isinstance(e, SetFact)
                and e.predicate == SPAWNING}
        extra += [SetFact(SPAWNING, (s,), False) for s in spawns if s not in told]
    if doors:
        walkable = [t for t in faced_on
                    if t in spec.entity_types and not spec.entity_types[t].blocks_movement]
        for door in doors:
            if door in faced_off and walkable:
                extra += [SetFact(BEHIND_DOOR, (t,), False,
                                  when=(Fact(THROUGH_PREFIX + door, (t,)),))
                          for t in spec.concrete_types]
        faced = {c.args[0] for c in op.preconditions
                 if isinstance(c, Fact) and c.predicate == FACING and not c.negated}
        for e in op.effects:
            if isinstance(e, CountChange) and e.fluent == WORLD and e.delta < 0 and (
                    e.arg in faced):
                extra.append(SetFact(BEHIND_DOOR, (e.arg,), True,
                                     when=(Fact(PARTLY_BEHIND_DOOR, (e.arg,)),)))
    return replace(op, effects=(*op.effects, *extra)) if extra else op
