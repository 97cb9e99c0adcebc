"""Plan-based reward shaping: NovelGym's reward-shaping wrapper (paper 4.2.3, appendix D.1).

The pogostick task pays only at the end, after a few hundred steps; PPO from scratch rarely
gets there. At every reset the wrapper asks the planner for a plan from the current state,
keeps the plan steps that gain something (break, collect, trade, craft: approach and select
steps only set up the next one), and pays a bonus the first time each of those gains happens,
on top of the env's own reward (+1000 at the goal, -1 a step).

The subgoals are the operators' declared inventory gains, and a gain counts when the count
rose by at least the declared amount: the test the plan executor's monitor (`check_effects`)
applies to counts, so shaping cannot disagree with what the planner and the executor think an
operator does. Being inventory counts only, they can be read off a `SymbolicState` or off the
batched core's stacked inventories alike (`VectorPlanShapedReward`).

Order (algorithm 1 of D.1): only a subgoal whose predecessors are done can pay. With
``order="plan"`` (the paper) the predecessor is the previous subgoal of the plan, so subgoals
pay strictly in plan order; ``order="causal"`` keeps only the plan's causal links (trading for
titanium waits for the platinum it consumes, breaking diamond ore waits for nothing), so any
order that would also solve the task pays every subgoal. When a subgoal pays, the ones that
become payable and whose outcome the inventory already holds are marked done without pay;
re-reaching the last paid subgoal pays a bonus halved at each repeat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, SupportsFloat

import gymnasium as gym

from nesyworld.hybrid.boundary.world_adapter import WorldAdapter
from nesyworld.hybrid.execution.operators import GroundOperator, ground
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner, PlanResult
from nesyworld.world.actions.schema import INVENTORY, CountAtLeast, CountChange

Order = Literal["plan", "causal"]


@dataclass(frozen=True)
class ShapingConfig:
    """The shaping rewards and how subgoals come from a plan.

    The task's own rewards (D.2: +1000 for the pogo stick, -1 a step) are the env's
    (`spec.reward`, whose defaults are these numbers) and are passed through unchanged.
    """

    subgoal_reward: float = 5.0
    """Bonus for reaching a subgoal. The paper gives no number; 5 is the "plan fit" reward of
    NovelGym's own state-based shaping wrapper."""

    rehit_decay: float = 0.5
    """Re-reaching the last paid subgoal pays its previous bonus times this (D.1: halved each
    time, so all repeats together pay at most one more bonus). 0 pays every subgoal once."""

    order: Order = "plan"
    """"plan": subgoals pay strictly in plan order (the paper); "causal": a subgoal pays once
    the subgoals producing what it consumes or requires are done."""

    planner: str = "fast-downward"
    """The plan whose subgoals pay: Fast Downward's, as the RL baselines were measured with."""
    planner_timeout: float = 10.0

    def __post_init__(self) -> None:
        if self.order not in ("plan", "causal"):
            raise ValueError(f"ShapingConfig.order must be 'plan' or 'causal', got {self.order!r}")
        if not 0.0 <= self.rehit_decay < 1.0:
            raise ValueError("ShapingConfig.rehit_decay must be in [0, 1): repeats must shrink")


def _count(z: SymbolicState, fluent: str, item: str) -> int:
    """A count, 0 for a type this state does not know (a novelty may remove types)."""
    return z.count(fluent, item) if item in z.names else 0


@dataclass(frozen=True)
class Subgoal:
    """One kept plan step: what it gains, and the inventory the plan expects right after it."""

    operator: GroundOperator
    gains: tuple[tuple[str, int], ...]
    """(item, at least this many more) the step declares: what "reached" is checked against."""
    targets: tuple[tuple[str, int], ...]
    """(item, count) the plan predicts after this step: what "already held" is checked against."""
    needs: frozenset[str]
    """Items the step consumes or requires: what makes earlier subgoals its causes."""

    @property
    def gained(self) -> frozenset[str]:
        return frozenset(item for item, _ in self.targets)

    def reached(self, before: Mapping[str, int], after: Mapping[str, int]) -> bool:
        """Did the inventory go from `before` to `after` by at least the declared gains? (An
        item that is no type of this world has count 0 in both: not reached.)"""
        return all(after.get(item, 0) - before.get(item, 0) >= n for item, n in self.gains)

    def holds(self, inventory: Mapping[str, int]) -> bool:
        return all(inventory.get(item, 0) >= n for item, n in self.targets)

    def __str__(self) -> str:
        return str(self.operator)


def plan_subgoals(steps: Sequence[GroundOperator], start: SymbolicState) -> list[Subgoal]:
    """The plan steps that declare an inventory gain, in plan order, with the counts the
    plan predicts after each (its declared effects applied from `start`)."""
    z, out = start, []
    for op in steps:
        b = op.binding
        try:
            z = z.apply(op.schema.effects, b)
        except ValueError:  # the plan names a type this state lacks: nothing to predict after
            break
        effects = op.schema.effects
        gains = tuple(e for e in effects
                      if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta > 0)
        if not gains:
            continue
        declared: dict[str, int] = {}
        for e in gains:
            item = b.get(e.arg, e.arg)
            declared[item] = max(declared.get(item, 0), e.delta)  # each must hold
        needs = {b.get(e.arg, e.arg) for e in effects
                 if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta < 0}
        needs |= {b.get(c.arg, c.arg) for c in op.schema.preconditions
                  if isinstance(c, CountAtLeast) and c.fluent == INVENTORY}
        out.append(Subgoal(op, tuple(sorted(declared.items())),
                           tuple((i, _count(z, INVENTORY, i)) for i in sorted(declared)),
                           frozenset(needs)))
    return out


