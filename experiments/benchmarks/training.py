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
  TrainConfig and PPOConfig) on what it trains on, `RecoveryConfig.batched_copies` copies of
  the batched recovery env (hybrid/recovery/batched_env.py), the same with the update's
  second thread (`TrainConfig.update_thread`, which `nesyworld run` turns on where a core is
  free; the reference keeps one thread), then on the 2 RecoveryEnvs of
  before (still used for worlds that do not run on the batched core), each beside the
  minimal PPO with its copies and settings on NesyVectorEnv and, in `env_only`, its envs
  stepped with random legal actions (the ceiling the envs set).
- With `--rl-baseline`: the RL baseline (`RLAgent.learn`, plan-shaped PPO) on the batched core
  against the same run on one `NesyGridEnv` per copy.

Beside each row but the RL baseline's: its FLOP ceiling on one thread (roofline.py: the
matrix-product FLOPs of a training env step, counted on the row's own settings, against this
machine's rate on those products, measured in the same run after every timing), and the
row's fraction of it; likewise for its reference (JSON). No implementation with a row's
settings can train faster than its ceiling on one thread.

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
from functools import partial

import gymnasium as gym
import numpy as np
import torch

from nesyworld.experiments.benchmarks.minimal_ppo import run as minimal_ppo_rate
from nesyworld.experiments.benchmarks.roofline import (
    MatmulClock,
    count_minimal_ppo_flops,
    count_setting,
    roofline,
)
from nesyworld.experiments.benchmarks.training_cases import (
    SPEC,
    BenchmarkCase,
    axe_failure,
    ppo_settings,
    ppo_train_config,
    recovery_setting,
)
from nesyworld.hybrid.baselines.rl_agents import RLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.learning import EpochRecord, ICMConfig, PPOConfig, TrainConfig, train
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv

__all__ = ["SPEC", "Row", "axe_failure", "env_rate", "measure", "ppo_rate",
           "rl_rate", "vector_env_rate", "with_ceilings"]


@dataclass
class Row:
    name: str
    ours: float  # env steps/s
    reference_name: str
    reference: float  # env steps/s
    env_only: float | None = None  # env steps/s of the env alone, random actions (if measured)
    mflop_per_step: float | None = None  # matrix-product MFLOP a training env step (roofline.py)
    ceiling: float | None = None  # env steps/s those products allow on 1 thread, if measured
    reference_ceiling: float | None = None  # the same for the reference
    ratio: float = field(init=False)
    of_ceiling: float | None = field(init=False)  # ours / ceiling
    reference_of_ceiling: float | None = field(init=False)  # reference / reference_ceiling

    def __post_init__(self) -> None:
        self.ratio = self.ours / self.reference
        self.of_ceiling = None if self.ceiling is None else self.ours / self.ceiling
        self.reference_of_ceiling = (None if self.reference_ceiling is None
                                     else self.reference / self.reference_ceiling)


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


