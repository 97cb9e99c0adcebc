"""Running agents on the Gymnasium view: one episode, or many with a summary."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nesyworld.hybrid.agents.protocol import Agent


@dataclass
class EpisodeResult:
    seed: int | None
    success: bool
    steps: int
    reward: float
    wall_seconds: float
    failures: list[dict[str, Any]] = field(default_factory=list)


def run_episode(env: Any, agent: Agent, seed: int | None = None,
                on_step: Callable[[dict[str, Any]], None] | None = None) -> EpisodeResult:
    """One episode: reset, then act and observe until termination or truncation.
    `on_step` sees the info of the reset and of every step (to record a trajectory, say)."""
    start = time.perf_counter()
    failures_before = len(getattr(agent, "failures", []))
    obs, info = env.reset(seed=seed)
    agent.reset(obs, info)
    if on_step is not None:
        on_step(info)
    total, steps, terminated, truncated = 0.0, 0, False, False
    while not (terminated or truncated):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(obs, float(reward), terminated, truncated, info)
        if on_step is not None:
            on_step(info)
        total += float(reward)
        steps += 1
    failures = [f.to_dict() for f in getattr(agent, "failures", [])[failures_before:]]
    return EpisodeResult(seed, succeeded(agent, info), steps, total,
                         time.perf_counter() - start, failures)


def succeeded(agent: Agent, info: dict[str, Any]) -> bool:
    """nesyworld's envs say so in `info`; another env's host tells whether the goal is
    reached (hybrid/boundary/interface.py), and an agent without one did not succeed."""
    if "success" in info:
        return bool(info["success"])
    host = getattr(agent, "host", None)
    return bool(host is not None and host.goal_reached())


def summarize(results: list[EpisodeResult], planner_seconds: float = 0.0) -> dict[str, Any]:
    """The summary the CLI prints (and emits as JSON)."""
    n = len(results)
    successes = sum(r.success for r in results)
    wall = sum(r.wall_seconds for r in results)
    steps = sum(r.steps for r in results)
    by_op = Counter(f["operator"].split("(")[0] for r in results for f in r.failures)
    return {
        "episodes": n,
        "successes": successes,
        "success_rate": successes / n if n else 0.0,
        "mean_steps": steps / n if n else 0.0,
        "failures_by_operator": dict(by_op),
        "planner_seconds": planner_seconds,
        "wall_seconds": wall,
        "steps_per_second": steps / wall if wall > 0 else None,
    }
