"""Agents: the random floor, the scripted agent and the planning agent (the protocol they
follow: protocol.py; the loop that executes and monitors a plan: hybrid/execution/
plan_executor.py).

Agents act on a Gymnasium env: a `NesyGridEnv`, or another env behind an adapter. Symbolic
agents read the symbolic state through their boundary (hybrid/boundary/interface.py: a
WorldAdapter over nesyworld's world, which gives full observability as NovelGym does, or an
adapter's Host, hybrid/adapters/), and they act by returning indices into the env's current
action names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from nesyworld.hybrid.boundary.interface import Host
from nesyworld.hybrid.boundary.world_adapter import WorldAdapter
from nesyworld.hybrid.execution.monitor import (
    OperatorFailure,
)
from nesyworld.hybrid.execution.plan_executor import drive
from nesyworld.hybrid.execution.skills import Mode
from nesyworld.hybrid.knowledge.prior import spec_actions
from nesyworld.hybrid.knowledge.regime import observed_types
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import count_thresholds
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner, PlanResult
from nesyworld.world import World
from nesyworld.world.actions.schema import INVENTORY
from nesyworld.world.errors import SpecError


class RandomAgent:
    """Uniformly random legal actions: the floor every other agent must beat."""

    name = "random"

    def __init__(self, env: Any, seed: int = 0, use_mask: bool = True) -> None:
        self.env = env
        self.rng = np.random.default_rng(seed)
        self.use_mask = use_mask

    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        names = getattr(self.env.unwrapped, "action_names", None)
        if names is None:  # an env that is not nesyworld's: no names, no mask
            return int(self.rng.integers(self.env.action_space.n))
        allowed = np.flatnonzero(info["action_mask"]) if self.use_mask else np.arange(len(names))
        legal = [int(i) for i in allowed if names[i] != "give_up"] or list(range(len(names)))
        return int(legal[self.rng.integers(len(legal))])

    def observe(self, *args: Any) -> None:
        return None

    def learn(self) -> dict[str, float]:
        return {}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"agent": self.name}))

    def load(self, path: str | Path) -> None:
        return None


@dataclass(frozen=True)
class PlanningConfig:
    """How the planning agent plans and executes."""

    planner: str = "fast-downward"
    """A registered planner. Fast Downward's plans are proven optimal, and which optimal plan
    an agent follows decides where a novelty breaks it and so what recovery learns: the
    paper-comparable recoveries (and the NovelGym figures in the README) were measured with
    it. "in-process" plans in milliseconds instead of about 0.3 s (plans of optimal length on
    15 of the 16 shipped pogostick tasks, not proven optimal; symbolic/planning/planners.py).
    The recovery's plannability questions, which only need yes or no, use "in-process"
    whatever this says (RecoveryEnvConfig.planner)."""
    mode: Mode = "macro"
    planner_timeout: float = 10.0
    max_plans: int = 30  # plans per episode before giving up
    max_failures_per_operator: int = 3


@dataclass(frozen=True)
class AgentEvent:
    """Something worth showing a user: a plan, an operator's outcome, a novelty."""

    step: int
    kind: str  # plan | no_plan | done | failure | drift | novelty | give_up
    text: str
    data: dict[str, Any] = field(default_factory=dict)


GIVE_UP = "give_up"


class PolicySkill(Protocol):
    """An operator carried out by a policy (a learned operator): the env actions it takes,
    one per step, reading the world afresh before each."""

    def actions(self, world: World, horizon: int | None = None) -> Iterator[str]: ...


def pre_novelty_actions(kb: KnowledgeBase, offered: Sequence[str] | None = None
                        ) -> tuple[str, ...]:
    """The env actions the agent knew before any novelty: those of the world its knowledge
    base was derived from (its spec file), with the actions of its own operators; when that
    spec has no file, what the env `offered` when the agent was made (before the
    novelty)."""
    source = kb.base.source
    own = tuple(dict.fromkeys(e.operator.action for e in kb
                              if not e.operator.action.startswith("policy:")))
    if source and not source.startswith("<"):
        try:
            return tuple(dict.fromkeys((*spec_actions(source), *own)))
        except (SpecError, OSError):  # the source moved or is unreadable: use what is here
            pass
    return tuple(offered) if offered is not None else own


