"""Action classes for novelties whose behaviour no built-in class has.

Each is registered by name; the package declares them as entry points
(``nesyworld.actions``), so a novelty file naming ``busy_trade`` loads this module on demand.
Randomness that must not depend on how often legality is *asked* (the env asks every step for
the action mask) is drawn from a hash of (seed, episode, step, cell), not from the world's
generator; randomness in an outcome is drawn from the generator, once per executed action.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nesyworld.world.actions.base import MaskContext
from nesyworld.world.actions.crafting import Trade
from nesyworld.world.actions.interact import Break
from nesyworld.world.actions.items import Place
from nesyworld.world.actions.schema import (
    INVENTORY,
    NO_EFFECT_NOTE,
    REFUSAL_NOTE,
    CountChange,
    Fact,
    OperatorSchema,
)
from nesyworld.world.registry import ACTIONS

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


def _chance(world: World, *key: object) -> float:
    return random.Random(":".join(map(str, (world._seed, world.episode, *key)))).random()


@ACTIONS.register("busy_trade")
class BusyTrade(Trade):
    """Traders are busy a fraction `busy_ratio` of the steps and refuse to trade then."""

    PARAMS: ClassVar[dict[str, Any]] = {**Trade.PARAMS, "busy_ratio": "probability"}

    def _busy(self, world: World, agent: int) -> bool:
        cell = self._partner_cell(world, agent)
        ratio = float(self.spec.params.get("busy_ratio", 0.5))
        return cell is not None and _chance(world, world.state.step, cell) < ratio

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        reason = super().check(world, agent, arg)
        if reason is None and self._busy(world, agent):
            return "the trader is busy"
        return reason

    def mask(self, world: World, agent: int, args: Sequence[Any],
             ctx: MaskContext | None = None) -> list[bool]:
        legal = list(super().mask(world, agent, args, ctx))
        if any(legal) and self._busy(world, agent):
            return [False] * len(legal)
        return legal

    def operators(self) -> list[OperatorSchema]:
        return [replace(op, notes=(*op.notes, REFUSAL_NOTE + "the trader is busy"))
                for op in super().operators()]


@ACTIONS.register("random_drop_break")
class RandomDropBreak(Break):
    """Breaking `target` never breaks it; with probability `probability` it drops `drops`
    logs into the inventory instead (the Random-drop novelty). Other blocks break as usual."""

    PARAMS: ClassVar[dict[str, Any]] = {"target": "type", "probability": "probability",
                                        "drops": "count"}

    def apply(self, world: World, agent: int, arg: Any) -> float:
        cell = world.front(agent)
        target = world.types.id(self.spec.params.get("target", "oak_log"))
        if cell is None or world.state.grid[cell] != target:
            return super().apply(world, agent, arg)
        if world.rng.random() < float(self.spec.params.get("probability", 0.3)):
            world.state.inventory[agent, target] += int(self.spec.params.get("drops", 1))
        return self.cost

    def operators(self) -> list[OperatorSchema]:
        target = self.spec.params.get("target", "oak_log")
        out = []
        for op in super().operators():
            if op.preconditions and op.preconditions[0] == Fact("facing", (target,)):
                op = replace(op, effects=(CountChange(INVENTORY, target,
                                                      int(self.spec.params.get("drops", 1))),),
                             notes=(*op.notes, NO_EFFECT_NOTE))
            out.append(op)
        return out


@ACTIONS.register("spaced_place")
class SpacedPlace(Place):
    """Placing is refused when one of `blockers` is within `radius` of the target cell (the
    Space-around novelty: saplings need room to grow)."""

    PARAMS: ClassVar[dict[str, Any]] = {"radius": "count", "blockers": "types"}

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        reason = super().check(world, agent, arg)
        if reason is not None:
            return reason
        front = world.front(agent)
        assert front is not None  # the base `check` passed: a cell is in front
        r, c = front
        k = int(self.spec.params.get("radius", 1))
        blockers = {world.types.id(t) for t in self.spec.params.get("blockers", ["oak_log"])}
        around = world.state.grid[max(r - k, 0):r + k + 1, max(c - k, 0):c + k + 1]
        if blockers.intersection(np.unique(around).tolist()):
            return f"too close to a tree or wall (radius {k})"
        return None

    def operators(self) -> list[OperatorSchema]:
        return [replace(op, notes=(*op.notes, REFUSAL_NOTE + "too close"))
                for op in super().operators()]
