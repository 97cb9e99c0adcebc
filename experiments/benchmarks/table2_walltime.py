"""How long the paper's table 2 grid takes at full scale on this machine: a measured
extrapolation (the full grid is days of CPU, far over an hour).

Measured here, in the same run, each as a rate: CartPole-v1 random steps/s (the reference,
as in env_throughput), PPO training steps/s of the RL agent on pogostick, its acting steps/s
in evaluation episodes (100 at once on the batched core, as the protocol plays them), and
the planning agent's steps/s. Recovery cost for the hybrid agents comes from a results file
of the adaptation study when given (its median wall time per novelty), else from one Axe
recovery measured here. The model of a run then follows the `table2` config: pre-novelty
training to the budget, evaluation every epoch, adaptation for the paper's T_adapt, and the
final evaluation.

Runs of the grid already recorded at the paper's protocol (`--measured`, a `table2` results
file) count with their own CPU time. They also improve the model of the rest: an RL agent
stops pre-training when it converges, so the median pre-training steps of its measured runs
replace the 4M budget (an upper bound), and the mean env steps they took after the novelty
replace the paper's T_adapt.

    python -m nesyworld.experiments.benchmarks.table2_walltime --steps 2000 \\
        [--adaptation results/adaptation.jsonl] [--measured results/table2.jsonl ...] \\
        [--copies 64 --chunk 4096 --minibatch 2048 --passes 4]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium

from nesyworld.experiments.benchmarks.env_throughput import REFERENCE_ID, run
from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.experiments.protocol.paper_table2 import load_paper_table2
from nesyworld.experiments.protocol.records import UNMASKED
from nesyworld.experiments.protocol.report import protocol_names, read_records

NOVELTIES = load_experiment("table2").novelties
"""Table 2's novelties, as its config names them."""


@dataclasses.dataclass(frozen=True)
class RLOverrides:
    """How the RL baselines would be trained: the copies stepped together, the update chunk,
    and PPO's minibatch and passes. The defaults are the paper baselines' own (the
    `_unmasked` agents: PAPER_PRE_NOVELTY_PPO, no action masks); larger
    minibatches with fewer passes run several times faster per env step (see PPOConfig's
    batch_size) but are not the paper's hyperparameters, so their learning is not its."""

    copies: int | None = None
    chunk: int | None = None
    minibatch: int | None = None
    passes: int | None = None


def rl_rates(steps: int, settings: RLOverrides = RLOverrides()) -> dict[str, float]:
    """PPO training steps/s (after a warm-up call that pays tianshou's compilation) and the
    trained policy's acting steps/s in evaluation episodes."""
    from nesyworld.hybrid import RLAgent, RLConfig
    from nesyworld.hybrid.baselines.rl_config import PAPER_PRE_NOVELTY_PPO, PRE_NOVELTY_TRAIN
    from nesyworld.hybrid.seeding import RunSeeds
    from nesyworld.world.envs import NesyGridEnv

    train = dataclasses.replace(PRE_NOVELTY_TRAIN, progress=False, eval_episodes=1,
                                max_episode_steps=400, epoch_length=steps)
    if settings.copies:
        train = dataclasses.replace(train, num_envs=settings.copies)
    if settings.chunk:
        train = dataclasses.replace(train, collect_chunk=settings.chunk)
    ppo = PAPER_PRE_NOVELTY_PPO
    if settings.minibatch:
        ppo = dataclasses.replace(ppo, batch_size=settings.minibatch)
    if settings.passes:
        ppo = dataclasses.replace(ppo, epochs_per_update=settings.passes)
    config = RLConfig(train=train, ppo=ppo, action_masks=False)
    agent = RLAgent(NesyGridEnv("pogostick"), config=config)
    agent.learn(steps=min(steps, 500))
    t = time.perf_counter()
    agent.learn(steps=steps)
    train_rate = steps / (time.perf_counter() - t)
    # the protocol's path: 100 evaluation episodes at once on the batched core
    seeds = [RunSeeds(0).evaluation(k) for k in range(100)]
    agent.evaluate(seeds[:2], 400)  # warm-up: the batched kernels' first call
    t = time.perf_counter()
    acted = sum(r.steps for r in agent.evaluate(seeds, 400))
    return {"train_steps_per_s": train_rate, "act_steps_per_s": acted / (time.perf_counter() - t)}


def planning_rate(episodes: int = 20) -> float:
    from nesyworld.hybrid import PlanningAgent, run_episode
    from nesyworld.world.envs import NesyGridEnv

    env = NesyGridEnv("pogostick")
    agent = PlanningAgent(env)
    run_episode(env, agent, seed=0)  # warm the plan cache, as a long run would be
    t = time.perf_counter()
    steps = sum(run_episode(env, agent, seed=k).steps for k in range(1, episodes + 1))
    return steps / (time.perf_counter() - t)