def recovery_env_rate(setting: BenchmarkCase, steps: int, seed: int = 0) -> float:
    """Env steps/s of a recovery row's envs alone, random legal actions: its batched
    recovery env, or one RecoveryEnv."""
    if setting.env_factory is not None:
        return env_rate(setting.env_factory(), steps, seed)
    assert setting.vector_env_factory is not None
    env = setting.vector_env_factory(setting.train.num_envs)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    rounds = max(1, steps // env.num_envs)
    start = time.perf_counter()
    for _ in range(rounds):
        mask = info["action_mask"]
        _, _, _, _, info = env.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
    return rounds * env.num_envs / (time.perf_counter() - start)


def ppo_rate(steps: int, num_envs: int, chunk: int, ppo: PPOConfig,
             icm: ICMConfig | None = None) -> float:
    """Training env steps/s (collection + updates, evaluation not) of `train` on
    `num_envs` NesyVectorEnv copies of the task."""
    config = ppo_train_config(steps, num_envs, chunk)
    result = train(config=config, ppo=ppo, icm=icm,
                   vector_env_factory=lambda n: NesyVectorEnv(n, SPEC))
    return _rate(result.epochs)


def _rate(epochs: list[EpochRecord]) -> float:
    seconds = sum(e.epoch_steps / e.steps_per_second for e in epochs)
    return sum(e.epoch_steps for e in epochs) / seconds


def _case_rate(case: BenchmarkCase) -> float:
    """Training steps/s of one run of `case`."""
    return _rate(case.run().epochs)


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


def with_ceilings(rows: list[Row], settings: list[BenchmarkCase | None], repeats: int = 5
                  ) -> list[Row]:
    """The rows with their FLOP ceilings on one thread, the threads they run with (a None
    setting: no ceiling). Call it after every timing: counting imports torch._dynamo."""
    clock, out = MatmulClock(repeats=max(5, repeats)), []
    for row, setting in zip(rows, settings, strict=True):
        if setting is None:
            out.append(row)
            continue
        ours = roofline(count_setting(setting), clock, threads=1)
        ref = roofline(count_minimal_ppo_flops(setting.reference), clock, threads=1)
        out.append(replace(row, mflop_per_step=ours.flops_per_step / 1e6,
                           ceiling=ours.ceiling, reference_ceiling=ref.ceiling))
    return out


def recovery_settings(kb: KnowledgeBase, steps: int, threads: int = 1) -> list[BenchmarkCase]:
    """What recovery training uses (the batched recovery env), the same with the update's
    second thread (`TrainConfig.update_thread`: the same weights, a second core), then the
    RecoveryEnvs it used before (and still uses where a world does not run on the batched
    core): what the batched env and the thread bought, in the same run; all on `threads`
    torch threads."""
    world, failure = axe_failure(kb)
    out = []
    for copies in (None, 0):
        setting = recovery_setting(world, failure, kb, steps, copies=copies)
        out.append(replace(setting, train=replace(setting.train, torch_threads=threads)))
    batched = out[0]
    threaded = replace(batched, name=f"{batched.name}, with the update thread (a second "
                       "core)", train=replace(batched.train, update_thread=True))
    return [batched, threaded, out[1]]


def measure(steps: int, num_envs: int, minibatch: int = 2048, passes: int = 4,
            recovery: bool = True, rl_baseline: bool = False, repeats: int = 2,
            threads: int = 1) -> list[Row]:
    """The rows, each with its reference, on `threads` torch threads (1: the recovery's own
    setting too); the ceilings always for one thread."""
    torch.set_num_threads(threads)  # as TrainConfig.torch_threads does for the real path
    chunk = max(num_envs, min(4096, steps // 4) // num_envs * num_envs)
    raw = vector_env_rate(num_envs, min(steps, 20_000))
    fast = PPOConfig(batch_size=minibatch, epochs_per_update=passes)
    ppo_rate(4 * num_envs, num_envs, 2 * num_envs, fast, ICMConfig())  # warm: first calls

    def row(setting: BenchmarkCase, ours: Callable[[], float], env_only: float) -> Row:
        ref_cfg, train_cfg, ppo = setting.reference, setting.train, setting.ppo
        got, ref = paired(ours, lambda: minimal_ppo_rate(ref_cfg, steps), repeats)
        ref_name = (f"minimal PPO (minimal_ppo.py) on NesyVectorEnv, {train_cfg.num_envs} "
                    f"copies, chunk {train_cfg.collect_chunk}, minibatch {ppo.batch_size} "
                    f"x{ppo.epochs_per_update}")
        return Row(setting.name, got, ref_name, ref, env_only=env_only)

    ppo_rows = ppo_settings(steps, num_envs, chunk, minibatch, passes, threads)
    rows = [row(s, partial(_case_rate, s), raw) for s in ppo_rows]
    settings: list[BenchmarkCase | None] = [*ppo_rows]
    kb = KnowledgeBase.from_world(SPEC)
    if recovery:
        env_alone: dict[int, float] = {}  # the thread's row trains on its batched row's envs
        for setting, env_steps in zip(recovery_settings(kb, steps, threads),
                                      (20_000, 20_000, 4000), strict=True):
            settings.append(setting)
            envs = id(setting.vector_env_factory or setting.env_factory)
            if envs not in env_alone:
                env_alone[envs] = recovery_env_rate(setting, min(steps, env_steps))
            rows.append(row(setting, partial(_case_rate, setting), env_alone[envs]))
    if rl_baseline:
        batched = rl_rate(steps, num_envs, True, kb)
        settings.append(None)
        rows.append(Row(f"RL baseline training, {num_envs} copies in one NesyVectorEnv",
                        batched, "the same, one NesyGridEnv per copy (DummyVectorEnv)",
                        rl_rate(steps, num_envs, False, kb), env_only=raw))
    return with_ceilings(rows, settings, repeats)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=32768, help="training env steps per run")
    parser.add_argument("--envs", type=int, default=64, help="copies for the PPO rows")
    parser.add_argument("--minibatch", type=int, default=2048, help="PPO rows' minibatch")
    parser.add_argument("--passes", type=int, default=4, help="PPO rows' passes per chunk")
    parser.add_argument("--skip-recovery", action="store_true", help="no recovery row")
    parser.add_argument("--rl-baseline", action="store_true", help="add the RL baseline row")
    parser.add_argument("--repeats", type=int, default=2, help="best of, per row and reference")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of every row and its reference (ceilings stay "
                        "one thread's)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = measure(args.steps, args.envs, args.minibatch, args.passes,
                   not args.skip_recovery, args.rl_baseline, args.repeats, args.threads)
    bad = [r.name for r in rows if not all(math.isfinite(x) and x > 0
                                           for x in (r.ours, r.reference))]
    if bad:
        sys.exit(f"non-finite or non-positive figures in: {', '.join(bad)}")
    if args.json:
        print(json.dumps({"steps": args.steps, "envs": args.envs, "minibatch": args.minibatch,
                          "passes": args.passes, "repeats": args.repeats, "threads": args.threads,
                          "rows": [asdict(r) for r in rows]}, indent=2))
        return
    _print_table(rows, args.steps, args.threads)


def _print_table(rows: list[Row], steps: int, threads: int = 1) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"training speed: {steps} training env steps per run; PPO rows on "
                  f"{threads} torch thread{'s' if threads > 1 else ''}")
    for col in ("training run", "env steps/s", "reference (same run)", "ratio", "env alone",
                "FLOP ceiling\n1 thread", "of ceiling"):
        table.add_column(col, justify="left" if col == "training run" else "right")
    for r in rows:
        ref_of = ("" if r.reference_of_ceiling is None
                  else f" ({r.reference_of_ceiling:.2f} of its ceiling)")
        table.add_row(r.name, f"{r.ours:,.0f}",
                      f"{r.reference:,.0f}{ref_of}\n[dim]{r.reference_name}[/]",
                      f"{r.ratio:.3g}×", "-" if r.env_only is None else f"{r.env_only:,.0f}",
                      "-" if r.ceiling is None
                      else f"{r.ceiling:,.0f}\n[dim]{r.mflop_per_step:.2f} MFLOP/step[/]",
                      "-" if r.of_ceiling is None else f"{r.of_ceiling:.2f}")
    Console(width=max(Console().width, 120)).print(table)


if __name__ == "__main__":
    main()
