"""Planning-agent overhead: primitive env steps per second over whole episodes, and the share
of wall time spent in the planner, beside the raw env stepped with random actions in the same
run (the reference: these machines are shared, so only ratios are comparable).

    python -m nesyworld.experiments.benchmarks.executor --episodes 30
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from nesyworld.hybrid import PlanningAgent, PlanningConfig, run_episode, summarize
from nesyworld.world.envs.gym_env import NesyGridEnv


def raw_env_steps_per_second(spec: str, steps: int, seed: int) -> float:
    env = NesyGridEnv(spec)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = rng.integers(env.action_space.n, size=steps)
    start = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="pogostick")
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rows = []
    reference = raw_env_steps_per_second(args.spec, 20_000, args.seed)
    for mode in ("primitive", "macro"):
        agent = PlanningAgent(NesyGridEnv(args.spec), config=PlanningConfig(mode=mode))
        results = [run_episode(agent.env, agent, seed=args.seed + i)
                   for i in range(args.episodes)]
        s = summarize(results, agent.planner.seconds)
        rows.append({
            "mode": mode, "success_rate": s["success_rate"], "mean_steps": s["mean_steps"],
            "steps_per_second": s["steps_per_second"],
            "ratio_to_raw_env": s["steps_per_second"] / reference,
            "planner_share": s["planner_seconds"] / s["wall_seconds"],
            "steps_per_second_outside_planner": s["mean_steps"] * s["episodes"]
            / max(s["wall_seconds"] - s["planner_seconds"], 1e-9),
            "planner_calls": agent.planner.calls,
            "cache_hits": agent.planner.cache.hits,
        })
    if args.json:
        print(json.dumps({"raw_env_steps_per_second": reference, "rows": rows}, indent=1))
        return
    table = Table(title=f"planning agent on {args.spec}, {args.episodes} episodes; raw env "
                        f"(random actions): {reference:,.0f} steps/s")
    for col in ("mode", "success", "mean steps", "steps/s", "× raw env", "planner share",
                "steps/s without planner", "planner calls", "cache hits"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["mode"], f"{r['success_rate']:.2f}", f"{r['mean_steps']:.1f}",
                      f"{r['steps_per_second']:,.0f}", f"{r['ratio_to_raw_env']:.3f}",
                      f"{r['planner_share']:.0%}",
                      f"{r['steps_per_second_outside_planner']:,.0f}", str(r["planner_calls"]),
                      str(r["cache_hits"]))
    Console().print(table)


if __name__ == "__main__":
    main()