class PlanningAgent:
    """Plan with the knowledge base, execute operator by operator, monitor every effect.

    On drift (an operator's preconditions do not hold) or a failure it replans from the
    current state; an operator that fails `max_failures_per_operator` times in an episode, or
    a task with no plan, ends the episode with give_up. Subclasses (the hybrid agent) override
    `on_failure` to learn instead.
    """

    name = "planning"

    def __init__(self, env: Any, kb: KnowledgeBase | None = None,
                 config: PlanningConfig = PlanningConfig(),
                 on_event: Callable[[AgentEvent], None] | None = None,
                 host: Host | None = None) -> None:
        self.env = env
        self.config = config
        self.host = host
        """The adapter of an env that is not nesyworld's own (docs/ADAPTERS.md); None: the
        env is a nesyworld env, seen through a WorldAdapter."""
        boundary = self.boundary
        self.kb = kb if kb is not None else boundary.knowledge()
        self.planner = Planner(config.planner, timeout=config.planner_timeout, cache=PlanCache())
        self.on_event = on_event
        self.events: list[AgentEvent] = []
        self.failures: list[OperatorFailure] = []
        self.known_types = {o.name for o in self.kb.base.objects}
        self.known_actions = set(pre_novelty_actions(self.kb, boundary.actions()))
        self.novelties: list[AgentEvent] = []
        self.learned: dict[str, PolicySkill] = {}
        """Operators executed by a policy (`policy:<name>` actions), by operator name."""
        self._driver: Iterator[str] | None = None
        self.last_info: dict[str, Any] = {}
        """The info of the latest step (a refusal's ok and reason)."""
        self.current: tuple[str, int] | None = None
        """The operator being executed and its index in the latest plan (for recordings)."""
        self.goal: dict[str, int] | None = None
        """A goal to plan for other than the task's (None: the task's); repair sets one to
        prepare a trial (hybrid/repair/preparation.py)."""

    @property
    def boundary(self) -> Host:
        """The agent's view of its env (hybrid/boundary/interface.py): its host, or a
        WorldAdapter that follows the env when the env is swapped (a novelty injected by the
        protocol)."""
        if self.host is not None:
            return self.host
        if getattr(self, "_boundary_of", None) is not self.env:
            self._boundary, self._boundary_of = WorldAdapter(self.env), self.env
        return self._boundary

    # --- the protocol ------------------------------------------------------------------------
    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        self._driver = self._drive()
        self.current = None
        self.failures_by_op: dict[str, int] = {}
        """Failures of each operator this episode that changed nothing (plan_executor.py)."""
        self.last_info = dict(info)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        if self._driver is None:
            self.reset(observation, info)
        self.last_info = dict(info)
        names = self.boundary.actions()
        if names != getattr(self, "_offered_seen", None):  # the actions changed
            self._offered_seen = names
            self.detect_novelty()
        give_up = self.boundary.give_up
        assert self._driver is not None  # `reset` made it
        action = next(self._driver, give_up)
        return names.index(action) if action in names else names.index(give_up)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: dict[str, Any]) -> None:
        self.last_info = dict(info)

    def learn(self) -> dict[str, float]:
        return {}

    def save(self, path: str | Path) -> None:
        folder = Path(path)
        self.kb.save(folder)
        (folder / "agent.json").write_text(json.dumps({"agent": self.name,
                                                        "config": asdict(self.config)}))

    def load(self, path: str | Path) -> None:
        """The knowledge base saved in `path` (KnowledgeBase.load's checks); a broken file is
        one located error (KnowledgeBaseError, a SpecError, or PDDLError), and the agent keeps
        its knowledge base when one is raised."""
        from nesyworld.hybrid.agents.saved_agent import load_knowledge_base

        self.kb = load_knowledge_base(path, self.kb.base)

    # --- reporting ---------------------------------------------------------------------------
    def emit(self, kind: str, text: str, **data: Any) -> None:
        event = AgentEvent(self.boundary.step_count, kind, text, data)
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def detect_novelty(self, z: SymbolicState | None = None) -> None:
        """Entity types observed and actions offered that the agent did not know, reported
        once each, with the step first seen. A type is new when the detector shows it (on the
        map, held, in the inventory or in front), not when the world registers it."""
        step = self.boundary.step_count
        for name in observed_types(z if z is not None else self.boundary.detect()):
            if name not in self.known_types:
                self.known_types.add(name)
                self.novelties.append(AgentEvent(step, "novelty", f"new entity type '{name}'",
                                            {"type": name}))
                self.emit("novelty", f"new entity type '{name}' observed", type=name)
        for name in self.boundary.actions():
            if name not in self.known_actions:
                self.known_actions.add(name)
                self.novelties.append(AgentEvent(step, "novelty", f"new action '{name}'",
                                            {"action": name}))
                self.emit("novelty", f"new action '{name}' available", action=name)

    # --- what the executor asks (hybrid/execution/plan_executor.py) ---------------------
    def relevant_counts(self) -> set[tuple[str, str]]:
        """Counts some precondition or the goal compares: the only ones a plan relies on."""
        planning = self.kb.derivation()  # a new object whenever the knowledge base changes
        goal = self.task_goal
        if getattr(self, "_relevant_for", None) != (id(planning), goal):
            keys = set(count_thresholds(planning.operators))
            keys |= {(INVENTORY, item) for item in goal}
            self._relevant, self._relevant_for = keys, (id(planning), goal)
        return self._relevant

    @property
    def task_goal(self) -> dict[str, int]:
        """The goal of the task as the world states it now: the agent is told its task (a
        goal novelty changes what it is asked, not what it knows how to do), unless the
        agent was given another goal."""
        return dict(self.goal) if self.goal is not None else self.boundary.goal()

    def plan(self) -> PlanResult:
        return self.planner.plan(self.kb.derivation(), self.boundary.detect(), self.task_goal)

    def on_failure(self, failure: OperatorFailure) -> Iterator[str]:
        """What to do after a failure, as env actions to take; the planning agent just
        replans (nothing to do here)."""
        return iter(())

    def on_no_plan(self) -> bool:
        """What to do when the knowledge base has no plan from here; True when it changed
        and planning again may help. The planning agent can do nothing."""
        return False

    def _drive(self) -> Iterator[str]:
        return drive(self)


