"""Is training bound by the world or by the learner? Env steps/s of training runs, each beside
a reference measured in the same run (our machines are shared and noisy: read the ratios).

Each row is the best of `--repeats` runs, alternated with as many runs of its reference
(see `paired`). Rows (`--envs` copies for the PPO rows, 64 by default):

- PPO and PPO+ICM (`nesyworld.learning.train`) on `NesyVectorEnv` copies of the pogostick
  task, against the minimal masked PPO of minimal_ppo.py on the same env, copies, chunk,
  minibatch and passes (`--minibatch`, `--passes`: 2048 and 4 unless told; the reference has
  no ICM, so that ratio includes the curiosity's own cost). A ratio of 1 means the real path
  costs no more than the least a PPO can do.
- The same PPO with the default PPOConfig (minibatch 64, 8 passes), beside the minimal PPO
  with those settings: what the defaults cost.
- Recovery training (PPO+ICM on the Axe novelty's first failure, the recovery's own
  TrainConfig and PPOConfig), beside the minimal PPO with its settings on NesyVectorEnv and,
  in `env_only`, its recovery env stepped with random legal actions (the ceiling the env sets).
- With `--rl-baseline`: the RL baseline (`RLAgent.learn`, plan-shaped PPO) on the batched core
  against the same run on one `NesyGridEnv` per copy.

    python -m nesyworld.experiments.benchmarks.training --steps 32768 --envs 64 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import gymnasium as gym
import numpy as np
import torch

from nesyworld.experiments.benchmarks.minimal_ppo import MinimalPPO
from nesyworld.experiments.benchmarks.minimal_ppo import run as minimal_ppo_rate
from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.baselines.rl_agents import RLAgent, RLConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.env import from_failure, recovery_env_factory
from nesyworld.hybrid.recovery.recover import RecoveryConfig
from nesyworld.learning import EpochRecord, ICMConfig, PPOConfig, TrainConfig, train
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
    env_only: float | None = None  # env steps/s of the env alone, random actions (if measured)
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


def ppo_rate(steps: int, num_envs: int, chunk: int, ppo: PPOConfig,
             icm: ICMConfig | None = None) -> float:
    """Training env steps/s (collection + updates, evaluation not) of `train` on
    `num_envs` NesyVectorEnv copies of the task."""
    config = TrainConfig(step_budget=steps, epoch_length=max(chunk, steps // 2),
                         collect_chunk=chunk, num_envs=num_envs, progress=False,
                         eval_episodes=2, max_episode_steps=300, stop_on_convergence=False)
    result = train(config=config, ppo=ppo, icm=icm,
                   vector_env_factory=lambda n: NesyVectorEnv(n, SPEC))
    return _rate(result.epochs)


def _rate(epochs: list[EpochRecord]) -> float:
    seconds = sum(e.epoch_steps / e.steps_per_second for e in epochs)
    return sum(e.epoch_steps for e in epochs) / seconds


def reference_rate(steps: int, num_envs: int, chunk: int, minibatch: int, passes: int) -> float:
    cfg = MinimalPPO(envs=num_envs, rollout=max(1, chunk // num_envs), passes=passes,
                     minibatch=minibatch)
    return minimal_ppo_rate(cfg, steps)


def paired(ours: Callable[[], float], reference: Callable[[], float],
           repeats: int) -> tuple[float, float]:
    """Best of `repeats` runs of each, alternated: other jobs on a shared machine only ever
    slow a run down, so the best is the least disturbed, and alternating exposes both to the
    same spells of load."""
    got, ref = [], []
    for _ in range(repeats):
        ref.append(reference())
        got.append(ours())
    return max(got), max(ref)


def recovery_rate(steps: int, kb: KnowledgeBase) -> tuple[Callable[[], float], float, str]:
    """PPO+ICM on the Axe failure with the recovery's own settings (RecoveryConfig): a
    function measuring it, its recovery env's own rate (random legal actions), and a name."""
    world, failure = axe_failure(kb)
    rc = RecoveryConfig()
    raw = env_rate(from_failure(world, failure, kb, rc.env), min(steps, 4000))
    factory = recovery_env_factory(world.spec, failure.snapshot,  # type: ignore[arg-type]
                                   failure, kb, rc.env)
    config = replace(rc.train, step_budget=steps, stop_on_convergence=False)
    name = (f"recovery training, PPO+ICM (Axe failure; {config.num_envs} envs, chunk "
            f"{config.collect_chunk}, minibatch {rc.ppo.batch_size} x{rc.ppo.epochs_per_update})")
    return lambda: _rate(train(factory, config, rc.ppo, rc.icm).epochs), raw, name


