"""The NovelGym evaluation protocol (paper section 5.1) for one run: initial training,
novelty injection, adaptation, and post-adaptation evaluation.

Every epoch (`ProtocolConfig.epoch_steps` env steps of training or of learning task
episodes) ends with `eval_episodes` separate evaluation episodes, with learning off, that give
one point of the success-rate curve; evaluation steps are never counted. Training stops at
the convergence criterion (the success threshold met in each of the last `eta` points) or at
the phase's budget. An agent that cannot learn (the planning agent) is evaluated for `eta`
points and left there. The result is a record as `records.py` describes; the metrics are
computed from it afterwards (`metrics.py`).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nesyworld.experiments.protocol.agents import (
    NO_OVERRIDES,
    ProtocolAgent,
    RLOverrides,
    RLProtocolAgent,
    Spent,
    make_protocol_agent,
)
from nesyworld.experiments.protocol.pretraining import (
    PRETRAINING_KEY,
    PROGRESS_EVERY,
    PretrainingProgress,
    check_pretraining,
    ppo_differences,
    pretrained_checkpoint,
    pretraining_lock,
    pretraining_of_agent,
    progress_files,
)
from nesyworld.experiments.protocol.records import (
    UNMASKED,
    CurvePoint,
    Phase,
    ProtocolConfig,
    RunSpec,
)
from nesyworld.hybrid import HYBRID_AGENTS, EpisodeResult
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import ConvergenceTest, load_checkpoint
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

EVALUATION_STRIDE = 10_000
"""Evaluation point k plays the run's evaluation maps k * EVALUATION_STRIDE onwards
(nesyworld.hybrid.seeding), so every point is measured on maps of its own."""


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (subprocess vector envs)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class _Run:
    """Counters and the curve of one run."""

    def __init__(self, spec: RunSpec, agent: ProtocolAgent,
                 on_point: Callable[[CurvePoint], None] | None = None) -> None:
        self.on_point = on_point
        self.spec = spec
        self.agent = agent
        self.seeds = RunSeeds(spec.seed)
        self.env_steps = 0
        self.actions = 0
        self.cpu0 = cpu_seconds()
        self.curve: list[CurvePoint] = []
        self.detections: list[dict[str, Any]] = []
        self.injected_at: int | None = None
        self.evaluations = 0

    def spend(self, spent: Spent) -> None:
        for offset, what in spent.detections:
            self.detections.append({"env_steps": self.env_steps + offset,
                                    "actions": self.actions, "what": what,
                                    "correct": self.injected_at is not None})
        self.env_steps += spent.env_steps
        self.actions += spent.actions

    def evaluate(self, phase: Phase, epoch: int, episodes: int) -> CurvePoint:
        if episodes > EVALUATION_STRIDE:
            raise ValueError(f"at most {EVALUATION_STRIDE} evaluation episodes per point")
        seeds = [self.seeds.evaluation(EVALUATION_STRIDE * self.evaluations + k)
                 for k in range(episodes)]
        self.evaluations += 1
        results = self.agent.evaluate(seeds)
        self.spend(Spent(detections=[(0, what) for what in self.agent.take_detections()]))
        point = CurvePoint(phase, epoch, self.env_steps, self.actions,
                           round(cpu_seconds() - self.cpu0, 3), _rate(results),
                           _mean_success_steps(results), len(results), False,
                           _mean_reward(results))
        self.curve.append(point)
        if self.on_point is not None:
            self.on_point(point)
        return point

    def converged(self, phase: Phase) -> bool:
        points = [c for c in self.curve if c.phase == phase]
        p = self.spec.protocol
        if phase == "pre" and p.pre_stop_reward is not None:
            return reward_held(points, p.pre_stop_reward, p.pre_stop_epochs)
        return converged(p, points)

    def mark_converged(self) -> None:
        last = self.curve[-1]
        self.curve[-1] = CurvePoint(**{**last.as_dict(), "converged": True})


def converged(protocol: ProtocolConfig, points: Sequence[CurvePoint]) -> bool:
    """Paper appendix A on one phase's points: success and mean reward over their thresholds
    in each of the last eta epochs, and no better epoch in the eta + nu before (points of
    records without rewards are judged on success alone).

    The immediate post-novelty point (epoch 0) measures the injection and is not an epoch:
    an agent the novelty does not hurt still adapts in eta epochs, as the paper's Chest
    T_adapt of 24,000 env steps (5 epochs of 4,800) for every agent shows."""
    points = [p for p in points if p.epoch > 0]
    rewards = [p.mean_reward if not math.isnan(p.mean_reward) else math.inf for p in points]
    test = ConvergenceTest(protocol.success_threshold, protocol.reward_threshold,
                           protocol.eta, protocol.nu)
    return test([p.success_rate for p in points], rewards)


def reward_held(points: Sequence[CurvePoint], reward: float, epochs: int) -> bool:
    """NovelGym's stop of a pre-training (ProtocolConfig.pre_stop_reward): the last `epochs`
    evaluations all at a mean reward of at least `reward` (a point without one fails)."""
    recent = [p.mean_reward for p in points if p.epoch > 0][-epochs:]
    return len(recent) == epochs and all(r >= reward for r in recent)


def _rate(results: list[EpisodeResult]) -> float:
    return sum(r.success for r in results) / len(results) if results else 0.0


def _mean_reward(results: list[EpisodeResult]) -> float:
    return sum(r.reward for r in results) / len(results) if results else math.nan


def _mean_success_steps(results: list[EpisodeResult]) -> float:
    steps = [r.steps for r in results if r.success]
    return sum(steps) / len(steps) if steps else math.nan


def _phase(run: _Run, phase: Phase, budget: int, start: tuple[int, int] = (1, 0),
           after_epoch: Callable[[int, int], None] | None = None,
           full_budget: bool = False) -> bool:
    """Train in epochs until the convergence criterion or the budget; True if converged. An
    agent that cannot learn in this phase gets `eta` epochs, which show where it stands.
    `start`: (epoch, env steps already spent in the phase), for a resumed phase;
    `after_epoch(next_epoch, spent)` is called after every epoch the phase goes on from;
    `full_budget`: a learning agent trains on to the budget after the criterion first holds
    (the point where it did is marked)."""
    p = run.spec.protocol
    learns = run.agent.learns(phase)
    epoch, spent_in_phase = start
    converged = any(c.converged for c in run.curve if c.phase == phase)
    while spent_in_phase < budget if learns else epoch <= p.eta:
        step = min(p.epoch_steps, budget - spent_in_phase) if learns else p.epoch_steps
        spent = run.agent.train(step, phase)
        run.spend(spent)
        spent_in_phase += max(spent.env_steps, 1)
        run.evaluate(phase, epoch, p.eval_episodes)
        epoch += 1
        if not converged and run.converged(phase):
            run.mark_converged()
            converged = True
            if not (full_budget and learns):
                return True
        if after_epoch is not None:
            after_epoch(epoch, spent_in_phase)
    return converged


def _pre_novelty(spec: RunSpec, on_point: Callable[[CurvePoint], None] | None,
                 overrides: RLOverrides = NO_OVERRIDES) -> tuple[ProtocolAgent, _Run]:
    """The agent after the pre-novelty phase. An RL agent with `protocol.pretrained` loads
    its (agent, seed)'s checkpoint, or pre-trains and saves it when it is not there yet
    (pretraining.py): one pre-training per pair serves every novelty. An unfinished
    pre-training saves its progress as it goes, and the next run of the pair resumes it."""
    p = spec.protocol
    path = pretrained_checkpoint(spec)
    with pretraining_lock(path) if path is not None else contextlib.nullcontext():
        load = str(path) if path is not None and path.exists() else ""
        agent = make_protocol_agent(spec.agent, _env(spec), spec.domain,
                                    RunSeeds(spec.seed), p.max_episode_steps, p.epoch_steps,
                                    load, spec.knowledge, overrides)
        run = _Run(spec, agent, on_point)
        full = p.pre_full_budget and isinstance(agent, RLProtocolAgent)
        if load and isinstance(agent, RLProtocolAgent):
            check_pretraining(agent, load, p)
        if path is None or load or not isinstance(agent, RLProtocolAgent):
            _phase(run, "pre", p.pre_steps, full_budget=full)
            return agent, run
        weights, counters = progress_files(path)
        how = pretraining_of_agent(p, agent)
        start = _resume(run, agent, weights, counters, how)

        def save_progress(epoch: int, spent: int) -> None:
            if (epoch - 1) % PROGRESS_EVERY == 0:
                agent.agent.save(weights, **{PRETRAINING_KEY: how})
                PretrainingProgress(epoch, spent, run.env_steps, run.actions,
                                    run.evaluations, agent.learn_calls,
                                    round(cpu_seconds() - run.cpu0, 3),
                                    tuple(run.curve)).save(counters)

        _phase(run, "pre", p.pre_steps, start, save_progress, full_budget=full)
        agent.agent.save(path, **{PRETRAINING_KEY: how})
        for file in (weights, counters):
            file.unlink(missing_ok=True)
    return agent, run


def _resume(run: _Run, agent: RLProtocolAgent, weights: Path, counters: Path,
            how: dict[str, Any]) -> tuple[int, int]:
    """Continue an unfinished pre-training from its saved progress, if there is one and it
    was made as `how` pre-trains (pretraining_of); return (the next epoch, env steps spent),
    (1, 0) to start afresh."""
    progress = PretrainingProgress.load(counters) if weights.is_file() else None
    if progress is None:
        return 1, 0
    partial = load_checkpoint(weights)
    differ = ppo_differences(partial.ppo, agent.agent.config.ppo)
    saved = partial.metadata.get(PRETRAINING_KEY)
    if saved != how:
        differ = ", ".join(filter(None, (differ, f"{saved} != {how}")))
    if differ:  # another baseline's training: not this one's to go on from
        print(f"nesyworld: {weights}: an unfinished pre-training made otherwise "
              f"({differ}); pre-training starts over", file=sys.stderr)
        return 1, 0
    agent.agent.load(weights)
    agent.learn_calls = progress.learn_calls
    run.env_steps, run.actions = progress.env_steps, progress.actions
    run.evaluations, run.curve = progress.evaluations, list(progress.curve)
    run.cpu0 -= progress.cpu_seconds  # the curve's CPU seconds go on from where they were
    return progress.epoch, progress.spent


def _env(spec: RunSpec) -> NesyGridEnv:
    """The run's env: its refusals explained or silent, as the spec says."""
    return NesyGridEnv(spec.domain, refusals=spec.refusals)  # type: ignore[arg-type]


