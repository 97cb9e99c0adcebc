"""The environment boundary: everything a nesyworld agent may learn of an environment.

Novelty research asks how an agent copes with a change it was not told about, so the agent
must not be able to read the changed world's model behind its back. An agent (planning,
hybrid, model repair, recovery) sees an environment only as an `Environment`:

- `detect()`: the detector's abstract state over the knowledge base's vocabulary; a name the
  knowledge base does not know is reported as a name, nothing more (its category, its
  actions and its recipes stay unknown);
- `actions()`: the names of the actions offered now;
- `step(action)`: the step's `Outcome`: accepted or refused, the refusal's reason only if
  the environment gives one, the reward, and whether the episode ended;
- `goal()`: the task the agent is asked to do;
- `snapshot()` / `restore()` / `copy()`: optional; recovery restarts from saved states and
  repair verifies a change in a restored copy. Every step taken there is an env step and
  counts in T_adapt.

nesyworld's own world is one adapter behind this interface (world_adapter.py). The post-
novelty world's own model (its spec, type hierarchy, registries, derived PDDL) is reachable
only through `WorldAdapter.oracle`, which refuses outside the labelled `oracle` knowledge
regime (hybrid/knowledge/regime.py). tests/hybrid/test_boundary.py checks that no other
module of hybrid/ reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from nesyworld.symbolic.derivation.abstraction import SymbolicState

if TYPE_CHECKING:
    from nesyworld.hybrid.execution.operators import GroundOperator
    from nesyworld.hybrid.execution.skills import Mode, SkillStop
    from nesyworld.symbolic.knowledge_base import KnowledgeBase


@dataclass(frozen=True)
class Outcome:
    """What one step showed."""

    accepted: bool
    reason: str = ""
    """Why the action was refused: "" when it was accepted or the environment does not say
    (silent refusals)."""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    success: bool = False


@runtime_checkable
class Environment(Protocol):
    """The agent's whole view of an environment (module docstring)."""

    def detect(self) -> SymbolicState: ...

    def actions(self) -> tuple[str, ...]: ...

    def step(self, action: str) -> Outcome: ...

    def goal(self) -> dict[str, int]: ...

    def snapshot(self) -> Any: ...

    def restore(self, snapshot: Any) -> None: ...

    def copy(self, snapshot: Any | None = None) -> Environment: ...


@runtime_checkable
class Host(Environment, Protocol):
    """An `Environment` the planning agent can also carry out plans in: what an adapter
    for another environment provides (docs/ADAPTERS.md)."""

    give_up: str
    """The env action that ends an episode when the agent has no plan left."""

    env: Any
    """The Gymnasium env it hosts (the one `run_episode` steps)."""

    @property
    def recipe(self) -> Copies:
        """How to make restored copies of it: repair verifies and experiments in them."""
        ...

    @property
    def step_count(self) -> int: ...

    def copy(self, snapshot: Any | None = None) -> Host:
        """A restored copy that is a host too (repair's trials run plans in it)."""
        ...

    def goal_reached(self) -> bool: ...

    def skill(self, op: GroundOperator, mode: Mode) -> Iterator[str | SkillStop]:
        """The env actions (names) that carry out one planned operator, one per step, the
        env read afresh before each; a SkillStop when it cannot go on."""
        ...

    def knowledge(self) -> KnowledgeBase:
        """The agent's knowledge before any novelty: the operators it starts with."""
        ...

    def run_policy(self, skill: Any) -> Iterator[str]:
        """The env actions of a learned operator's policy, one per step; a host whose agent
        cannot learn (hybrid/adapters/) is never given one."""
        ...


class Copies(Protocol):
    """Restored copies of a host, for repair's trials and verification."""

    def adapter(self, snapshot: Any | None = None) -> Host: ...


@dataclass(frozen=True)
class HostCopies:
    """Copies made by a host's own `copy` (an adapter's deep copy of its env)."""

    host: Host

    def adapter(self, snapshot: Any | None = None) -> Host:
        return self.host.copy(snapshot)


class OracleRefused(PermissionError):
    """The post-novelty world's own model was asked for outside the oracle regime."""
