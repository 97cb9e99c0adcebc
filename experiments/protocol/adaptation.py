"""Adapt an agent to a novelty, then evaluate it: the measurement behind `nesyworld run
--agent rapidlearn+` and the recovery experiment.

Adaptation: episodes with learning on, from the injection, until `window` in a row succeed
with no new learning (or `max_episodes`). Its cost, as the NovelGym paper counts T_adapt, is
every env step taken after the injection until then: the agent's own steps in those
episodes (executor steps included) plus every step its learning took (training and checking
rollouts). The separate evaluation episodes, run afterwards with learning off, are not counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from nesyworld.hybrid import EpisodeResult, run_episode

EVAL_SEED_OFFSET = 10_000
"""Evaluation seeds start here (plus the run's seed), apart from the adaptation seeds."""


@dataclass
class AdaptationResult:
    """How an agent adapted and how well it did afterwards."""

    adaptation_episodes: list[EpisodeResult]
    adaptation_steps: int
    """Agent env steps in the adaptation episodes plus learning env steps."""
    learning_steps: int
    recoveries: list[dict[str, Any]]
    adapted: bool
    """Adaptation converged (see `adapt_and_evaluate`)."""
    evaluation: list[EpisodeResult] = field(default_factory=list)
    adaptation_seconds: float = 0.0
    evaluation_seconds: float = 0.0

    @property
    def post_novelty_success_rate(self) -> float:
        n = len(self.evaluation)
        return sum(r.success for r in self.evaluation) / n if n else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "adapted": self.adapted,
            "adaptation_episodes": len(self.adaptation_episodes),
            "adaptation_steps": self.adaptation_steps,
            "learning_steps": self.learning_steps,
            "recoveries": self.recoveries,
            "post_novelty_episodes": len(self.evaluation),
            "post_novelty_success_rate": self.post_novelty_success_rate,
            "post_novelty_mean_steps": (sum(r.steps for r in self.evaluation)
                                        / len(self.evaluation) if self.evaluation else 0.0),
            "adaptation_seconds": round(self.adaptation_seconds, 2),
            "evaluation_seconds": round(self.evaluation_seconds, 2),
        }

    def episodes(self) -> list[dict[str, Any]]:
        return [{"phase": phase, **asdict(r)} for phase, rs in
                (("adaptation", self.adaptation_episodes), ("evaluation", self.evaluation))
                for r in rs]


def adapt_and_evaluate(env: Any, agent: Any, *, seed: int = 0, max_episodes: int = 60,
                       window: int = 20, eval_episodes: int = 20,
                       before_evaluation: Callable[[], None] | None = None,
                       on_episode: Callable[[int, EpisodeResult], None] | None = None
                       ) -> AdaptationResult:
    """Adapt `agent` (a HybridAgent, or any agent with `learning` and `recoveries`) on `env`,
    then evaluate it frozen. `env` should already carry the novelty.

    Adaptation has converged when `window` episodes in a row succeed without learning
    anything new (a learned operator that fails on a new map is fine-tuned meanwhile, and
    the streak restarts); each episode has its own seed, so its own map."""
    start = time.perf_counter()
    done: list[EpisodeResult] = []
    adapted = False
    has_learning = hasattr(agent, "learning")
    if has_learning:
        agent.learning = True
    streak = 0
    for k in range(max_episodes):
        learned_before = len(getattr(agent, "recoveries", []))
        result = run_episode(env, agent, seed + k)
        done.append(result)
        if on_episode is not None:
            on_episode(k, result)
        quiet = len(getattr(agent, "recoveries", [])) == learned_before
        streak = streak + 1 if result.success and quiet else 0
        if streak >= window:
            adapted = True
            break
    recoveries = list(getattr(agent, "recoveries", []))
    learning_steps = sum(r.env_steps for r in recoveries)
    adaptation_seconds = time.perf_counter() - start
    if has_learning:
        agent.learning = False
    if before_evaluation is not None:
        before_evaluation()
    start = time.perf_counter()
    evaluation = [run_episode(env, agent, seed + EVAL_SEED_OFFSET + k)
                  for k in range(eval_episodes)]
    return AdaptationResult(done, sum(r.steps for r in done) + learning_steps, learning_steps,
                            [r.summary() for r in recoveries], adapted, evaluation,
                            adaptation_seconds, time.perf_counter() - start)