def recovery_seconds(path: Path | None) -> dict[str, float]:
    """Median wall seconds of a recovery run per novelty (0 for chest: nothing to learn)."""
    out = {"chest": 0.0}
    if path is not None and path.exists():
        by: dict[str, list[float]] = {}
        for line in path.read_text().splitlines():
            r = json.loads(line)
            by.setdefault(r["config"]["novelty"], []).append(
                float(r.get("adaptation_seconds", r["wall_seconds"])))
        out.update({n: statistics.median(v) for n, v in by.items()})
    missing = [n for n in NOVELTIES if n not in out]
    if missing:
        from nesyworld.experiments.adaptation.run import AdaptationRunSpec, run_one

        axe = float(run_one(AdaptationRunSpec(novelty="axe",
                                              eval_episodes=1))["adaptation_seconds"])
        out.update({n: axe for n in missing})
    return out


@dataclasses.dataclass(frozen=True)
class GridTask:
    """One piece of the grid a worker runs whole: a run, or an RL agent's pre-training for a
    seed, which that seed's runs of the agent wait for (`after`)."""

    name: str
    seconds: float  # CPU seconds, measured or modelled
    after: str | None = None


@dataclasses.dataclass(frozen=True)
class MeasuredRuns:
    """Runs of the grid recorded at the paper's protocol: CPU seconds by (agent, novelty,
    seed), the env steps of each RL pre-training that ran (a run that loaded its pair's
    checkpoint trained none), and the env steps each run took after the novelty (its
    adaptation, or the epochs that showed it needed none) by (agent, novelty).

    CPU, not wall: a run that reaches its (agent, seed) while another pre-trains it waits on
    the pair's lock (experiments/protocol/pretraining.py), and its wall time counts that
    wait, which the other run's time already holds. The protocol's CPU seconds include its
    child processes (the planner's)."""

    cpu: dict[tuple[str, str, int], float] = dataclasses.field(default_factory=dict)
    pre_steps: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    post_steps: dict[tuple[str, str], list[int]] = dataclasses.field(default_factory=dict)


def measured_runs(paths: Sequence[Path] = ()) -> MeasuredRuns:
    """The ok runs of `table2` results files whose protocol is the paper's, read and checked
    as the report reads them (`read_records`: per run, its last record); a run recorded in
    two files counts once, as the later file has it."""
    last: dict[tuple[str, str, int], dict[str, Any]] = {}
    for record in (r for path in paths for r in read_records(path)):
        spec = record["spec"]
        if record["status"] == "ok" and protocol_names([record]) == ["paper"]:
            last[(spec["agent"], spec["novelty"], int(spec["seed"]))] = record
    runs = MeasuredRuns()
    for (agent, novelty, seed), record in last.items():
        cpu = record["curve"][-1]["cpu_seconds"] if record["curve"] else None
        runs.cpu[(agent, novelty, seed)] = float(cpu if cpu is not None
                                                 else record["wall_seconds"])
        pre = max((c["env_steps"] for c in record["curve"] if c["phase"] == "pre"), default=0)
        if pre > 0 and agent.startswith("transfer_rl"):
            runs.pre_steps.setdefault(agent, []).append(int(pre))
        post = max((c["env_steps"] for c in record["curve"]), default=0)
        runs.post_steps.setdefault((agent, novelty), []).append(
            int(post - record["novelty"]["env_steps"]))
    return runs