def measure(steps: int, num_envs: int, minibatch: int = 2048, passes: int = 4,
            recovery: bool = True, rl_baseline: bool = False, repeats: int = 2) -> list[Row]:
    torch.set_num_threads(1)  # as TrainConfig.torch_threads does for the real path
    chunk = max(num_envs, min(4096, steps // 4) // num_envs * num_envs)
    raw = vector_env_rate(num_envs, min(steps, 20_000))
    fast, default = PPOConfig(batch_size=minibatch, epochs_per_update=passes), PPOConfig()
    ppo_rate(4 * num_envs, num_envs, 2 * num_envs, fast, ICMConfig())  # warm: first calls

    def row(name: str, ours: Callable[[], float], envs: int, chunk: int, ppo: PPOConfig,
            env_only: float) -> Row:
        mb, k = ppo.batch_size, ppo.epochs_per_update
        got, ref = paired(ours, lambda: reference_rate(steps, envs, chunk, mb, k), repeats)
        ref_name = (f"minimal PPO (minimal_ppo.py) on NesyVectorEnv, {envs} copies, chunk "
                    f"{chunk}, minibatch {mb} x{k}")
        return Row(name, got, ref_name, ref, env_only=env_only)

    setting = f"{num_envs} copies, chunk {chunk}"
    rows = [row(f"PPO training, {setting}, minibatch {minibatch} x{passes}",
                lambda: ppo_rate(steps, num_envs, chunk, fast), num_envs, chunk, fast, raw),
            row(f"PPO+ICM training, {setting}, minibatch {minibatch} x{passes}",
                lambda: ppo_rate(steps, num_envs, chunk, fast, ICMConfig()), num_envs, chunk,
                fast, raw),
            row(f"PPO training, {setting}, default PPOConfig (minibatch 64 x8)",
                lambda: ppo_rate(steps, num_envs, chunk, default), num_envs, chunk, default,
                raw)]
    kb = KnowledgeBase.from_world(SPEC)
    if recovery:
        rc = RecoveryConfig()
        measure_recovery, rec_raw, name = recovery_rate(steps, kb)
        rows.append(row(name, measure_recovery, rc.train.num_envs, rc.train.collect_chunk,
                        rc.ppo, rec_raw))
    if rl_baseline:
        batched = rl_rate(steps, num_envs, True, kb)
        rows.append(Row(f"RL baseline training, {num_envs} copies in one NesyVectorEnv",
                        batched, "the same, one NesyGridEnv per copy (DummyVectorEnv)",
                        rl_rate(steps, num_envs, False, kb), env_only=raw))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=32768, help="training env steps per run")
    parser.add_argument("--envs", type=int, default=64, help="copies for the PPO rows")
    parser.add_argument("--minibatch", type=int, default=2048, help="PPO rows' minibatch")
    parser.add_argument("--passes", type=int, default=4, help="PPO rows' passes per chunk")
    parser.add_argument("--skip-recovery", action="store_true", help="no recovery row")
    parser.add_argument("--rl-baseline", action="store_true", help="add the RL baseline row")
    parser.add_argument("--repeats", type=int, default=2, help="best of, per row and reference")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = measure(args.steps, args.envs, args.minibatch, args.passes,
                   not args.skip_recovery, args.rl_baseline, args.repeats)
    bad = [r.name for r in rows if not all(math.isfinite(x) and x > 0
                                           for x in (r.ours, r.reference))]
    if bad:
        sys.exit(f"non-finite or non-positive figures in: {', '.join(bad)}")
    if args.json:
        print(json.dumps({"steps": args.steps, "envs": args.envs, "minibatch": args.minibatch,
                          "passes": args.passes, "repeats": args.repeats,
                          "rows": [asdict(r) for r in rows]}, indent=2))
        return
    _print_table(rows, args.steps)


def _print_table(rows: list[Row], steps: int) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"training speed: {steps} training env steps per run")
    for col in ("training run", "env steps/s", "reference (same run)", "ratio", "env alone"):
        table.add_column(col, justify="left" if col == "training run" else "right")
    for r in rows:
        table.add_row(r.name, f"{r.ours:,.0f}", f"{r.reference:,.0f}\n[dim]{r.reference_name}[/]",
                      f"{r.ratio:.3g}×", "-" if r.env_only is None else f"{r.env_only:,.0f}")
    Console(width=max(Console().width, 120)).print(table)


if __name__ == "__main__":
    main()
