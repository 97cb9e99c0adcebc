"""The plan executor: plan with the knowledge base, run each operator through the agent's
boundary (its skill, or a learned operator's policy), and check what changed.

Every step of an operator is an env action yielded to the caller (the agent's `act`), so the
executor is a generator over env actions: between two actions the env moves and the agent's
`last_info` says whether the action was refused. After an operator, `check_effects` compares
its declared effects with the symbolic states before and after (monitor.py); a mismatch, a
refusal or an undeclared change is an `OperatorFailure` handed to the agent's `on_failure`
(the planning agent replans; the hybrid agent repairs, experiments or learns). Preconditions
that no longer hold before an operator are drift: replan.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, Protocol

from nesyworld.hybrid.boundary.interface import Host
from nesyworld.hybrid.execution.monitor import (
    OperatorFailure,
    check_effects,
    tolerated,
    undeclared,
)
from nesyworld.hybrid.execution.operators import GroundOperator, ground
from nesyworld.hybrid.execution.skills import SkillStop
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanResult

__all__ = ["Executing", "drive", "execute"]


class Executing(Protocol):
    """What the executor asks of the agent it drives (the planning agent and its
    subclasses)."""

    config: Any  # PlanningConfig: max_plans, max_failures_per_operator, mode
    kb: KnowledgeBase
    failures: list[OperatorFailure]
    failures_by_op: dict[str, int]
    last_info: dict[str, Any]
    learned: dict[str, Any]
    current: tuple[str, int] | None

    @property
    def boundary(self) -> Host: ...

    def plan(self) -> PlanResult: ...

    def on_failure(self, failure: OperatorFailure) -> Iterator[str]: ...

    def on_no_plan(self) -> bool: ...

    def emit(self, kind: str, text: str, **data: Any) -> None: ...

    def detect_novelty(self, z: SymbolicState | None = None) -> None: ...

    def relevant_counts(self) -> set[tuple[str, str]]: ...


def drive(agent: Executing) -> Iterator[str]:
    """One episode's env actions: plan, execute each operator, and on a failure let the
    agent deal with it and plan again, up to `max_plans` plans; give up when an operator
    keeps failing without the agent changing its knowledge base, or when no plan is left."""
    cfg = agent.config
    for _ in range(cfg.max_plans):
        agent.detect_novelty()
        if agent.boundary.goal_reached():
            return
        result = agent.plan()
        if not result.ok:
            agent.emit("no_plan", f"no plan ({result.status}): {result.message}".strip())
            if result.status == "unsolvable":
                if agent.on_no_plan():
                    continue  # the knowledge base changed: plan again
                break
            yield "nop"
            continue
        agent.emit("plan", f"plan of {len(result)} operators in {result.seconds:.2f} s",
                   plan=[str(s) for s in result.steps], cached=result.cached)
        operators = {e.operator.name: e.operator for e in agent.kb}
        steps = [ground(s, operators) for s in result.steps]
        for k, op in enumerate(steps):
            agent.current = (str(op), k)
            failure = yield from execute(agent, op, tuple(result.steps[k + 1:]))
            if failure == "drift":
                break
            if failure is not None:
                agent.failures.append(failure)
                agent.emit("failure", str(failure), failure=failure.to_dict())
                if failure.kind == "undeclared":  # it did its job, and more: replan
                    yield from agent.on_failure(failure)
                    break
                kb = agent.kb
                yield from agent.on_failure(failure)
                # a failure that changed the knowledge base (repaired, learned) is dealt
                # with: it does not count toward giving up
                count = agent.failures_by_op.get(op.name, 0) + (agent.kb is kb)
                agent.failures_by_op[op.name] = count
                if count >= cfg.max_failures_per_operator:
                    agent.emit("give_up", f"{op.name} failed {count} times")
                    yield agent.boundary.give_up
                    return
                break
    agent.current = None
    agent.emit("give_up", "out of plans")
    yield agent.boundary.give_up


def execute(agent: Executing, op: GroundOperator, suffix: tuple[Any, ...]
            ) -> Generator[str, None, Any]:
    """Run one operator; returns None on success, "drift", or an OperatorFailure."""
    view = agent.boundary
    z0 = view.detect()
    agent.detect_novelty(z0)
    if not z0.satisfies(op.schema.preconditions, op.binding):
        agent.emit("drift", f"{op}: preconditions no longer hold; replanning")
        return "drift"
    snapshot = view.snapshot()
    start = view.step_count
    learned = agent.learned.get(op.name)
    actions = (view.run_policy(learned) if learned is not None
               else view.skill(op, agent.config.mode))
    for action in actions:
        if isinstance(action, SkillStop):
            return OperatorFailure(op, "refused", action.reason, [], [], snapshot, suffix,
                                   start, z0, view.detect(), view.step_count)
        yield action
        # a refused step of a walk is re-routed by the skill; only the operator's own
        # action being refused is a failure
        if action == op.env_action and not agent.last_info.get("ok", True):
            return OperatorFailure(op, "refused", str(agent.last_info.get("reason", "")), [],
                                   [], snapshot, suffix, start, z0, view.detect(),
                                   view.step_count)
    z1 = view.detect()
    expected, observed = check_effects(op, z0, z1, agent.relevant_counts())
    if expected and not tolerated(op, z0, z1, expected):
        return OperatorFailure(op, "effect_mismatch", "", expected, observed, snapshot,
                               suffix, start, z0, z1, view.step_count)
    # a learned operator promises only the change common to all its checked rollouts;
    # what else its policy does varies and is not promised
    extra = undeclared(op, z0, z1) if learned is None else []
    if extra:
        return OperatorFailure(op, "undeclared", "", [], extra, snapshot, suffix, start,
                               z0, z1, view.step_count)
    agent.emit("done", f"{op}", operator=str(op), steps=view.step_count - start)
    return None
