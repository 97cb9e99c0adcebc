"""Turning items into other items: craft (recipes) and trade (with NPC traders)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nesyworld.world.actions.base import Action, MaskContext
from nesyworld.world.actions.interact import count_changes, net, property_conditions
from nesyworld.world.actions.schema import (
    FACING,
    INVENTORY,
    Condition,
    CountAtLeast,
    Fact,
    OperatorSchema,
)
from nesyworld.world.registry import ACTIONS
from nesyworld.world.spec.model import RecipeSpec, TradeSpec

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


class _Exchange(Action):
    """Inputs out of the inventory, outputs in, while facing the right partner."""

    GROUNDED = True

    def cost_target(self, world: World, agent: int, arg: Any) -> str | None:
        """A `costs:` target of craft or trade is the recipe or trade run."""
        return self._entries[arg].name

    def entries(self) -> Sequence[RecipeSpec | TradeSpec]:
        raise NotImplementedError

    def partner(self, entry: RecipeSpec | TradeSpec) -> str | None:
        raise NotImplementedError

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        entries = list(self.entries())
        n = len(self.types)
        self.need = np.zeros((len(entries), n), np.int32)
        self.delta = np.zeros((len(entries), n), np.int32)
        self.partner_id = np.full(len(entries), -1, np.int32)
        for i, e in enumerate(entries):
            for item, k in e.inputs.items():
                self.need[i, self.types.id(item)] = k
                self.delta[i, self.types.id(item)] -= k
            for item, k in e.outputs.items():
                self.delta[i, self.types.id(item)] += k
            p = self.partner(e)
            if p is not None:
                self.partner_id[i] = self.types.id(p)
        self._entries = entries
        # plain-Python copies for `mask`, which runs every env step on a handful of entries
        self._inputs = [[(int(t), int(k)) for t, k in enumerate(row) if k > 0] for row in self.need]
        self._partners = self.partner_id.tolist()

    def groundings(self) -> list[tuple[str, Any]]:
        return [(e.name, i) for i, e in enumerate(self._entries)]

    @property
    def distance(self) -> int:
        """How far ahead the partner must be (the Distance novelty sets 2: one empty cell
        between agent and trader)."""
        return int(self.spec.params.get("distance", 1))

    def _partner_cell(self, world: World, agent: int) -> tuple[int, int] | None:
        cell = world.front(agent)
        d = self.distance
        if d == 1 or cell is None:
            return cell
        st = world.state
        dr, dc = cell[0] - st.pos.item(agent, 0), cell[1] - st.pos.item(agent, 1)
        h, w = st.grid.shape
        for _ in range(d - 1):
            if st.grid[cell] != 0:  # the cells between must be empty
                return None
            cell = (cell[0] + dr, cell[1] + dc)
            if not (0 <= cell[0] < h and 0 <= cell[1] < w):
                return None
        return cell

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        st = world.state
        entry = self._entries[arg]
        p = self.partner_id[arg]
        if p >= 0:
            cell = self._partner_cell(world, agent)
            if cell is None or st.grid[cell] != p:
                if self.distance > 1:
                    return (f"{entry.name} needs {world.types.names[p]} {self.distance} cells "
                            "ahead with nothing between")
                return f"{entry.name} needs facing {world.types.names[p]}"
            disabled = self._disabled(world, cell)
            if disabled:
                return disabled
        inv = st.inventory[agent]
        for t, k in self._inputs[arg]:  # in type-id order: the first missing input is named
            if inv.item(t) < k:
                return f"{entry.name} needs {k} {world.types.names[t]}"
        return None

    def _disabled(self, world: World, cell: tuple[int, int]) -> str | None:
        name = world.types.names[world.state.grid[cell]]
        props = world.state.props.get(cell, {})
        for prop, value in world.spec.entity_types[name].disabled_when.items():
            if props.get(prop) == value:
                return f"{name} cannot be used while {prop}={value}"
        return None

    def apply(self, world: World, agent: int, arg: Any) -> float:
        world.state.inventory[agent] += self.delta[arg]
        return self.cost

    @property
    def MASK_FROM_CONTEXT(self) -> bool:  # type: ignore[override]
        """With the partner in front (distance 1) the mask reads only the agent's context
        (inventory, the front cell and its properties), so `World.action_mask` may reuse it;
        a partner further ahead depends on cells the context does not hold."""
        return self.distance == 1

    def mask(self, world: World, agent: int, args: Sequence[Any],
             ctx: MaskContext | None = None) -> list[bool]:
        """`check` without messages, in plain Python: numpy's per-call overhead dominates
        on arrays this small."""
        if self.distance == 1:
            ctx = ctx or MaskContext.of(world, agent)
            inv, front, props = ctx.inventory, ctx.front_type, ctx.front_props
        else:
            st = world.state
            inv = st.inventory[agent].tolist()
            cell = self._partner_cell(world, agent)
            front = -1 if cell is None else int(st.grid[cell])
            props = st.props.get(cell) if cell is not None else None
        usable: bool | None = None
        out = []
        for a in args:
            p = self._partners[a]
            if p >= 0:
                if p != front:
                    out.append(False)
                    continue
                if usable is None:
                    usable = self._usable(front, props)
                if not usable:
                    out.append(False)
                    continue
            out.append(all(inv[t] >= k for t, k in self._inputs[a]))
        return out

    def _usable(self, type_id: int, props: dict[str, Any] | None) -> bool:
        disabled = self.world_spec.entity_types[self.types.names[type_id]].disabled_when
        return not any((props or {}).get(prop) == value for prop, value in disabled.items())

    def operators(self) -> list[OperatorSchema]:
        ops = []
        for e in self._entries:
            pre: list[Condition] = [CountAtLeast(INVENTORY, k, v) for k, v in e.inputs.items()]
            p = self.partner(e)
            if p is not None:
                facing = FACING if self.distance == 1 else f"{FACING}_{self.distance}"
                pre.insert(0, Fact(facing, (p,)))
                pre += property_conditions(
                    p, {k: not v if isinstance(v, bool) else v
                        for k, v in self.world_spec.entity_types[p].disabled_when.items()})
            ops.append(OperatorSchema(
                name=f"{self.name}_{e.name}",
                params=(),
                preconditions=tuple(pre),
                effects=tuple(count_changes(INVENTORY, net(e.inputs, e.outputs))),
                action=f"{self.name}_{e.name}",
                provenance=f"{self.kind} '{e.name}' via action '{self.name}'",
                cost=self.operator_cost(e.name),
            ))
        return ops

    kind = "entry"


@ACTIONS.register("craft")
class Craft(_Exchange):
    """Craft a recipe; recipes with a station need it in front."""

    kind = "recipe"
    COST_TARGETS = "recipes"

    def entries(self) -> Sequence[RecipeSpec]:
        return list(self.world_spec.recipes.values())

    def partner(self, entry: RecipeSpec | TradeSpec) -> str | None:
        return entry.station if isinstance(entry, RecipeSpec) else None  # entries(): recipes


@ACTIONS.register("trade")
class Trade(_Exchange):
    """Trade with a trader agent of the trade's type, which must be in front (or `distance`
    cells ahead, with empty cells between)."""

    PARAMS: ClassVar[dict[str, Any]] = {"distance": (1, 2, 3)}

    kind = "trade"
    COST_TARGETS = "trades"

    def entries(self) -> Sequence[TradeSpec]:
        return list(self.world_spec.trades.values())

    def partner(self, entry: RecipeSpec | TradeSpec) -> str | None:
        return entry.trader if isinstance(entry, TradeSpec) else None  # entries(): trades
