"""Verifying a repair by execution: the planning agent, with the repaired knowledge base, runs
in a copy of the world restored to the agent's current state.

A repair is kept only when this run either reaches the goal or executes a repaired operator
and the monitor finds it did what it now declares, with no failure of a repaired operator on
the way. The copy is made by the agent's env (hybrid/boundary/world_adapter.py) and restored
from a snapshot, as the recovery env does for learning, so the agent's episode is not
touched; every step it takes is counted.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.boundary.interface import Copies
from nesyworld.hybrid.execution.skills import Mode
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import Snapshot

Verdict = Literal["goal", "progress", "refuted", "no_plan", "inconclusive"]
ACCEPTED: frozenset[str] = frozenset({"goal", "progress"})


@dataclass(frozen=True)
class Verification:
    verdict: Verdict
    env_steps: int
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict in ACCEPTED


def verify(copies: Copies, snapshot: Snapshot, kb: KnowledgeBase,
           watched: Collection[str], *, planner: Planner | None = None,
           skills: Mapping[str, Any] | None = None, known_types: Collection[str] = (),
           known_actions: Collection[str] = (), max_steps: int = 300, mode: Mode = "macro"
           ) -> Verification:
    """Run the planning agent with `kb` from `snapshot` until the goal, a failure of a
    `watched` (repaired) operator, the end of the episode or `max_steps`. The copy explains
    its refusals as the agent's own env does, no more."""
    view = copies.adapter(snapshot)
    env = view.env
    agent = PlanningAgent(env, kb, PlanningConfig(mode=mode,
                                                  max_failures_per_operator=1), host=view)
    if planner is not None:
        agent.planner = planner
    agent.learned = dict(skills or {})
    agent.known_types |= set(known_types)
    agent.known_actions |= set(known_actions)
    info: dict[str, Any] = {"ok": True}
    agent.reset(None, info)
    steps = 0
    watched = set(watched)
    for _ in range(max_steps):
        _, reward, terminated, truncated, info = env.step(agent.act(None, info))
        steps += 1
        agent.observe(None, float(reward), terminated, truncated, info)
        bad = next((f for f in agent.failures if f.operator.name in watched), None)
        if bad is not None:
            return Verification("refuted", steps, str(bad))
        if terminated or truncated:
            break
    if info.get("success") or agent.boundary.goal_reached():
        return Verification("goal", steps)
    if not any(e.kind == "plan" for e in agent.events):
        return Verification("no_plan", steps, next(
            (e.text for e in agent.events if e.kind == "no_plan"), ""))
    done = [e for e in agent.events if e.kind == "done"
            and str(e.data.get("operator", "")).split("(")[0] in watched]
    if done:
        return Verification("progress", steps, f"{done[0].text} did what it declares")
    return Verification("inconclusive", steps, "the repaired operators never ran")
