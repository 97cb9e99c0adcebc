"""Actions about the episode itself: waiting and giving up."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nesyworld.world.actions.base import Action
from nesyworld.world.actions.interact import replace_facing
from nesyworld.world.actions.schema import (
    FACING,
    SPAWNING,
    WAITS_NOTE,
    Fact,
    OperatorSchema,
    SetFact,
)
from nesyworld.world.registry import ACTIONS

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


@ACTIONS.register("nop")
class Nop(Action):
    """Do nothing for one step (NPC controllers use it too)."""

    def apply(self, world: World, agent: int, arg: Any) -> float:
        return self.cost

    def operators(self) -> list[OperatorSchema]:
        """Waiting, for planning: `wait_for_<t>` stands in front of a broken block's cell
        until its `on_break` spawn t appears there (`spawning(t)`, which the break made true;
        see `break_leaves`). It runs nop up to `after - 1` times, the steps left after the
        break's own, and stops as soon as the spawn shows. Spawns due in the break's own step
        (`after: 1`) need no waiting, and random regrowth is not modelled."""
        waits: dict[tuple[str, str], int] = {}  # (spawn, what it replaces) -> steps to wait
        for et in self.world_spec.entity_types.values():
            on_break = et.on_break
            if on_break is None or on_break.regrow == "random" or on_break.after < 2:
                continue
            key = (on_break.spawn, et.leaves)
            waits[key] = max(waits.get(key, 0), on_break.after - 1)
        spawns = [s for s, _ in waits]
        ops = []
        for (spawn, leaves), steps in waits.items():
            name = f"wait_for_{spawn}" + (f"_on_{leaves}" if spawns.count(spawn) > 1 else "")
            ops.append(OperatorSchema(
                name=name,
                params=(),
                preconditions=(Fact(FACING, (leaves,)), Fact(SPAWNING, (spawn,))),
                effects=(SetFact(SPAWNING, (spawn,), False), *replace_facing(leaves, spawn)),
                action=self.name,
                provenance=f"action '{self.name}' ({self.registered_name}) waiting for the "
                           f"on_break spawn '{spawn}' where '{leaves}' was left",
                cost=self.cost * steps,
                notes=(WAITS_NOTE,),
                repeat=steps,
            ))
        return ops


@ACTIONS.register("give_up")
class GiveUp(Action):
    """End the episode as a failure; lets an agent stop early instead of timing out."""

    def apply(self, world: World, agent: int, arg: Any) -> float:
        world.state.gave_up = True
        return self.cost
