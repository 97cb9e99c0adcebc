"""The action protocol: check, apply, mask, and what the action means symbolically.

An action class is registered by name and configured by its spec entry. It may ground into
several env actions (``craft`` into ``craft_planks``, ``craft_stick``, ...). Refusal is decided
entirely in `check`, before `apply` mutates anything, so a refused action changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nesyworld.world.catalog import TypeCatalog
from nesyworld.world.errors import ActionRefused
from nesyworld.world.semantics import OperatorSchema
from nesyworld.world.spec import ActionSpec, WorldSpec

if TYPE_CHECKING:
    from nesyworld.world.world import World


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
    registered_name: ClassVar[str]

    def __init__(self, spec: ActionSpec, world_spec: WorldSpec, types: TypeCatalog) -> None:
        self.spec = spec
        self.name = spec.name
        self.cost = spec.cost
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

    def mask(self, world: World, agent: int, args: Sequence[Any]) -> np.ndarray:
        """Legality of each grounding; override with a vectorised version when it matters."""
        return np.array([self.check(world, agent, a) is None for a in args], bool)

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
