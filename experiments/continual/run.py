"""Running a continual task sequence: train on task 0, evaluate on every task; train on task 1,
evaluate on every task; ... (per seed), giving the accuracy matrix R of `continual_metrics`.

One RL agent (`RLAgent` from nesyworld.hybrid, PPO or PPO+ICM with plan-shaped rewards) is
carried through the whole sequence: its weights and optimiser state pass from stage to stage,
and only the world it trains in changes. Before the first stage the untrained agent is
evaluated too (the row `initial`, for forward transfer). Evaluation episodes of task j use the
same seeds after every stage, so a column of R compares the agent with itself on the same maps.

Resumable, cheaply: after every stage the row is appended to `<out>/progress.jsonl` and the
agent saved to `<out>/checkpoints/seed<s>_stage<i>.pt`; a rerun with the same config skips the
stages it finds and continues from the last checkpoint of each seed. A directory written by a
different config is refused rather than mixed in.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nesyworld.experiments.continual.config import ContinualConfig, Task
from nesyworld.experiments.protocol.results_file import RecordSink
from nesyworld.hybrid import RLAgent, RLConfig, run_episode
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import ICMConfig, PPOConfig, TrainConfig, load_checkpoint
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.input_files import read_regular

MAX_PROGRESS_BYTES = 64 * 2**20
"""progress.jsonl holds a line of a few hundred bytes per stage and seed."""
TASK_STRIDE = 100_000
"""Evaluation maps: the run seed's evaluation map TASK_STRIDE * task + episode
(nesyworld.hybrid.seeding), the same after every stage; training maps come from its
learner_envs stream, TASK_STRIDE apart per stage."""
INITIAL = -1
"""The stage number of the evaluation before any training."""


class ContinualError(Exception):
    """The run cannot go on (a results directory of another config, say)."""


@dataclass(frozen=True)
class StageRecord:
    """One row of R for one seed: success rates on every task after training stage `stage`
    (INITIAL: before any training)."""

    seed: int
    stage: int
    task: str
    success: tuple[float, ...]
    env_steps: int
    wall_seconds: float

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


Progress = Callable[[StageRecord], None]


def rl_config(config: ContinualConfig, task: Task, seed: int, stage: int) -> RLConfig:
    """The RL training routine for one stage: the task's budget, fixed (no early stop, as
    usual in continual RL: every task gets the same budget), seeded by run seed and stage so
    the stages train on different maps."""
    t = config.train
    budget = max(task.budget, 1)
    train = TrainConfig(step_budget=budget, epoch_length=min(t.epoch_length, budget),
                        collect_chunk=min(t.collect_chunk, budget), num_envs=t.num_envs,
                        vector_env="dummy", eval_episodes=1, stop_on_convergence=False,
                        progress=False, seed=RunSeeds(seed).learner,
                        env_seed=RunSeeds(seed).map("learner_envs", TASK_STRIDE * (stage + 1)))
    icm = ICMConfig() if config.agent == "rl+icm" else None
    return RLConfig(train=train, ppo=PPOConfig(lr=t.lr), icm=icm)


def evaluate(agent: RLAgent, config: ContinualConfig, envs: list[NesyGridEnv],
             seed: int) -> tuple[float, ...]:
    """Success rate of the frozen agent on every task (the same maps every time)."""
    rates = []
    for j, env in enumerate(envs):
        agent.env = env
        seeds = RunSeeds(seed)
        wins = sum(run_episode(env, agent, seeds.evaluation(TASK_STRIDE * j + k)).success
                   for k in range(config.eval_episodes))
        rates.append(wins / config.eval_episodes)
    return tuple(rates)


def read_progress(out: Path, config: ContinualConfig) -> list[StageRecord]:
    """The stages already done in `out` (empty for a new directory)."""
    path = out / "progress.jsonl"
    if not path.exists():
        return []
    records = []
    data = read_regular(path, MAX_PROGRESS_BYTES)  # a FIFO is refused unopened
    if len(data) > MAX_PROGRESS_BYTES:
        raise ContinualError(f"{path}: more than {MAX_PROGRESS_BYTES:,} bytes; expected the "
                             "progress file a continual run writes (a line per stage)")
    lines = data.decode("utf-8", errors="replace").splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            if n == len(lines):  # a run killed while writing its last row: redo that stage
                break  # (the next append's RecordSink removes the line)
            raise ContinualError(f"{path}:{n}: not a JSON record ({err})") from err
        if data.get("fingerprint") != config.fingerprint():
            raise ContinualError(f"{path}:{n}: written by another continual config; use "
                                 "another --out directory (or delete this one)")
        rec = data["record"]
        records.append(StageRecord(rec["seed"], rec["stage"], rec["task"],
                                   tuple(rec["success"]), rec["env_steps"],
                                   rec["wall_seconds"]))
    return records


def _checkpoint(out: Path, seed: int, stage: int) -> Path:
    return out / "checkpoints" / f"seed{seed}_stage{stage}.pt"


def _append(out: Path, config: ContinualConfig, record: StageRecord) -> None:
    """One stage's row, through the sweeps' results writer: locked, on disk when it returns,
    and a last line cut short by a killed run removed first."""
    with contextlib.closing(RecordSink(out / "progress.jsonl")) as sink:
        sink.write({"fingerprint": config.fingerprint(), "record": record.as_dict()})


def run_seed(config: ContinualConfig, seed: int, out: Path, done: dict[int, StageRecord],
             progress: Progress | None = None) -> list[StageRecord]:
    """Every stage of one seed not in `done`, continuing from the last saved stage."""
    records = dict(done)
    if all(i in records for i in [INITIAL, *range(len(config.tasks))]):
        return [records[k] for k in sorted(records)]
    envs = [NesyGridEnv(task.spec) for task in config.tasks]
    last = max(done, default=None)
    agent: RLAgent | None = None
    if last is not None and last != INITIAL:
        agent = RLAgent(envs[last], None, rl_config(config, config.tasks[last], seed, last),
                        checkpoint=load_checkpoint(_checkpoint(out, seed, last)))
    if agent is None:
        agent = RLAgent(envs[0], None, rl_config(config, config.tasks[0], seed, 0))
    if INITIAL not in records:
        t0 = time.perf_counter()
        rec = StageRecord(seed, INITIAL, "", evaluate(agent, config, envs, seed), 0,
                          round(time.perf_counter() - t0, 3))
        _append(out, config, rec)
        records[INITIAL] = rec
        if progress:
            progress(rec)
    for i, task in enumerate(config.tasks):
        if i in records:
            continue
        t0 = time.perf_counter()
        # a new agent on this task's world, with the weights and optimiser carried over: the
        # plan shaping must use this task's goal, and the agent derives it from its kb
        agent = RLAgent(envs[i], KnowledgeBase.from_world(envs[i].world),
                        rl_config(config, task, seed, i), checkpoint=agent.checkpoint)
        steps = int(agent.learn()["env_steps"]) if task.budget > 0 else 0
        agent.save(_checkpoint(out, seed, i))
        rec = StageRecord(seed, i, task.name, evaluate(agent, config, envs, seed), steps,
                          round(time.perf_counter() - t0, 3))
        _append(out, config, rec)
        records[i] = rec
        if progress:
            progress(rec)
    return [records[k] for k in sorted(records)]


def run_continual(config: ContinualConfig, out: Path,
                  progress: Progress | None = None) -> list[StageRecord]:
    """Every seed's stages (resuming what `out` holds); returns all records, seed-major."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(exist_ok=True)
    previous = read_progress(out, config)
    records: list[StageRecord] = []
    for seed in config.seeds:
        done = {r.stage: r for r in previous if r.seed == seed}
        records.extend(run_seed(config, seed, out, done, progress))
    return records


__all__ = [
    "INITIAL",
    "TASK_STRIDE",
    "ContinualError",
    "StageRecord",
    "evaluate",
    "read_progress",
    "rl_config",
    "run_continual",
    "run_seed",
]