class ScriptedAgent:
    """Replays a fixed action sequence (a shipped `.plan`), then gives up: the reference that
    shows a world works before any planner is involved."""

    name = "scripted"

    def __init__(self, env: Any, script: list[str]) -> None:
        self.env = env
        self.script = list(script)
        self._i = 0

    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        self._i = 0

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        names = self.env.unwrapped.action_names
        action = self.script[self._i] if self._i < len(self.script) else GIVE_UP
        self._i += 1
        return names.index(action)

    def observe(self, *args: Any) -> None:
        return None

    def learn(self) -> dict[str, float]:
        return {}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"agent": self.name, "script": self.script}))

    def load(self, path: str | Path) -> None:
        """The script `save` wrote, read as any user file is (json_input.py): a FIFO, a
        broken document or a wrong field is one located SpecError."""
        from nesyworld.world.simulation.json_input import Fields, read_json

        name = str(path)
        f = Fields(name)
        doc = f.mapping(read_json(path, name, what="a script saved by ScriptedAgent.save",
                                  max_bytes=64 * 2**20), "", ("script",), ("agent",))
        steps = f.listing(doc["script"], "script", 1_000_000, "a list of action names")
        self.script = [f.string(a, f"script[{i}]", 200, "an action name")
                       for i, a in enumerate(steps)]
