"""Acting on the thing in front: break, collect, use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nesyworld.world.actions.base import Action, MaskContext
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    SPAWNING,
    WORLD,
    Condition,
    CountAtLeast,
    CountChange,
    Effect,
    Fact,
    OperatorSchema,
    SetFact,
)
from nesyworld.world.registry import ACTIONS
from nesyworld.world.simulation.state import DIRECTIONS
from nesyworld.world.spec.model import EntityTypeSpec, InteractionRule

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


def property_conditions(type_name: str, values: dict[str, Any] | Any) -> list[Condition]:
    """Boolean property requirements as (possibly negated) facts; others are not symbolic."""
    return [Fact(prop, (type_name,), negated=not v) for prop, v in values.items()
            if isinstance(v, bool)]


def tool_conditions(tool: str | None) -> list[Condition]:
    if tool is None:
        return []
    return [Fact(HOLDING, (tool,)), CountAtLeast(INVENTORY, tool, 1)]


def count_changes(fluent: str, deltas: dict[str, int]) -> list[Effect]:
    return [CountChange(fluent, k, v) for k, v in deltas.items() if v != 0]


def net(consumes: Any, gives: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v in consumes.items():
        out[k] = out.get(k, 0) - v
    for k, v in gives.items():
        out[k] = out.get(k, 0) + v
    return out


def replace_facing(old: str, new: str) -> list[Effect]:
    if old == new:
        return []
    return [SetFact(FACING, (old,), False), SetFact(FACING, (new,), True),
            CountChange(WORLD, old, -1), CountChange(WORLD, new, 1)]


def rule_effects(name: str, rule: InteractionRule) -> list[Effect]:
    """What applying `rule` to the `name` in front does, for planning."""
    eff: list[Effect] = count_changes(INVENTORY, net(rule.consumes, rule.gives))
    eff += [SetFact(prop, (name,), v) for prop, v in rule.sets.items() if isinstance(v, bool)]
    if rule.removes:
        eff += replace_facing(name, rule.becomes)
    return eff


def arrival_effects(name: str, rule: InteractionRule) -> list[Effect]:
    """What walking up to a `name` adds when its collect `rule` is automatic: it is taken at
    once, so the agent ends up facing the `becomes` left behind, holding what it gave."""
    return [SetFact(FACING, (rule.becomes,), True), CountChange(WORLD, name, -1),
            CountChange(WORLD, rule.becomes, 1), *count_changes(INVENTORY, dict(rule.gives))]


def apply_rule(world: World, agent: int, cell: tuple[int, int], rule: InteractionRule) -> None:
    """`rule` applied by `agent` to what is in `cell`, its conditions already checked."""
    st = world.state
    for item, k in rule.consumes.items():
        st.inventory[agent, world.types.id(item)] -= k
    for item, k in rule.gives.items():
        st.inventory[agent, world.types.id(item)] += k
    if rule.sets:
        st.props.setdefault(cell, {}).update(rule.sets)
    if rule.removes:
        world.set_cell(cell, world.types.id(rule.becomes))


def pick_up_beside(world: World, agent: int) -> None:
    """The automatic collect rules of what is in the four cells beside `agent` (N, E, S, W),
    applied at the end of one of its steps: NovelGym's auto-pickup of floating objects, so
    the fire novelty's water bucket is taken by walking up to it, as in the paper's world."""
    st = world.state
    h, w = st.grid.shape
    r, c = int(st.pos[agent, 0]), int(st.pos[agent, 1])
    for dr, dc in DIRECTIONS.tolist():
        cell = (r + dr, c + dc)
        if 0 <= cell[0] < h and 0 <= cell[1] < w:
            tid = int(st.grid[cell])
            if tid in world.types.automatic:
                rule = world.spec.entity_types[world.types.names[tid]].collect
                assert rule is not None  # what `TypeCatalog.automatic` holds
                apply_rule(world, agent, cell, rule)


def break_leaves(et: EntityTypeSpec) -> list[Effect]:
    """What breaking `et` does to the cell in front, for planning.

    The cell becomes `et.leaves` (facing it, world count +1). An `on_break` spawn puts its
    type there `after` steps later, if the cell still holds the leaves: with `after: 1` that
    is the end of the same step, so the break itself yields the spawn; otherwise the break
    makes `spawning(<spawn>)` true and the wait operator (`Nop.operators`) brings the spawn
    about by waiting in front of the cell. A regrowth "random" appears at a random free
    cell, which no operator can promise, so it is left out of the model."""
    spawn = et.on_break
    if spawn is None or spawn.regrow == "random":
        return replace_facing(et.name, et.leaves)
    if spawn.after == 1:
        return replace_facing(et.name, spawn.spawn)
    return [*replace_facing(et.name, et.leaves), SetFact(SPAWNING, (spawn.spawn,), True)]


@ACTIONS.register("break")
class Break(Action):
    """Break the block in front; its drops go straight to the inventory (auto-pickup). A
    type with `hits: n` takes n breaks: the first n - 1 only add to its damage (by cell, in
    `WorldState.damage`)."""

    MASK_FROM_CONTEXT = True
    COST_TARGETS = "types"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        spec, types = self.world_spec, self.types
        n = len(types)
        self.tool = np.full(n, -1, np.int32)
        self.drops = np.zeros((n, n), np.int32)
        for i, name in enumerate(types.names):
            et = spec.entity_types[name]
            if et.break_tool:
                self.tool[i] = types.id(et.break_tool)
            for item, k in et.drops.items():
                self.drops[i, types.id(item)] = k

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        cell = world.front(agent)
        if cell is None:
            return "nothing in front"
        tid = int(world.state.grid[cell])
        name = world.types.names[tid]
        et = world.spec.entity_types[name]
        if not et.breakable:
            return "nothing in front" if tid == 0 else f"{name} cannot be broken"
        tool = self.tool[tid]
        st = world.state
        if tool >= 0 and (st.selected[agent] != tool or st.inventory[agent, tool] < 1):
            return f"breaking {name} needs {world.types.names[tool]} selected"
        return None

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        ctx = ctx or MaskContext.of(world, agent)
        tid = ctx.front_type
        ok = tid >= 0 and world.spec.entity_types[world.types.names[tid]].breakable
        if ok:
            tool = self.tool.item(tid)
            ok = tool < 0 or (ctx.selected == tool and ctx.inventory[tool] >= 1)
        return [ok] * len(args)

    def apply(self, world: World, agent: int, arg: Any) -> float:
        cell = world.front(agent)
        assert cell is not None  # `check` passed: a breakable block is in front
        tid = int(world.state.grid[cell])
        et = world.spec.entity_types[world.types.names[tid]]
        if et.hits > 1:
            damage = world.state.damage
            taken = damage.get(cell, 0) + 1
            if taken < et.hits:
                damage[cell] = taken
                return self.cost
        leaves = world.types.id(et.leaves)
        world.set_cell(cell, leaves)
        world.state.inventory[agent] += self.drops[tid]
        if et.on_break is not None:
            world.schedule(et.on_break.after, cell, world.types.id(et.on_break.spawn),
                           expect=leaves, regrow=et.on_break.regrow)
        return self.cost

    def operators(self) -> list[OperatorSchema]:
        ops = []
        for name in self.world_spec.concrete_types:
            et = self.world_spec.entity_types[name]
            if not et.breakable:
                continue
            suffix = f"_with_{et.break_tool}" if et.break_tool else ""
            ops.append(OperatorSchema(
                name=f"{self.name}_{name}{suffix}",
                params=(),
                preconditions=(Fact(FACING, (name,)), *tool_conditions(et.break_tool)),
                effects=(*break_leaves(et), *count_changes(INVENTORY, dict(et.drops))),
                action=self.name,
                provenance=f"action '{self.name}' ({self.registered_name}) on entity type "
                           f"'{name}'",
                cost=self.operator_cost(name, et.break_tool) * et.hits,
                repeat=et.hits,
            ))
        return ops


class _Interaction(Action):
    """Shared logic of collect and use: both apply an InteractionRule of the faced type."""

    RULE: str = ""
    MASK_FROM_CONTEXT = True
    COST_TARGETS = "types"

    def rule_of(self, world: World, tid: int) -> InteractionRule | None:
        return getattr(world.spec.entity_types[world.types.names[tid]], self.RULE)

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        cell = world.front(agent)
        if cell is None:
            return "nothing in front"
        st = world.state
        tid = int(st.grid[cell])
        name = world.types.names[tid]
        rule = self.rule_of(world, tid)
        if rule is None:
            return f"nothing to {self.RULE} from {name}" if tid else "nothing in front"
        if rule.holding is not None:
            hid = world.types.id(rule.holding)
            if st.selected[agent] != hid or st.inventory[agent, hid] < 1:
                return f"{self.RULE} on {name} needs {rule.holding} selected"
        props = st.props.get(cell, {})
        for prop, value in rule.when.items():
            if props.get(prop) != value:
                return f"{name} is not {prop}={value}"
        for item, k in rule.consumes.items():
            if st.inventory[agent, world.types.id(item)] < k:
                return f"{self.RULE} on {name} needs {k} {item}"
        return None

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        return [self._allowed(world, ctx or MaskContext.of(world, agent))] * len(args)

    def _allowed(self, world: World, ctx: MaskContext) -> bool:
        """`check` without the messages."""
        tid = ctx.front_type
        if tid < 0:
            return False
        rule = self.rule_of(world, tid)
        if rule is None:
            return False
        inv, types = ctx.inventory, world.types
        if rule.holding is not None:
            hid = types.id(rule.holding)
            if ctx.selected != hid or inv[hid] < 1:
                return False
        if rule.when:
            props = ctx.front_props or {}
            for prop, value in rule.when.items():
                if props.get(prop) != value:
                    return False
        return not rule.consumes or all(
            inv[types.id(item)] >= k for item, k in rule.consumes.items())

    def apply(self, world: World, agent: int, arg: Any) -> float:
        st = world.state
        cell = world.front(agent)
        assert cell is not None  # `check` passed: what the rule applies to is in front
        tid = int(st.grid[cell])
        rule = self.rule_of(world, tid)
        assert rule is not None
        apply_rule(world, agent, cell, rule)
        return self.cost

    def operators(self) -> list[OperatorSchema]:
        ops = []
        for name in self.world_spec.concrete_types:
            rule = getattr(self.world_spec.entity_types[name], self.RULE)
            if rule is None or rule.automatic:  # taken on arrival: approach_<name> says so
                continue
            pre: list[Condition] = [Fact(FACING, (name,)), *tool_conditions(rule.holding),
                                    *property_conditions(name, rule.when)]
            pre += [CountAtLeast(INVENTORY, k, v) for k, v in rule.consumes.items()]
            ops.append(OperatorSchema(
                name=f"{self.name}_{name}",
                params=(),
                preconditions=tuple(pre),
                effects=tuple(rule_effects(name, rule)),
                action=self.name,
                provenance=f"action '{self.name}' ({self.registered_name}) with the "
                           f"'{self.RULE}' rule of entity type '{name}'",
                cost=self.operator_cost(name, rule.holding),
            ))
        return ops


@ACTIONS.register("collect")
class Collect(_Interaction):
    """Take what the faced entity yields (rubber from a tree with a tree tap)."""

    RULE = "collect"


@ACTIONS.register("use")
class Use(_Interaction):
    """Use the selected item on the faced entity (a water bucket on a burning table)."""

    RULE = "use"
