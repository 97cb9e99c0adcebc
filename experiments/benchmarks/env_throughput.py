"""Steps per second of the Gymnasium env, as a ratio to CartPole-v1 stepped the same way.

Absolute steps/s depend on the machine, so the number to compare across machines and commits
is the ratio to a reference measured in the same run: gymnasium's CartPole-v1, made and stepped
exactly like our env (uniformly random actions, resets included). Both the `gymnasium.make`
env (with its passive checker and order-enforcing wrappers) and `.unwrapped` are timed.

    python -m nesyworld.experiments.benchmarks.env_throughput --steps 100000 --seed 0

`--breakdown` adds where a step of our env goes (the world's act, NPCs, clock, goal test,
action mask, observation, reset), timed around each part, so the parts add up to a bit
more than an untimed step.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import gymnasium
import numpy as np

import nesyworld.world.envs  # noqa: F401  (registers the ids)

ENV_ID = "nesyworld/Pogostick-v0"
REFERENCE_ID = "CartPole-v1"


def run(env: gymnasium.Env[Any, Any], steps: int, seed: int) -> dict[str, float]:
    """Random actions for `steps` steps, resetting on episode end; resets count in the total
    time (they are part of every training loop) and are also timed on their own."""
    rng = np.random.default_rng(seed)
    n = int(env.action_space.n)  # type: ignore[attr-defined]
    actions = rng.integers(n, size=steps).tolist()
    episodes, reset_time = 1, 0.0
    t0 = time.perf_counter()
    env.reset(seed=seed)
    reset_time += time.perf_counter() - t0
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            t = time.perf_counter()
            env.reset()
            reset_time += time.perf_counter() - t
            episodes += 1
    total = time.perf_counter() - t0
    return {
        "steps_per_s": steps / total,
        "reset_ms": 1e3 * reset_time / episodes,
        "episodes": episodes,
        "seconds": total,
    }


def measure(steps: int, seed: int, repeats: int) -> dict[str, Any]:
    """Best of `repeats` for each configuration. Rounds interleave the configurations, so a
    burst of load from other processes hits ours and the reference alike; the best round is
    the least disturbed one."""
    makers = {
        f"{ENV_ID} (make)": lambda: gymnasium.make(ENV_ID),
        f"{ENV_ID} (unwrapped)": lambda: gymnasium.make(ENV_ID).unwrapped,
        f"{REFERENCE_ID} (make)": lambda: gymnasium.make(REFERENCE_ID),
        f"{REFERENCE_ID} (unwrapped)": lambda: gymnasium.make(REFERENCE_ID).unwrapped,
    }
    envs = {name: make() for name, make in makers.items()}
    for env in envs.values():
        run(env, min(steps, 2000), seed)  # warm caches and imports
    results: dict[str, Any] = {}
    for _ in range(repeats):
        for name, env in envs.items():
            r = run(env, steps, seed)
            if name not in results or r["steps_per_s"] > results[name]["steps_per_s"]:
                results[name] = r
    for env in envs.values():
        env.close()
    for kind in ("make", "unwrapped"):
        ours = results[f"{ENV_ID} ({kind})"]["steps_per_s"]
        ref = results[f"{REFERENCE_ID} ({kind})"]["steps_per_s"]
        results[f"ratio ({kind})"] = ours / ref
    return results


def breakdown(steps: int, seed: int) -> dict[str, float]:
    """Microseconds per env step spent in each part of `NesyGridEnv.step` (and in resets),
    measured by timing those calls during a `run` of the unwrapped env."""
    env: Any = gymnasium.make(ENV_ID).unwrapped
    world = env.world
    spent: dict[str, float] = {}
    parts = {"act (main agent)": (world, "act"), "NPCs": (world, "step_npcs"),
             "end of round": (world, "end_round"), "goal test": (world, "goal_reached"),
             "action mask": (world, "action_mask"), "observation": (env._obs, "build"),
             "world reset": (world, "reset")}

    def timed(name: str, fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t
        return call

    run(env, min(steps, 2000), seed)
    for name, (owner, attr) in parts.items():
        setattr(owner, attr, timed(name, getattr(owner, attr)))
    spent.update(dict.fromkeys(parts, 0.0))
    total = run(env, steps, seed)["seconds"]
    out = {name: 1e6 * t / steps for name, t in spent.items()}
    out["everything else"] = 1e6 * total / steps - sum(out.values())
    out["total"] = 1e6 * total / steps
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="env steps per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="take the best of this many")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--breakdown", action="store_true",
                        help=f"also time the parts of a {ENV_ID} step")
    args = parser.parse_args(argv)
    results = measure(args.steps, args.seed, args.repeats)
    parts = breakdown(args.steps, args.seed) if args.breakdown else None
    if args.json:
        print(json.dumps({**results, "breakdown_us_per_step": parts} if parts else results,
                         indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"env throughput: {args.steps} random steps, seed {args.seed}, best of {args.repeats}"
    )
    for col in ("env", "steps/s", "mean reset (ms)", "episodes"):
        table.add_column(col, justify="left" if col == "env" else "right")
    for name, r in results.items():
        if isinstance(r, dict):
            table.add_row(
                name, f"{r['steps_per_s']:,.0f}", f"{r['reset_ms']:.3f}", str(r["episodes"])
            )
    console = Console()
    console.print(table)
    for kind in ("make", "unwrapped"):
        console.print(f"ratio to {REFERENCE_ID} ({kind}): {results[f'ratio ({kind})']:.3f}")
    if parts:
        where = Table(title=f"{ENV_ID} (unwrapped): where a step goes")
        where.add_column("part")
        where.add_column("us/step", justify="right")
        for name, us in parts.items():
            where.add_row(name, f"{us:.2f}")
        console.print(where)


if __name__ == "__main__":
    main()
