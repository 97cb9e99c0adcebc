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

import math
import os
import time
import traceback
from datetime import datetime, timezone
from typing import Any

from nesyworld.experiments.protocol.agents import ProtocolAgent, Spent, make_protocol_agent
from nesyworld.experiments.protocol.records import CurvePoint, Phase, RunSpec
from nesyworld.hybrid import EpisodeResult
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

EVAL_SEED = 50_000_000
"""Evaluation episodes use seeds from here on (apart from training episodes' seeds)."""


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (subprocess vector envs)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class _Run:
    """Counters and the curve of one run."""

    def __init__(self, spec: RunSpec, agent: ProtocolAgent) -> None:
        self.spec = spec
        self.agent = agent
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
        seed = EVAL_SEED + 100_000 * self.spec.seed + 1_000 * self.evaluations
        self.evaluations += 1
        results = self.agent.evaluate(episodes, seed)
        self.spend(Spent(detections=[(0, what) for what in self.agent.take_detections()]))
        point = CurvePoint(phase, epoch, self.env_steps, self.actions,
                           round(cpu_seconds() - self.cpu0, 3), _rate(results),
                           _mean_success_steps(results), len(results), False)
        self.curve.append(point)
        return point

    def converged(self, phase: Phase) -> bool:
        eta, threshold = self.spec.protocol.eta, self.spec.protocol.success_threshold
        points = [p for p in self.curve if p.phase == phase]
        return len(points) >= eta and all(p.success_rate >= threshold for p in points[-eta:])

    def mark_converged(self) -> None:
        last = self.curve[-1]
        self.curve[-1] = CurvePoint(**{**last.as_dict(), "converged": True})


def _rate(results: list[EpisodeResult]) -> float:
    return sum(r.success for r in results) / len(results) if results else 0.0


def _mean_success_steps(results: list[EpisodeResult]) -> float:
    steps = [r.steps for r in results if r.success]
    return sum(steps) / len(steps) if steps else math.nan


def _phase(run: _Run, phase: Phase, budget: int, seed: int) -> bool:
    """Train in epochs until the convergence criterion or the budget; True if converged. An
    agent that cannot learn in this phase gets `eta` epochs, which show where it stands."""
    p = run.spec.protocol
    learns = run.agent.learns(phase)
    spent_in_phase, epoch = 0, 1
    while spent_in_phase < budget if learns else epoch <= p.eta:
        step = min(p.epoch_steps, budget - spent_in_phase) if learns else p.epoch_steps
        spent = run.agent.train(step, seed + 1_000 * epoch, phase)
        run.spend(spent)
        spent_in_phase += max(spent.env_steps, 1)
        run.evaluate(phase, epoch, p.eval_episodes)
        epoch += 1
        if run.converged(phase):
            run.mark_converged()
            return True
    return False


def run_protocol(spec: RunSpec) -> dict[str, Any]:
    """Run the four phases for one (agent, domain, novelty, seed); return its record."""
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    p = spec.protocol
    record: dict[str, Any] = {"key": spec.key, "spec": spec.as_dict(), "started": started,
                              "status": "ok", "error": ""}
    try:
        pre_env = NesyGridEnv(spec.domain)
        agent = make_protocol_agent(spec.agent, pre_env, spec.domain, spec.seed,
                                    p.max_episode_steps, p.epoch_steps, p.pretrained)
        run = _Run(spec, agent)
        _phase(run, "pre", p.pre_steps, seed=1_000_000 * spec.seed)
        # injection: from here on the agent acts in the world of the novelty
        run.injected_at = run.env_steps
        record["novelty"] = {"env_steps": run.env_steps, "actions": run.actions,
                             "cpu_seconds": round(cpu_seconds() - run.cpu0, 3)}
        agent.inject(NoveltyInjector(NesyGridEnv(spec.domain), [spec.novelty]))
        run.evaluate("post", 0, p.eval_episodes)  # immediate post-novelty performance
        _phase(run, "post", p.post_steps, seed=1_000_000 * spec.seed + 500_000)
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
