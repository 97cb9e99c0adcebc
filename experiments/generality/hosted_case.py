"""One generality case on an env that is not nesyworld's: a novelty class (a
`gymnasium.Wrapper` naming its `task`) applied to its MiniGrid (or other hosted) task.

The same two questions as run.py's cases, with the same record: does the novelty break the
plan of the planning agent (which plans from what it observes, with the adapter's domain),
and does a repair+ hybrid agent recover (experiments/protocol/hosted.py)?
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from nesyworld.experiments.generality.run import probe_record
from nesyworld.experiments.protocol.hosted import adapt_hosted, host, make_env, novelty_class


def is_class_ref(novelty: str) -> bool:
    return ":" in novelty and not novelty.endswith((".yaml", ".yml"))


def probe_hosted(task: str, ref: str, seed: int) -> dict[str, Any]:
    from nesyworld.hybrid import PlanningAgent, PlanningConfig, run_episode
    from nesyworld.hybrid.seeding import RunSeeds

    env = make_env(task, [ref])
    env.reset(seed=seed)
    agent = PlanningAgent(env, config=PlanningConfig(planner="in-process"), host=host(env))
    return probe_record(agent, run_episode(env, agent, seed=RunSeeds(seed).evaluation(0)))


def run_hosted_case(ref: str, config: Any, recovered_at: float) -> dict[str, Any]:
    cls = novelty_class(ref)
    task = cls.task
    start = time.perf_counter()
    name = ref.rpartition(":")[2]
    record: dict[str, Any] = {"key": name, "case": name, "novelty": ref, "task": task,
                              "level": cls.level, "category": cls.category,
                              "config": asdict(config), "knowledge": config.knowledge,
                              "refusals": "explained", **probe_hosted(task, ref, config.seed)}
    run = adapt_hosted(task, [ref], config.agent, seed=config.seed,
                       knowledge=config.knowledge, max_episodes=config.max_episodes,
                       eval_episodes=config.eval_episodes)
    s_post = float(run["post_novelty_success_rate"])
    recovered = s_post >= recovered_at
    how = ("not recovered" if not recovered
           else "repaired" if run["repaired_operators"]
           else "plan copes" if record["plan_succeeds"] else "replanned")
    record.update({"s_post": s_post, "recovered": recovered, "adapted": bool(run["adapted"]),
                   "t_adapt": run["t_adapt"], "learning_steps": run["learning_steps"],
                   "how": how, "learned_operators": run["learned_operators"],
                   "repaired_operators": run["repaired_operators"],
                   "recoveries": [r.get("method", "learning") for r in run["recoveries"]],
                   "wall_seconds": round(time.perf_counter() - start, 2)})
    return record
