"""Is training bound by the world or by the learner? Env steps/s of training runs, each beside
the same env stepped with random actions in the same run.

Rows (each a ratio, since our machines are shared and noisy):

- RL baseline (`RLAgent.learn`, plan-shaped PPO) on the batched core against the same run on
  one `NesyGridEnv` per copy: what `RLConfig.vector` buys once PPO's updates are counted.
- Training steps/s against the raw env's steps/s, for the RL baseline on the batched core and
  for a recovery (PPO+ICM on the Axe novelty's first failure): the share of a training step
  the env takes. A ratio far below 1 means the learner, not the env, sets the pace.

    python -m nesyworld.experiments.benchmarks.training --steps 9600 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field

import gymnasium as gym
import numpy as np

from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.baselines.rl_agents import RLAgent, RLConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.env import RecoveryEnvConfig, from_failure, recovery_env_factory
from nesyworld.learning import ICMConfig, PPOConfig, TrainConfig, train
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.novelty.transforms import apply_novelties

SPEC = "pogostick"


@dataclass
class Row:
    name: str
    ours: float  # env steps/s
    reference_name: str
    reference: float  # env steps/s
    ratio: float = field(init=False)

    def __post_init__(self) -> None:
        self.ratio = self.ours / self.reference


def _train_config(steps: int, num_envs: int) -> TrainConfig:
    return TrainConfig(step_budget=steps, epoch_length=steps // 2, collect_chunk=steps // 4,
                       num_envs=num_envs, vector_env="dummy", progress=False,
                       eval_episodes=num_envs, max_episode_steps=300,
                       stop_on_convergence=False)


def rl_rate(steps: int, num_envs: int, vector: bool, kb: KnowledgeBase) -> float:
    """Training env steps/s (updates included, evaluation not) of the RL baseline."""
    agent = RLAgent(NesyGridEnv(SPEC), kb, RLConfig(train=_train_config(steps, num_envs),
                                                   vector=vector))
    agent.learn(steps=min(steps, 2 * num_envs * 10))  # warm: imports, compiled kernels
    return agent.learn()["steps_per_second"]


def vector_env_rate(num_envs: int, steps: int, seed: int = 0) -> float:
    """Env steps/s of the batched core with random legal-or-not actions."""
    env = NesyVectorEnv(num_envs)
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(
        int(env.single_action_space.n), size=(max(1, steps // num_envs), num_envs))
    start = time.perf_counter()
    for a in actions:
        env.step(a)
    return actions.size / (time.perf_counter() - start)


def env_rate(env: gym.Env, steps: int, seed: int = 0) -> float:
    """Env steps/s of one env with random actions among the legal ones, resets included."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def axe_failure(kb: KnowledgeBase) -> tuple[World, OperatorFailure]:
    """The planning agent under the Axe novelty, run until an operator fails."""
    env = NesyGridEnv(apply_novelties(SPEC, ["axe"]))
    agent = PlanningAgent(env, kb, PlanningConfig())
    obs, info = env.reset(seed=0)
    agent.reset(obs, info)
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        agent.observe(obs, float(reward), terminated, truncated, info)
        if agent.failures or terminated or truncated:
            break
    if not agent.failures:
        raise RuntimeError("the Axe novelty broke no operator on this map")
    return agent.world, agent.failures[0]


def recovery_rows(steps: int, kb: KnowledgeBase) -> list[Row]:
    world, failure = axe_failure(kb)
    config = RecoveryEnvConfig(horizon=100)
    raw = env_rate(from_failure(world, failure, kb, config), steps)
    factory = recovery_env_factory(world.spec, failure.snapshot,  # type: ignore[arg-type]
                                   failure, kb, config)
    result = train(factory, _train_config(steps, 2), PPOConfig(), ICMConfig())
    trained = float(np.mean([e.steps_per_second for e in result.epochs]))
    return [Row("recovery training, PPO+ICM (Axe failure)", trained,
                "its recovery env, random legal actions", raw)]


def measure(steps: int, num_envs: int, recovery: bool = True) -> list[Row]:
    kb = KnowledgeBase.from_world(SPEC)
    batched = rl_rate(steps, num_envs, True, kb)
    single = rl_rate(steps, num_envs, False, kb)
    rows = [Row(f"RL baseline training, {num_envs} copies in one NesyVectorEnv", batched,
                "the same, one NesyGridEnv per copy (DummyVectorEnv)", single),
            Row(f"RL baseline training, {num_envs} copies in one NesyVectorEnv", batched,
                f"NesyVectorEnv({num_envs}), random actions",
                vector_env_rate(num_envs, steps))]
    if recovery:
        rows += recovery_rows(steps, kb)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=9600, help="training env steps per run")
    parser.add_argument("--envs", type=int, default=8, help="training copies for the RL rows")
    parser.add_argument("--skip-recovery", action="store_true", help="no recovery row")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = measure(args.steps, args.envs, not args.skip_recovery)
    bad = [r.name for r in rows if not all(math.isfinite(x) and x > 0
                                           for x in (r.ours, r.reference))]
    if bad:
        sys.exit(f"non-finite or non-positive figures in: {', '.join(bad)}")
    if args.json:
        print(json.dumps({"steps": args.steps, "envs": args.envs,
                          "rows": [asdict(r) for r in rows]}, indent=2))
        return
    _print_table(rows, args.steps)


def _print_table(rows: list[Row], steps: int) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"training speed: {steps} training env steps per run")
    for col in ("training run", "env steps/s", "reference (same run)", "ratio"):
        table.add_column(col, justify="left" if col != "ratio" else "right")
    for r in rows:
        table.add_row(r.name, f"{r.ours:,.0f}", f"{r.reference:,.0f}\n[dim]{r.reference_name}[/]",
                      f"{r.ratio:.3g}×")
    Console(width=max(Console().width, 120)).print(table)


if __name__ == "__main__":
    main()
