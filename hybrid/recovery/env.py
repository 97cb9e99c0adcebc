"""The learning subproblem of recovery: a small Gymnasium env built from one OperatorFailure.

RAPid-Learn, done properly (see docs/ADAPTATION.md): every episode starts at the
failure snapshot rather than replaying the task, the actions are the agent's whole action
space masked by legality, and plannability is asked of the knowledge base WITHOUT the failed
operator, so a state cannot look good only because the plan would use the broken
operator again. Reward and termination use the same `abstract` as the planner and the
monitor, and the planner is asked only on abstract changes that meet a target (its answers
are cached by abstract state), so most RL steps cost one simulator step.

The env owns its own World, built from the spec of the failing world and restored to the
snapshot, so training never touches the agent's world; every constructor argument is plain
data, so `recovery_env_factory` can build picklable copies for vector envs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from nesyworld.hybrid.boundary.world_adapter import CopyRecipe
from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.derivation.derive import count_thresholds
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner
from nesyworld.world import Snapshot, World
from nesyworld.world.actions.schema import (
    AIR,
    INVENTORY,
    CountAtLeast,
    CountChange,
    Fact,
    SetFact,
)
from nesyworld.world.novelty.transforms import apply_novelties
from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

SHARED_PLAN_CACHE = PlanCache()
"""One cache for every recovery env of a process: a vector env's copies, the evaluation envs
and the checker all ask about the same states (keys include the domain, so knowledge bases
with different operators never share an answer)."""
# Types never treated as "objects of the failed operator" (they are everywhere).
IGNORED_TYPES = frozenset({AIR, "agent"})


@dataclass(frozen=True)
class SpecRef:
    """A world spec by its file and novelties: WorldSpec itself does not pickle, and a vector
    env's factory must, so the factory carries this and each copy rebuilds the spec."""

    source: str
    novelties: tuple[str, ...] = ()

    @classmethod
    def of(cls, spec: WorldSpec) -> SpecRef | WorldSpec:
        """A reference when the spec can be rebuilt from files, else the spec itself."""
        if spec.source.startswith("<"):
            return spec
        return cls(spec.source, tuple(spec.novelties))

    def build(self) -> WorldSpec:
        if self.novelties:
            return apply_novelties(self.source, list(self.novelties))
        return load_spec(self.source)


@dataclass(frozen=True)
class RecoveryEnvConfig:
    """How the recovery env rewards, ends and observes (defaults: docs/ADAPTATION.md)."""

    horizon: int = 200
    step_reward: float = -1.0
    success_reward: float = 1000.0
    dead_end_reward: float = -250.0
    planner: str = "in-process"
    planner_timeout: float = 10.0
    observation: ObservationConfig = field(default_factory=ObservationConfig)


def failed_objects(op: GroundOperator) -> set[str]:
    """The entity types the failed operator talks about: its arguments and the constants of
    its preconditions and effects (air and the agent excluded: they touch everything)."""
    b = op.binding
    names: set[str] = set(op.args)
    for item in (*op.schema.preconditions, *op.schema.effects):
        if isinstance(item, (Fact, SetFact)):
            names.update(b.get(a, a) for a in item.args)
        elif isinstance(item, (CountAtLeast, CountChange)):
            names.add(b.get(item.arg, item.arg))
    return {n for n in names if not n.startswith("?")} - IGNORED_TYPES


def recovery_actions(offered: Sequence[str]) -> tuple[str, ...]:
    """The recovery's actions: the agent's whole action space, in the world's order, but
    give_up; the env masks them by legality each step.

    Earlier versions offered a subset (primitives, new actions, and actions naming the
    failed operator's objects), which made learning faster but left out fixes a novelty can
    need: selecting a tool the agent already holds, approaching a type the failed operator
    does not name. Legality is the only pruning that can never remove a needed action.
    """
    return tuple(a for a in offered if a != "give_up")


def _mentions(name: str, type_name: str) -> bool:
    """`type_name` appears in an action name as whole `_`-separated words."""
    return re.search(rf"(^|_){re.escape(type_name)}(_|$)", name) is not None


