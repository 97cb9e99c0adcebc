"""nesyworld's own world behind the environment boundary (interface.py).

The only module of hybrid/ that reads a `World` beyond its state: the detector is the
world's abstraction (symbolic/derivation/abstraction.py), the offered actions are the env's,
and copies for trials, verification and recovery are the world's spec restored from a
snapshot, the way the simulator itself saves and restores. The spec, the type hierarchy and
the registries go to no one else, except through `oracle`, the labelled baseline's door.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from nesyworld.hybrid.boundary.interface import Environment, OracleRefused, Outcome
from nesyworld.hybrid.boundary.oracle_model import goal_reachable, relaxed_reachable
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.execution.skills import Mode, Primitives, SkillStop, skill_actions
from nesyworld.hybrid.knowledge.options import Knowledge
from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import Snapshot, World
from nesyworld.world.envs.gym_env import NesyGridEnv, Refusals
from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig
from nesyworld.world.spec.model import WorldSpec


def body(world: World) -> tuple[tuple[str, str, str | None], ...]:
    """The main agent's offered primitive actions as (name, kind, direction), read from the
    action registry: the moves and turns a navigation skill walks with (the skills of
    hybrid/execution/skills.py)."""
    names = set(world.action_names())
    return tuple((a.name, getattr(a, "registered_name", ""), a.spec.params.get("direction"))
                 for a in world.actions.values() if a.name in names)


def oracle(world: World, knowledge: Knowledge) -> World:
    """`world`, model and all, for the oracle regime's reads; refused in any other."""
    if knowledge != "oracle":
        raise OracleRefused("the post-novelty world's model is the oracle's; this agent "
                            f"runs in the {knowledge!r} knowledge regime")
    return world


@dataclass(frozen=True)
class CopyRecipe:
    """How to make restored copies of a world in another process (picklable): its spec and
    whether its copies explain refusals. Held by the adapter and the recovery env, read by
    no agent."""

    spec: WorldSpec
    refusals: Refusals = "explained"

    def env(self, snapshot: Snapshot | None = None) -> NesyGridEnv:
        """A fresh env of the world, restored to `snapshot` when given."""
        env = NesyGridEnv(self.spec, refusals=self.refusals)
        env.reset(seed=0)
        if snapshot is not None:
            env.world.restore(snapshot)
        return env

    def adapter(self, snapshot: Snapshot | None = None) -> WorldAdapter:
        """The same, as the agent sees it."""
        return WorldAdapter(self.env(snapshot))


class WorldAdapter:
    """A nesyworld env (a NesyGridEnv, possibly wrapped) as an `Environment`."""

    give_up = "give_up"

    def __init__(self, env: Any) -> None:
        self.env = env
        self._primitives: Primitives | None = None

    @classmethod
    def of_world(cls, world: World, refusals: Refusals = "explained") -> WorldAdapter:
        """An adapter over a bare world (an env made around it)."""
        return cls(NesyGridEnv(world=world, refusals=refusals))

    @property
    def _world(self) -> World:
        return self.env.unwrapped.world

    @property
    def refusals(self) -> Refusals:
        return getattr(self.env.unwrapped, "refusals", "explained")

    # --- the interface -------------------------------------------------------------------
    def detect(self) -> SymbolicState:
        return abstract(self._world)

    def actions(self) -> tuple[str, ...]:
        """The names `step` indexes: the env's own tuple, rebuilt when a novelty changes
        the actions (NesyGridEnv.use_world), so it is the same object from step to step."""
        return self.env.unwrapped.action_names

    def step(self, action: str) -> Outcome:
        names = self.env.unwrapped.action_names
        _, reward, terminated, truncated, info = self.env.step(names.index(action))
        return Outcome(bool(info.get("ok", True)), str(info.get("reason", "")),
                       float(reward), bool(terminated), bool(truncated),
                       bool(info.get("success", False)))

    def goal(self) -> dict[str, int]:
        """The task as the world states it now: the agent is told its task (a goal novelty
        changes what it is asked, not what it knows how to do)."""
        return dict(self._world.spec.goal)

    def snapshot(self) -> Snapshot:
        return self._world.snapshot()

    def restore(self, snapshot: Snapshot) -> None:
        self._world.restore(snapshot)

    def copy(self, snapshot: Snapshot | None = None) -> WorldAdapter:
        """A copy of the world in a fresh env, restored to `snapshot` (default: now); it
        explains refusals as this env does, no more."""
        return WorldAdapter(self.recipe.env(snapshot if snapshot is not None
                                            else self.snapshot()))

    # --- beyond the interface ------------------------------------------------------------
    @property
    def recipe(self) -> CopyRecipe:
        return CopyRecipe(self._world.spec, self.refusals)

    @property
    def step_count(self) -> int:
        return int(self._world.state.step)

    def body(self) -> tuple[tuple[str, str, str | None], ...]:
        """The moves and turns a navigation skill walks with (`body`)."""
        return body(self._world)

    def observation_space(self, config: ObservationConfig) -> Any:
        """The space of the observations a learned policy reads in copies of this env."""
        return ObservationBuilder(self._world, self._world.main, config).space

    def goal_reached(self) -> bool:
        return bool(self._world.goal_reached())

    def skill(self, op: GroundOperator, mode: Mode) -> Iterator[str | SkillStop]:
        """The world's own skills (hybrid/execution/skills.py): the action, repeated as its
        operator says, or a walk of primitive moves in "primitive" mode."""
        if self._primitives is None:
            self._primitives = Primitives(self.body())
        return skill_actions(self._world, op, mode, self._primitives)

    def run_policy(self, skill: Any) -> Iterator[str]:
        """A learned operator's env actions: its policy reads the observations of the world
        behind this adapter (hybrid/recovery/learned_operator.py)."""
        return skill.actions(self._world)

    def knowledge(self) -> KnowledgeBase:
        """What the world's registries declare now: the agent is made before the novelty."""
        return KnowledgeBase.from_world(self._world)

    def oracle(self, knowledge: Knowledge) -> World:
        """The post-novelty world itself, model and all: only in the oracle regime."""
        return oracle(self._world, knowledge)

    # --- the oracle's reads, each refused outside the oracle regime ------------------------
    def oracle_types(self, knowledge: Knowledge) -> tuple[str, ...]:
        """Every entity type the changed world registers."""
        return tuple(self.oracle(knowledge).types.names)

    def oracle_operators(self, knowledge: Knowledge) -> list[Any]:
        """The changed world's own derived operators."""
        return derive(self.oracle(knowledge)).operators

    def oracle_parents(self, knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
        """The changed world's type hierarchy: each type's parents."""
        return {n: tuple(et.parents)
                for n, et in self.oracle(knowledge).spec.entity_types.items()}

    def oracle_goal_reachable(self, knowledge: Knowledge, snapshot: Any) -> bool | None:
        """The dead-end test on the changed world's own model (oracle_model.py)."""
        return goal_reachable(self.oracle(knowledge).spec, snapshot)

    def oracle_reachable(self, knowledge: Knowledge, snapshot: Any
                         ) -> set[tuple[str, str]] | None:
        """What the changed world's own model can bring about from `snapshot`, relaxed."""
        return relaxed_reachable(self.oracle(knowledge).spec, snapshot)


def oracle_adapter(env: Environment) -> WorldAdapter:
    """`env` for the oracle's reads: only nesyworld's own world, behind a WorldAdapter, has a
    model to read; another env's host (hybrid/adapters/) has none, and is refused."""
    if not isinstance(env, WorldAdapter):
        raise OracleRefused(f"the oracle regime reads the world's own model, which "
                            f"{type(env).__name__} does not have")
    return env
