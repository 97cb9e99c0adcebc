"""Handling items: select, deselect, place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nesyworld.world.actions.base import Action, MaskContext
from nesyworld.world.actions.movement import ROOT_TYPE
from nesyworld.world.actions.schema import (
    AIR,
    FACING,
    HOLDING,
    INVENTORY,
    WORLD,
    CountAtLeast,
    CountChange,
    Distinct,
    Fact,
    OperatorSchema,
    Param,
    SetFact,
)
from nesyworld.world.registry import ACTIONS

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


@ACTIONS.register("select")
class Select(Action):
    """Hold an item from the inventory (tools must be held to be used)."""

    GROUNDED = True
    MASK_FROM_CONTEXT = True

    def groundings(self) -> list[tuple[str, Any]]:
        return [(t, self.types.id(t)) for t in self.item_types()]

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        st = world.state
        if st.inventory[agent, arg] < 1:
            return f"no {world.types.names[arg]} in the inventory"
        if st.selected[agent] == arg:
            return f"{world.types.names[arg]} is already selected"
        return None

    def apply(self, world: World, agent: int, arg: Any) -> float:
        world.state.selected[agent] = arg
        return self.cost

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        # plain Python: numpy's per-call overhead dominates on a dozen items
        ctx = ctx or MaskContext.of(world, agent)
        inv, held = ctx.inventory, ctx.selected
        return [inv[t] >= 1 and t != held for t in args]

    def operators(self) -> list[OperatorSchema]:
        return [
            OperatorSchema(
                name=f"select_{item}",
                params=(Param("?prev", ROOT_TYPE),),
                preconditions=(Fact(HOLDING, ("?prev",)), Distinct("?prev", item),
                               CountAtLeast(INVENTORY, item, 1)),
                effects=(SetFact(HOLDING, ("?prev",), False), SetFact(HOLDING, (item,), True)),
                action=f"{self.name}_{item}",
                provenance=f"action '{self.name}' ({self.registered_name}) -> {item}",
                cost=self.cost,
            )
            for item in self.item_types()
        ]


@ACTIONS.register("deselect")
class Deselect(Action):
    """Empty the hands."""

    MASK_FROM_CONTEXT = True

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        return "nothing is selected" if world.state.selected[agent] == 0 else None

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        ctx = ctx or MaskContext.of(world, agent)
        return [ctx.selected != 0] * len(args)

    def apply(self, world: World, agent: int, arg: Any) -> float:
        world.state.selected[agent] = 0
        return self.cost

    def operators(self) -> list[OperatorSchema]:
        return [OperatorSchema(
            name=self.name,
            params=(Param("?prev", ROOT_TYPE),),
            preconditions=(Fact(HOLDING, ("?prev",)), Distinct("?prev", AIR)),
            effects=(SetFact(HOLDING, ("?prev",), False), SetFact(HOLDING, (AIR,), True)),
            action=self.name,
            provenance=f"action '{self.name}' ({self.registered_name})",
            cost=self.cost,
        )]


@ACTIONS.register("place")
class Place(Action):
    """Put one of the selected item in the empty cell in front."""

    MASK_FROM_CONTEXT = True

    def placeable(self) -> list[str]:
        spec = self.world_spec
        return [t for t in self.item_types() if spec.entity_types[t].placeable]

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        st = world.state
        held = int(st.selected[agent])
        if held == 0:
            return "nothing is selected"
        name = world.types.names[held]
        if not world.spec.entity_types[name].placeable:
            return f"{name} cannot be placed"
        if st.inventory[agent, held] < 1:
            return f"no {name} left in the inventory"
        cell = world.front(agent)
        if cell is None or st.grid[cell] != 0:
            return "the cell in front is not empty"
        return None

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        ctx = ctx or MaskContext.of(world, agent)
        held = ctx.selected
        ok = (held != 0 and world.spec.entity_types[world.types.names[held]].placeable
              and ctx.inventory[held] >= 1 and ctx.front_type == 0)
        return [ok] * len(args)

    def apply(self, world: World, agent: int, arg: Any) -> float:
        st = world.state
        held = int(st.selected[agent])
        st.inventory[agent, held] -= 1
        cell = world.front(agent)
        assert cell is not None  # `check` passed: an empty cell is in front
        world.set_cell(cell, held)
        return self.cost

    def operators(self) -> list[OperatorSchema]:
        return [
            OperatorSchema(
                name=f"{self.name}_{item}",
                params=(),
                preconditions=(Fact(FACING, (AIR,)), Fact(HOLDING, (item,)),
                               CountAtLeast(INVENTORY, item, 1)),
                effects=(SetFact(FACING, (AIR,), False), SetFact(FACING, (item,), True),
                         CountChange(INVENTORY, item, -1), CountChange(WORLD, item, 1),
                         CountChange(WORLD, AIR, -1)),
                action=self.name,
                provenance=f"action '{self.name}' ({self.registered_name}) of {item}",
                cost=self.cost,
            )
            for item in self.placeable()
        ]