def run_protocol(spec: RunSpec, on_point: Callable[[CurvePoint], None] | None = None,
                 overrides: RLOverrides = NO_OVERRIDES) -> dict[str, Any]:
    """Run the four phases for one (agent, domain, novelty, seed); return its record.
    `on_point` sees every evaluation point as it is measured (progress); `overrides`: what
    an RL agent changes of its own settings (an ablation's)."""
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    p = spec.protocol
    record: dict[str, Any] = {"key": spec.key, "spec": spec.as_dict(), "started": started,
                              "status": "ok", "error": ""}
    if spec.agent in HYBRID_AGENTS or spec.agent.endswith(UNMASKED):
        # what it may know (hybrid/knowledge/regime.py); records of hybrid agents without
        # this field were made before the regimes had names, in the oracle's. The unmasked
        # RL agents know the pre-novelty knowledge base (their reward shaping) and what they
        # observe, and nothing of the post-novelty model: the closed regime. The masked ones
        # read each step's legality off the world (the novelty's preconditions): no regime.
        record["knowledge"] = spec.knowledge
    record["refusals"] = spec.refusals
    try:
        agent, run = _pre_novelty(spec, on_point, overrides)
        # injection: from here on the agent acts in the world of the novelty
        run.injected_at = run.env_steps
        record["novelty"] = {"env_steps": run.env_steps, "actions": run.actions,
                             "cpu_seconds": round(cpu_seconds() - run.cpu0, 3)}
        agent.inject(NoveltyInjector(_env(spec), [spec.novelty]))
        run.evaluate("post", 0, p.eval_episodes)  # immediate post-novelty performance
        _phase(run, "post", p.post_steps)
        final = run.evaluate("post", len([c for c in run.curve if c.phase == "post"]),
                             p.post_eval_episodes)
        if run.converged("post") or any(c.converged for c in run.curve if c.phase == "post"):
            run.curve[-1] = CurvePoint(**{**final.as_dict(), "converged": True})
        record.update(curve=[c.as_dict() for c in run.curve], detections=run.detections)
    except Exception as err:  # recorded, so a sweep goes on and retries it on restart
        record.update(status="error", error="".join(traceback.format_exception(err)),
                      curve=[], detections=[])
    record["wall_seconds"] = round(time.perf_counter() - t0, 2)
    return record
