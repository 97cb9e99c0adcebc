"""The action protocol: check, apply, mask, and what the action means symbolically.

An action class is registered by name and configured by its spec entry. It may ground into
several env actions (``craft`` into ``craft_planks``, ``craft_stick``, ...). Refusal is decided
entirely in `check`, before `apply` mutates anything, so a refused action changes nothing.
`mask` answers the same question for many groundings at once, without the reasons; the env
asks for it every step, so the built-in classes vectorise it over a shared `MaskContext`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

from nesyworld.world.actions.schema import OperatorSchema
from nesyworld.world.errors import ActionRefused
from nesyworld.world.simulation.catalog import TypeCatalog
from nesyworld.world.simulation.state import DIRECTIONS
from nesyworld.world.spec.model import ActionSpec, WorldSpec

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

_STEPS: tuple[tuple[int, int], ...] = tuple((int(r), int(c)) for r, c in DIRECTIONS)


class MaskContext(NamedTuple):
    """What most masks look at, read off the state once per `World.action_mask` call and
    shared by the masks of all the agent's actions. Plain ints and lists: numpy hands out
    single values slowly, and the env asks for the mask every step. A tuple, so that
    comparing two is cheap: a mask that reads nothing else (`Action.MASK_FROM_CONTEXT`)
    answers the same for equal contexts."""

    row: int
    col: int
    facing: int
    around: list[int]  # type ids of the 4 neighbouring cells, N, E, S, W; -1 past the edge
    front: tuple[int, int] | None  # the cell in front (`World.front`), None past the edge
    front_type: int  # type id in front, -1 past the edge of the map
    front_props: dict[str, Any] | None  # a copy of the properties of the cell in front
    selected: int
    inventory: list[int]

    @classmethod
    def of(cls, world: World, agent: int) -> MaskContext:
        st = world.state
        g = st.grid
        r, c = st.pos.item(agent, 0), st.pos.item(agent, 1)
        h, w = g.shape
        around = [g.item(r - 1, c) if r > 0 else -1,  # the agent itself is on the map
                  g.item(r, c + 1) if c + 1 < w else -1,
                  g.item(r + 1, c) if r + 1 < h else -1,
                  g.item(r, c - 1) if c > 0 else -1]
        facing = st.facing.item(agent)
        front_type = around[facing]
        front = props = None
        if front_type >= 0:
            dr, dc = _STEPS[facing]
            front = (r + dr, c + dc)
            props = st.props.get(front) if st.props else None
            if props is not None:
                props = dict(props)
        return tuple.__new__(cls, (r, c, facing, around, front, front_type, props,
                                   st.selected.item(agent), st.inventory[agent].tolist()))


@dataclass(frozen=True)
class GroundedAction:
    """One entry of an agent's discrete action space."""

    name: str
    action: Action
    arg: Any = None
    arg_name: str | None = None