def estimate(rates: dict[str, float], recovery: dict[str, float],
             measured: MeasuredRuns = MeasuredRuns(), configs: Sequence[str] = ("table2",),
             agents: Sequence[str] | None = None) -> dict[str, Any]:
    """Hours for the grids of these shipped configs (their agents, or only `agents`) with
    their budgets: measured runs as measured, the rest modelled (pre-training to the budget
    or to the measured convergence; after the novelty, the env steps measured runs took,
    else the paper's T_adapt). The paper pre-trained once per agent and seed and reused it
    for every novelty, as the protocol does (experiments/protocol/pretraining.py): "shared"
    counts each modelled pre-training once per (agent, seed)."""
    paper = {(r.novelty, r.agent): r for r in load_paper_table2()}
    pre_s: dict[str, float] = {}
    post_s: dict[str, float] = {}
    measured_s: dict[str, float] = {}
    novelties: dict[str, int] = {}
    tasks: dict[str, GridTask] = {}  # what a pool of workers would run, shared pre-training
    runs = 0
    for name in configs:
        config = load_experiment(name)
        p = config.protocol
        eval_len_rl = p.max_episode_steps / 2  # evaluation episodes before convergence run long
        eval_s_per_epoch_rl = p.eval_episodes * eval_len_rl / rates["act_steps_per_s"]
        for agent in (a for a in config.agents if agents is None or a in agents):
            pre_s[agent] = post_s[agent] = measured_s[agent] = 0.0
            novelties[agent] = len(config.novelties)
            runs += len(config.novelties) * len(config.seeds)
            pre_steps = (statistics.median(measured.pre_steps[agent])
                         if agent in measured.pre_steps else p.pre_steps)
            for novelty in config.novelties:
                row = paper.get((novelty, agent.removesuffix(UNMASKED)))
                t_adapt = (statistics.mean(measured.post_steps[(agent, novelty)])
                           if (agent, novelty) in measured.post_steps
                           else row.t_adapt.mean if row is not None and row.t_adapt else 0.0)
                if agent.startswith("transfer_rl"):
                    pre = (pre_steps / rates["train_steps_per_s"]
                           + pre_steps / p.epoch_steps * eval_s_per_epoch_rl)
                    post = (t_adapt / rates["train_steps_per_s"]
                            + (t_adapt / p.epoch_steps + 1) * eval_s_per_epoch_rl)
                else:  # planning episodes of ~16 steps; recovery as measured
                    episode_s = 16 / rates["planning_steps_per_s"]
                    pre = p.eta * p.eval_episodes * episode_s
                    post = (recovery[novelty] + (p.eta + 1) * p.eval_episodes * episode_s
                            + p.post_eval_episodes * episode_s)
                for seed in config.seeds:
                    run = f"{agent} {novelty} seed {seed}"
                    if (agent, novelty, seed) in measured.cpu:
                        measured_s[agent] += measured.cpu[(agent, novelty, seed)]
                        tasks[run] = GridTask(run, measured.cpu[(agent, novelty, seed)])
                        continue
                    pre_s[agent] += pre
                    post_s[agent] += post
                    if agent.startswith("transfer_rl"):  # one pre-training per (agent, seed)
                        first = f"{agent} pre-training seed {seed}"
                        tasks.setdefault(first, GridTask(first, pre))
                        tasks[run] = GridTask(run, post, after=first)
                    else:
                        tasks[run] = GridTask(run, pre + post)
    shared = {a: measured_s[a] + post_s[a] + pre_s[a] / novelties[a] for a in pre_s}
    grid = sum(pre_s.values()) + sum(post_s.values()) + sum(measured_s.values())
    workers = 2
    return {"runs": runs,
            "runs_measured": sum(1 for k in measured.cpu if k[0] in pre_s),
            "measured_cpu_hours": round(sum(measured_s.values()) / 3600, 2),
            "pre_training_steps": {a: int(statistics.median(v))
                                   for a, v in measured.pre_steps.items() if a in pre_s},
            "modelled_cpu_hours_by_agent": {a: round((pre_s[a] + post_s[a]) / 3600, 1)
                                            for a in pre_s},
            "cpu_hours_by_agent_with_shared_pretraining": {
                a: round(v / 3600, 2) for a, v in shared.items()},
            "cpu_hours": round(grid / 3600, 1),
            "wall_hours_on_2_cores": round(grid / workers / 3600, 1),
            "wall_hours_with_shared_pretraining": round(sum(shared.values()) / workers / 3600,
                                                        1),
            "tasks": [dataclasses.asdict(t) for t in tasks.values()]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--adaptation", type=Path, default=None,
                        help="results of the adaptation study (JSON lines)")
    parser.add_argument("--measured", type=Path, nargs="+", default=[], metavar="RESULTS",
                        help="runs of the grid already recorded (table2 results files)")
    parser.add_argument("--configs", nargs="+", default=["table2"], metavar="CONFIG",
                        help="shipped experiment configs whose grids to estimate "
                             "(table2_masked: the RL baselines with action masks)")
    parser.add_argument("--agents", nargs="+", default=None, metavar="AGENT",
                        help="only these of the configs' agents")
    parser.add_argument("--copies", type=int, help="RL: env copies stepped together")
    parser.add_argument("--chunk", type=int, help="RL: env steps per PPO update")
    parser.add_argument("--minibatch", type=int, help="RL: PPO minibatch size")
    parser.add_argument("--passes", type=int, help="RL: PPO passes per update")
    args = parser.parse_args(argv)
    settings = RLOverrides(args.copies, args.chunk, args.minibatch, args.passes)
    reference = run(gymnasium.make(REFERENCE_ID), 20_000, 0)["steps_per_s"]
    rates = {**rl_rates(args.steps, settings), "planning_steps_per_s": planning_rate()}
    ratios = {k: round(v / reference, 4) for k, v in rates.items()}
    result = {"reference": REFERENCE_ID, "reference_steps_per_s": round(reference),
              "rl_settings": dataclasses.asdict(settings),
              "rates": {k: round(v, 1) for k, v in rates.items()},
              "ratios_to_reference": ratios,
              "configs": args.configs,
              **estimate(rates, recovery_seconds(args.adaptation), measured_runs(args.measured),
                         args.configs, args.agents)}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
