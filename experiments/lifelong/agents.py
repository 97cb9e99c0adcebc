"""Agents for the lifelong protocol: the hybrid layer's random and scripted agents, and a
greedy agent that reads the reward schedule.

The greedy agent is the yardstick a learner in a lifelong world should approach: it always
knows which harvest pays now, so the gap between it and the random agent is what there is to
learn, and its dips at phase changes show what a schedule switch costs even when you know.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from nesyworld.world.spec.model import WorldSpec

AGENTS = ("random", "scripted", "greedy")


class GreedyScheduleAgent:
    """Harvests the source that pays most under the current phases: approach it, break it.

    A source's value is the sum over its drops of count x what the schedules pay for that item
    now; with nothing worth more than 0 it waits (`nop`). Actions the mask refuses are skipped
    for the next best source, so a source that is gone or unreachable costs no steps.
    """

    name = "greedy"

    def __init__(self, env: Any, seed: int = 0) -> None:
        self.env = env
        world = env.unwrapped.world
        spec: WorldSpec = world.spec
        assert spec.lifelong is not None, "made for lifelong specs (load_lifelong)"
        self.lifelong = spec.lifelong
        self.names = env.unwrapped.action_names
        self.sources = [t for t in spec.concrete_types
                        if spec.entity_types[t].breakable and spec.entity_types[t].drops
                        and f"approach_{t}" in self.names]
        self.types = world.types
        self.world = world
        self.rng = np.random.default_rng(seed)

    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        return None

    def value(self, source: str, step: int) -> float:
        drops = self.world.spec.entity_types[source].drops
        return sum(s.phase_at(step).pays.get(item, 0.0) * n
                   for s in self.lifelong.schedules for item, n in drops.items())

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        mask, step = info["action_mask"], self.world.state.step
        ranked = sorted(((self.value(t, step), t) for t in self.sources), reverse=True)
        front = self.types.names[self.world.front_type(self.world.main)]
        for value, source in ranked:
            if value <= 0:
                break
            if front == source and mask[self.names.index("break")]:
                return self.names.index("break")
            approach = self.names.index(f"approach_{source}")
            if mask[approach]:
                return approach
        return self.names.index("nop") if "nop" in self.names else int(np.flatnonzero(mask)[0])

    def observe(self, *args: Any) -> None:
        return None

    def learn(self) -> dict[str, float]:
        return {}

    def save(self, path: str | Path) -> None:
        Path(path).write_text('{"agent": "greedy"}')

    def load(self, path: str | Path) -> None:
        return None


def harvest_script(spec: WorldSpec, steps: int) -> list[str]:
    """Approach and break every regrowing type in turn, for `steps` actions: blind to the
    schedule, so it shows what ignoring the phases costs."""
    if spec.lifelong is None:
        raise ValueError(f"spec '{spec.name}' is not lifelong: the scripted agent has no "
                         "harvest to loop over")
    loop = [a for t in spec.lifelong.regrow for a in (f"approach_{t}", "break")]
    if not loop:
        raise ValueError(f"spec '{spec.name}' regrows nothing: the scripted agent has no "
                         "harvest to loop over")
    return (loop * (steps // len(loop) + 1))[:steps]


def make_agent(name: str, env: Any, steps: int, seed: int = 0) -> Any:
    """One of AGENTS for `env` (a NesyGridEnv on a lifelong spec)."""
    from nesyworld.hybrid.agents.planning_agent import RandomAgent, ScriptedAgent

    factories: dict[str, Callable[[], Any]] = {
        "random": lambda: RandomAgent(env, seed=seed),
        "scripted": lambda: ScriptedAgent(env, harvest_script(env.unwrapped.world.spec, steps)),
        "greedy": lambda: GreedyScheduleAgent(env, seed=seed),
    }
    if name not in factories:
        raise ValueError(f"unknown lifelong agent '{name}'; expected one of {', '.join(AGENTS)}")
    return factories[name]()
