"""The RL baselines' evaluation episodes: batched (`RLAgent.evaluate`) against one env at a
time (`run_episode`, what the protocol plays), in the same run.

An RL agent is briefly trained on pogostick (`--steps` env steps, the pre-novelty routine
with episodes of at most `--max-steps`), then plays `--episodes` evaluation episodes on the
same seeds both ways, sampling its actions as in the protocol (`RLConfig.greedy` off). Each
path is warmed up first (numba kernels, torch) and timed best of `--repeats`, alternated, since
our machines are shared. The ratio of the two rates is the result to read; the success rates
say both played the same kind of episodes (sampled: the same distribution, other draws).

    python -m nesyworld.experiments.benchmarks.rl_evaluation --steps 4800 --episodes 100
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], list[Any]]) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    results = fn()
    return time.perf_counter() - start, results


def measure(steps: int, episodes: int, max_steps: int, repeats: int,
            seed: int = 50_000_000) -> dict[str, Any]:
    """Episodes/s and env steps/s of both paths, their ratio and success rates."""
    from gymnasium.wrappers import TimeLimit

    from nesyworld.hybrid import RLAgent, RLConfig, run_episode
    from nesyworld.hybrid.baselines.rl_config import PRE_NOVELTY_TRAIN
    from nesyworld.world.envs import NesyGridEnv

    train = dataclasses.replace(PRE_NOVELTY_TRAIN, progress=False, eval_episodes=1,
                                max_episode_steps=max_steps, epoch_length=steps)
    agent = RLAgent(NesyGridEnv("pogostick"), config=RLConfig(train=train))
    agent.learn(steps=steps)
    seeds = list(range(seed, seed + episodes))

    def single() -> list[Any]:
        env = TimeLimit(agent.env, max_steps)
        return [run_episode(env, agent, s) for s in seeds]

    def batched() -> list[Any]:
        return agent.evaluate(seeds, max_steps)

    agent.evaluate(seeds[:4], max_steps)  # warm-up: kernels loaded, torch ready
    run_episode(TimeLimit(agent.env, max_steps), agent, seeds[0])
    best: dict[str, tuple[float, list[Any]]] = {}
    for _ in range(repeats):
        for name, fn in (("run_episode", single), ("batched", batched)):
            seconds, results = timed(fn)
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, results)
    rows: dict[str, Any] = {}
    for name, (seconds, results) in best.items():
        n_steps = sum(r.steps for r in results)
        rows[name] = {"seconds": round(seconds, 3),
                      "episodes_per_s": round(len(results) / seconds, 1),
                      "env_steps_per_s": round(n_steps / seconds),
                      "mean_steps": round(n_steps / len(results), 1),
                      "success_rate": sum(r.success for r in results) / len(results)}
    return {"train_steps": steps, "episodes": episodes, "max_episode_steps": max_steps,
            **rows,
            "speedup": round(best["run_episode"][0] / best["batched"][0], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=4800, help="training env steps")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--max-steps", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.steps, args.episodes, args.max_steps, args.repeats),
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