FOCUS_KINDS = ("move", "rotate", "break", "collect", "use", "place", "nop")
"""Actions always in the focus, by the first word of their names: the agent's body and the
generic interactions."""


def new_types(types: Collection[str], known_types: Collection[str]) -> set[str]:
    """The entity types among `types` (those the agent observed; the oracle's: those the
    world registers) that the knowledge base's world did not have: what a novelty brought
    in (air and the agent excluded)."""
    return {t for t in types if t not in known_types} - IGNORED_TYPES


def novel_actions(offered: Sequence[str], known_actions: Collection[str],
                  fresh_types: Collection[str]) -> set[str]:
    """The actions new since the novelty: those the knowledge base's world did not offer,
    and those whose names mention, as whole words, a type new since the novelty
    (`fresh_types`, from `new_types`)."""
    return {a for a in recovery_actions(offered) if a not in known_actions
            or any(_mentions(a, t) for t in fresh_types)}


def focus_actions(offered: Sequence[str], op: GroundOperator, known_actions: Collection[str],
                  fresh_types: Collection[str]) -> set[str]:
    """The actions a fix most likely needs, tried first through the policy's action prior
    (`PPOConfig.action_prior`), never instead of the others: the primitive and generic
    interactions, the actions new since the novelty (`novel_actions`), and actions whose
    names mention, as whole words, a type the failed operator names."""
    touched = failed_objects(op) - IGNORED_TYPES
    return novel_actions(offered, known_actions, fresh_types) | {
        a for a in recovery_actions(offered) if a.split("_")[0] in FOCUS_KINDS
        or any(_mentions(a, t) for t in touched)}


def relevant_counts(kb: KnowledgeBase) -> set[tuple[str, str]]:
    """Counts some precondition or the goal compares: the only ones a plan relies on (the
    same rule as the planning agent's monitor)."""
    d = kb.derivation()
    keys = set(count_thresholds(d.operators))
    return keys | {(INVENTORY, item) for item in d.goal}


@dataclass(frozen=True)
class Win:
    """A successful episode of the recovery env: which start it began from, and each step's
    action with the abstract states around it (what `induction.py` reads)."""

    start: int
    steps: tuple[tuple[str, SymbolicState, SymbolicState], ...]


MAX_WINS = 4
"""Successful episodes a recovery env keeps (the first ones: induction needs only one)."""