class Action:
    """Base class. Subclasses set PARAMS (spec parameters and their allowed values) and
    implement `check` and `apply`; grounded classes also override `groundings`."""

    PARAMS: ClassVar[dict[str, Any]] = {}
    GROUNDED: ClassVar[bool] = False  # one env action per argument (craft_<recipe>, ...)
    # `mask` (or `mask_instances`) reads nothing but its MaskContext, its args and the spec,
    # so `World.action_mask` reuses its last answer while the agent's context is unchanged.
    # It counts where declared by the class that defines that mask, or below it.
    MASK_FROM_CONTEXT: ClassVar[bool] = False
    # what the targets of a spec's `costs:` name (spec/costs_section.py): "types" (the faced
    # entity type), "recipes", "trades"; "" when the class takes no `costs:`
    COST_TARGETS: ClassVar[str] = ""
    registered_name: ClassVar[str]

    def __init__(self, spec: ActionSpec, world_spec: WorldSpec, types: TypeCatalog) -> None:
        self.spec = spec
        self.name = spec.name
        self.cost = spec.cost
        self.costs = spec.costs
        self.world_spec = world_spec
        self.types = types

    # grounding -------------------------------------------------------------
    def groundings(self) -> list[tuple[str, Any]]:
        """(argument name, bound argument) pairs of a GROUNDED class; possibly none (a
        craft action in a world without recipes adds no env action)."""
        return []

    def ground(self) -> list[GroundedAction]:
        pairs = self.groundings()
        if not self.GROUNDED:
            return [GroundedAction(self.name, self, None, None)]
        return [GroundedAction(f"{self.name}_{n}", self, arg, n) for n, arg in pairs]

    # dynamics --------------------------------------------------------------
    def check(self, world: World, agent: int, arg: Any) -> str | None:
        """The reason this action would be refused now, or None if it would run."""
        return None

    def apply(self, world: World, agent: int, arg: Any) -> float:
        """Change the world; returns the step cost. Only called after `check` passed."""
        raise NotImplementedError

    def execute(self, world: World, agent: int, arg: Any) -> float:
        reason = self.check(world, agent, arg)
        if reason is not None:
            raise ActionRefused(reason)
        return self.apply(world, agent, arg)

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> Sequence[bool] | np.ndarray:
        """Legality of each grounding (a list or a bool array, one per arg): exactly whether
        `check` would pass. Override with a vectorised version when it matters; `ctx` is the
        agent's `MaskContext` when the caller has one (`MaskContext.of` makes it otherwise).
        `World.action_mask` uses an override only where it is defined in the class that
        defines `check` or in a subclass of it, so a subclass that changes `check` alone is
        still masked by its own `check`."""
        return np.array([self.check(world, agent, a) is None for a in args], bool)

    @classmethod
    def mask_instances(
        cls, world: World, agent: int, actions: Sequence[Action], ctx: MaskContext | None = None
    ) -> list[bool] | None:
        """`mask` of several instances of an ungrounded class in one call, one bool each, for
        classes whose instances share work (the four moves look at the cells around the agent
        once). None (the default) means the class does not do this; `World.action_mask` then
        asks each instance's `mask`. The same ownership rule as for `mask` applies."""
        return None

    # costs -----------------------------------------------------------------
    def cost_target(self, world: World, agent: int, arg: Any) -> str | None:
        """What a `costs: {target: ...}` entry names for this action now: by default the
        type in front (COST_TARGETS "types")."""
        return self.types.names[world.front_type(agent)]

    def price(self, world: World, agent: int, arg: Any) -> float:
        """The step cost of running the action now (before it changes anything): `cost`, or
        what `costs:` says for its target and the agent's selected item."""
        if self.costs is None:
            return self.cost
        held = self.types.names[world.state.selected.item(agent)]
        return self.costs.of(self.cost, self.cost_target(world, agent, arg), held)

    def operator_cost(self, target: str | None, holding: str | None = None) -> float:
        """The cost a derived operator declares: the price on `target` while holding
        `holding` (an operator that requires no held item gets no holding factor)."""
        return self.cost if self.costs is None else self.costs.of(self.cost, target, holding)

    # meaning ---------------------------------------------------------------
    def operators(self) -> list[OperatorSchema]:
        """What this action means, for planning. Primitive moves return []."""
        return []

    # shared helpers --------------------------------------------------------
    def type_name(self, tid: int) -> str:
        return self.types.names[tid]

    def item_types(self) -> list[str]:
        """Types that can be in an inventory, in declaration order."""
        spec = self.world_spec
        items: set[str] = set(spec.goal)
        for a in spec.agents.values():
            items |= set(a.inventory)
        for et in spec.entity_types.values():
            items |= set(et.drops)
            for rule in (et.collect, et.use):
                if rule:
                    items |= set(rule.gives) | set(rule.consumes)
                    if rule.holding:
                        items.add(rule.holding)
            if et.break_tool:
                items.add(et.break_tool)
        for r in spec.recipes.values():
            items |= set(r.inputs) | set(r.outputs)
        for t in spec.trades.values():
            items |= set(t.inputs) | set(t.outputs)
        return [n for n in spec.concrete_types if n in items]


def refuse(reason: str) -> ActionRefused:
    return ActionRefused(reason)
