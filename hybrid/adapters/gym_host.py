"""What every adapter of a Gymnasium env does the same way: a step by action name, copies by
deep copy (the novelty wrappers come along), a knowledge base from the adapter's domain,
the goal read from what it detects, one env action per operator repeated as the operator
says. An adapter subclasses it and supplies `domain` and the env-specific parts (detect,
actions, goal, snapshot, restore, step_count, and skills such as walks)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from nesyworld.hybrid.boundary.interface import HostCopies, Outcome
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.execution.skills import SkillStop, repeated_on
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.knowledge_base import KnowledgeBase


class GymHost:
    """The shared half of an adapter (module docstring)."""

    give_up = "done"
    domain: Derivation

    def __init__(self, env: Any) -> None:
        self.env = env

    def detect(self) -> SymbolicState:
        raise NotImplementedError

    def actions(self) -> tuple[str, ...]:
        raise NotImplementedError

    def goal(self) -> dict[str, int]:
        raise NotImplementedError

    def snapshot(self) -> Any:
        raise NotImplementedError

    def restore(self, snapshot: Any) -> None:
        raise NotImplementedError

    @property
    def step_count(self) -> int:
        raise NotImplementedError

    def step(self, action: str) -> Outcome:
        _, reward, terminated, truncated, _ = self.env.step(self.actions().index(action))
        return Outcome(True, "", float(reward), bool(terminated), bool(truncated),
                       bool(terminated and self.goal_reached()))

    def copy(self, snapshot: Any | None = None) -> GymHost:
        twin = type(self)(copy.deepcopy(self.env))
        twin.restore(snapshot if snapshot is not None else self.snapshot())
        return twin

    @property
    def recipe(self) -> HostCopies:
        return HostCopies(self)

    def goal_reached(self) -> bool:
        return self.detect().carries(self.goal())

    def skill(self, op: GroundOperator, mode: str) -> Iterator[str | SkillStop]:
        return repeated_on(self.detect, op)  # `repeat` times, until something changes

    def run_policy(self, skill: Any) -> Iterator[str]:
        raise NotImplementedError("learned policies run on nesyworld's own worlds only")

    def knowledge(self) -> KnowledgeBase:
        return KnowledgeBase(self.domain.with_state(self.detect(), self.goal()))