class RecoveryEnv(gym.Env[np.ndarray, np.int64]):
    """Learn to get from a failure state to a state the planner can continue from.

    reset: restore the failure snapshot (always; `seed` only seeds gymnasium's generator),
    or, with `starts` (earlier failures of the same operator, when fine-tuning), one of all
    these failures' snapshots drawn uniformly, each measured against its own failure, so
    the tuned policy keeps what it learned while it learns the new case.
    Actions: `recovery_actions` (all but give_up), or `action_names` when given (fine-tuning
    keeps the set the policy was trained on; a name this world lacks is always masked).
    step: -1 (`step_reward`); when the abstract state changes and meets a target (the failed
    operator's declared effects relative to `failure.before`, or the task goal), ask the
    planner without the failed operator: plannable -> `success_reward` and terminated with
    info["success"] True; unplannable -> `dead_end_reward` and terminated; unknown (a
    timeout) -> go on. Truncated after `config.horizon` steps. info carries "action_mask"
    over its actions and "success".
    """

    # one for the class, as Gymnasium reads it (its stubs declare it per instance)
    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}  # type: ignore[misc]

    def __init__(self, spec: WorldSpec | SpecRef, snapshot: Snapshot, failure: OperatorFailure,
                 kb: KnowledgeBase, config: RecoveryEnvConfig = RecoveryEnvConfig(), *,
                 planner: Planner | None = None,
                 goal: Mapping[str, int] | None = None,
                 action_names: tuple[str, ...] | None = None,
                 starts: Sequence[OperatorFailure] = ()) -> None:
        super().__init__()
        if failure.before is None:
            raise ValueError("the failure has no `before` state to measure effects against")
        self.world_spec = spec.build() if isinstance(spec, SpecRef) else spec
        self.snapshot = snapshot
        self.failure = failure
        self.starts = [(snapshot, failure)] + [(f.snapshot, f) for f in starts
                                               if f.snapshot is not None and f.before]
        self._start = 0
        self.config = config
        self.kb = kb
        self.kb_minus = kb.without(failure.operator.name) if failure.operator.name in kb else kb
        self.planning = self.kb_minus.derivation()
        self.goal = dict(goal if goal is not None else kb.derivation().goal)
        self.relevant = relevant_counts(kb)
        self.planner = planner if planner is not None else Planner(
            config.planner, timeout=config.planner_timeout, cache=SHARED_PLAN_CACHE)
        self.world = World(self.world_spec)
        self.world.restore(snapshot)
        # Fine-tuning passes the action set the policy was trained with (same network outputs).
        self.action_names = (action_names if action_names is not None
                             else recovery_actions(self.world.action_names()))
        present = self.world.action_names()
        self._indices = np.array([present.index(n) if n in present else -1
                                  for n in self.action_names])
        self.builder = ObservationBuilder(self.world, self.world.main, config.observation)
        self.observation_space = self.builder.space
        self.action_space = spaces.Discrete(len(self.action_names))
        self.env_steps = 0  # over the env's lifetime: the adaptation cost
        self.episodes = 0
        self._t = 0
        self._z = abstract(self.world)
        self._verdicts: dict[SymbolicState, bool | None] = {}
        self._tails = [self._suffix_tails(f) for _, f in self.starts]  # once per start
        self._jumps: dict[tuple[SymbolicState, int], bool] = {}
        self._trace: list[tuple[str, SymbolicState, SymbolicState]] = []
        self.wins: list[Win] = []
        """The first `MAX_WINS` successful episodes, step by step (induction.py)."""

    # --- targets -------------------------------------------------------------------------
    def meets_target(self, z: SymbolicState) -> bool:
        """The failed operator's declared effects hold (relative to the failure state), the
        task goal holds, or the plan can jump ahead: some tail of the plan's suffix (one
        without the failed operator) runs from z to the goal."""
        return self._target(z) is not None

    def _target(self, z: SymbolicState) -> str | None:
        return self.target_of(z, self._start)

    def target_of(self, z: SymbolicState, start: int) -> str | None:
        """Which target z meets, measured against the failure of `start`: "effects", "goal",
        "jump", or None (public: the batched env, batched_env.py, asks it per copy)."""
        failure = self.starts[start][1]
        expected, _ = check_effects(failure.operator, failure.before, z,  # type: ignore[arg-type]
                                    self.relevant)
        if not expected:
            return "effects"
        if self.goal_holds(z):
            return "goal"
        return "jump" if self.jumps_ahead(z, start) else None

    def verdict(self, z: SymbolicState, target: str) -> bool | None:
        """What reaching z, which meets `target`, decides: True (a plan goes on from z
        without the failed operator: success), False (a dead end), None (the planner could
        not tell: the episode goes on)."""
        # a tail of the plan runs from z without the failed operator: that is a plan
        return True if target == "jump" else self.plannable(z)

    def goal_holds(self, z: SymbolicState) -> bool:
        return bool(self.goal) and all(z.count(INVENTORY, item) >= n
                                       for item, n in self.goal.items() if item in z.names)

    def jumps_ahead(self, z: SymbolicState, start: int = 0) -> bool:
        """docs/ADAPTATION.md's "jump ahead": z satisfies the regression of a tail of the suffix
        of the failure at `start`, checked by progressing the tail's declared effects from
        z (no planner call)."""
        key = (z, start)
        if key not in self._jumps:
            self._jumps[key] = any(self._tail_reaches_goal(z, tail)
                                   for tail in self._tails[start])
        return self._jumps[key]

    def _suffix_tails(self, failure: OperatorFailure) -> list[list[GroundOperator]]:
        """The tails of the failure's plan suffix that do not use the failed operator."""
        schemas = {e.operator.name: e.operator for e in self.kb}
        ops = [GroundOperator(schemas[s.operator], tuple(s.args)) for s in failure.suffix
               if s.operator in schemas]
        if len(ops) != len(failure.suffix):
            return []
        failed = failure.operator.name
        return [ops[j:] for j in range(len(ops))
                if all(op.name != failed for op in ops[j:])]

    def _tail_reaches_goal(self, z: SymbolicState, tail: list[GroundOperator]) -> bool:
        state = z
        try:
            for op in tail:
                if not state.satisfies(op.schema.preconditions, op.binding):
                    return False
                state = state.apply(op.schema.effects, op.binding)
        except ValueError:  # a name this state does not have
            return False
        return self.goal_holds(state)

    def plannable(self, z: SymbolicState) -> bool | None:
        """Can the goal be planned from z without the failed operator? Unknown answers are
        remembered for the env's life: the planner hit its bound there (about 10 s a
        question), and asking again in every episode that reaches z gets the same answer
        (the in-process search is deterministic) at the same price."""
        if z in self._verdicts:
            return self._verdicts[z]
        verdict = self.planner.plannable(self.planning, z, self.goal)
        if verdict is None:
            self._verdicts[z] = None
        return verdict

    # --- gymnasium -----------------------------------------------------------------------
    def action_mask(self) -> np.ndarray:
        mask = self.world.action_mask()[self._indices].astype(np.int8)
        mask[self._indices < 0] = 0
        return mask

    def _info(self, success: bool = False, **extra: Any) -> dict[str, Any]:
        return {"action_mask": self.action_mask(), "success": success, **extra}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._start = int(self.np_random.integers(len(self.starts))) if len(self.starts) > 1 else 0
        self.world.restore(self.starts[self._start][0])
        self.episodes += 1
        self._t = 0
        self._z = abstract(self.world)
        self._trace = []
        return self.builder.build(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        name = self.action_names[int(action)]
        outcome = self.world.step(name)
        self.env_steps += 1
        self._t += 1
        reward, terminated, success = self.config.step_reward, False, False
        extra: dict[str, Any] = {"action": name, "ok": outcome.ok, "reason": outcome.reason}
        z = abstract(self.world)
        self._trace.append((name, self._z, z))
        if z != self._z:
            self._z = z
            target = self._target(z)
            if target is not None:
                verdict = self.verdict(z, target)
                extra["plannable"] = verdict
                if verdict is True:
                    reward, terminated, success = self.config.success_reward, True, True
                    if len(self.wins) < MAX_WINS:
                        self.wins.append(Win(self._start, tuple(self._trace)))
                elif verdict is False:
                    reward, terminated = self.config.dead_end_reward, True
        truncated = not terminated and self._t >= self.config.horizon
        return self.builder.build(), float(reward), terminated, truncated, self._info(
            success, **extra)

    @property
    def abstract_state(self) -> SymbolicState:
        return self._z


def recovery_env_factory(spec: WorldSpec | SpecRef | CopyRecipe, snapshot: Snapshot,
                         failure: OperatorFailure, kb: KnowledgeBase,
                         config: RecoveryEnvConfig = RecoveryEnvConfig(),
                         **kwargs: Any) -> Callable[[], RecoveryEnv]:
    """A picklable zero-argument factory (for learning.train and vector envs). `spec`: the
    world to copy, or the agent's env's recipe for copies (hybrid/boundary)."""
    if isinstance(spec, CopyRecipe):
        spec = spec.spec
    ref = SpecRef.of(spec) if isinstance(spec, WorldSpec) else spec
    return partial(RecoveryEnv, ref, snapshot, failure, kb, config, **kwargs)


def from_failure(world: World, failure: OperatorFailure, kb: KnowledgeBase,
                 config: RecoveryEnvConfig = RecoveryEnvConfig(), **kwargs: Any) -> RecoveryEnv:
    """A RecoveryEnv for a failure observed in `world` (which is only read)."""
    if failure.snapshot is None:
        raise ValueError("the failure has no snapshot to restart from")
    return RecoveryEnv(world.spec, failure.snapshot, failure, kb, config, **kwargs)