def predecessors(subgoals: Sequence[Subgoal], order: Order) -> list[frozenset[int]]:
    """For each subgoal, the subgoals that must be done before it can pay."""
    if order == "plan":
        return [frozenset({i - 1}) if i else frozenset() for i in range(len(subgoals))]
    return [frozenset(j for j in range(i) if subgoals[j].gained & g.needs)
            for i, g in enumerate(subgoals)]


class SubgoalTracker:
    """One episode's subgoals and what they paid (algorithm 1 of D.1), fed the main agent's
    inventory before and after each step that changed it. `paid` and `skipped` list subgoal
    indices in the order they were done."""

    def __init__(self, subgoals: Sequence[Subgoal], config: ShapingConfig) -> None:
        self.subgoals = list(subgoals)
        self.config = config
        self.paid: list[int] = []
        self.skipped: list[int] = []
        self._before = predecessors(self.subgoals, config.order)
        self._pending = set(range(len(self.subgoals)))
        self._last: int | None = None
        self._rehit = 0.0

    @property
    def done(self) -> int:
        return len(self.subgoals) - len(self._pending)

    def _payable(self, i: int) -> bool:
        return i in self._pending and not (self._before[i] & self._pending)

    def bonus(self, before: Mapping[str, int], after: Mapping[str, int]) -> float:
        """The bonus of a step that took the inventory from `before` to `after`."""
        cfg = self.config
        hits = [i for i in sorted(self._pending)
                if self._payable(i) and self.subgoals[i].reached(before, after)]
        if hits:
            self._pending.difference_update(hits)
            self.paid.extend(hits)
            self._last, self._rehit = hits[-1], cfg.subgoal_reward
            self._skip_held(after)
            return cfg.subgoal_reward * len(hits)
        if self._last is not None and cfg.rehit_decay > 0 and \
                self.subgoals[self._last].reached(before, after):
            self._rehit *= cfg.rehit_decay
            return self._rehit
        return 0.0

    def _skip_held(self, inventory: Mapping[str, int]) -> None:
        """Subgoals that became payable and are already held are done, unpaid (D.1)."""
        while True:
            held = [i for i in sorted(self._pending)
                    if self._payable(i) and self.subgoals[i].holds(inventory)]
            if not held:
                return
            self._pending.difference_update(held)
            self.skipped.extend(held)


def plan_tracker(z: SymbolicState, kb: KnowledgeBase, planner: Planner, config: ShapingConfig,
                 subgoals_of: Callable[[Sequence[GroundOperator], SymbolicState],
                                       list[Subgoal]] = plan_subgoals,
                 ) -> tuple[PlanResult, SubgoalTracker]:
    """Plan from `z` and track that plan's subgoals (none when there is no plan)."""
    result = planner.plan(kb.derivation(), z)
    subgoals: list[Subgoal] = []
    if result.ok:
        operators = {e.operator.name: e.operator for e in kb}
        subgoals = subgoals_of([ground(s, operators) for s in result.steps], z)
    return result, SubgoalTracker(subgoals, config)


def inventory_of(z: SymbolicState) -> dict[str, int]:
    return dict(zip(z.names, z.inventory, strict=True))


class PlanShapedReward(gym.Wrapper):
    """Adds plan-subgoal bonuses to a NesyGridEnv's reward (see the module docstring).

    `info` gains ``shaping_reward`` (this step's bonus), ``subgoals_done`` and
    ``subgoals_total``; `subgoals`, `paid` and `skipped` show the current episode's.
    Pass one `planner` to many wrappers to share its plan cache (initial states repeat).
    `VectorPlanShapedReward` does the same for `NesyVectorEnv`.
    """

    def __init__(self, env: gym.Env, kb: KnowledgeBase | None = None,
                 config: ShapingConfig = ShapingConfig(),
                 planner: Planner | None = None) -> None:
        super().__init__(env)
        self.config = config
        self.view = WorldAdapter(env)
        """What the shaping reads of the env: detected states (hybrid/boundary)."""
        self.kb = kb if kb is not None else self.view.knowledge()
        self.planner = planner or Planner(config.planner, timeout=config.planner_timeout,
                                          cache=PlanCache())
        self.plan_result: PlanResult | None = None
        self.tracker = SubgoalTracker([], config)
        self._z: SymbolicState | None = None

    @property
    def subgoals(self) -> list[Subgoal]:
        return self.tracker.subgoals

    @property
    def paid(self) -> list[int]:
        return self.tracker.paid

    @property
    def skipped(self) -> list[int]:
        return self.tracker.skipped

    def subgoals_of(self, steps: Sequence[GroundOperator], start: SymbolicState
                    ) -> list[Subgoal]:
        """The filter from plan to subgoals; override for other criteria."""
        return plan_subgoals(steps, start)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        z = self._z = self.view.detect()
        self.plan_result, self.tracker = plan_tracker(z, self.kb, self.planner, self.config,
                                                      self.subgoals_of)
        return obs, self._annotate(info, 0.0)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        z0, z1 = self._z, self.view.detect()
        self._z = z1
        bonus = 0.0
        # every subgoal is an inventory gain: most steps end at this test
        if z0 is not None and (z0.inventory != z1.inventory or z0.names != z1.names):
            bonus = self.tracker.bonus(inventory_of(z0), inventory_of(z1))
        return obs, float(reward) + bonus, terminated, truncated, self._annotate(info, bonus)

    def _annotate(self, info: dict[str, Any], bonus: float) -> dict[str, Any]:
        info["shaping_reward"] = bonus
        info["subgoals_done"] = self.tracker.done
        info["subgoals_total"] = len(self.tracker.subgoals)
        return info
