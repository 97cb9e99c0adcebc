"""Adapt an agent to a novelty, then evaluate it: the measurement behind `nesyworld run
--agent rapidlearn+` and the adaptation study, under the "light" protocol.

The light protocol: episodes with learning on, from the injection, until `window` in a row
succeed with no new learning, or `max_episodes`; then `eval_episodes` evaluation episodes
with learning off. Its T_adapt counts what docs/COUNTS.md calls the env steps in all of the
adaptation: the agent's episode steps, plus its learning steps (training, checking
rollouts, sampled failure maps, repair verification), plus its learner's own evaluation
steps. The separate evaluation episodes afterwards are not counted. It is quicker than the
paper's protocol (experiments/protocol/run.py, `--protocol paper`), and its figures are
never compared with the paper's.

Every adaptation ends with a verdict: adapted (the window was met), or not adapted and why
(the episode cap came first). A run that did not adapt has no T_adapt (None), only the env
steps it spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from nesyworld.hybrid import EpisodeResult, run_episode
from nesyworld.hybrid.seeding import RunSeeds

PROTOCOL = "light"


@dataclass
class AdaptationResult:
    """How an agent adapted and how well it did afterwards (counts: docs/COUNTS.md)."""

    adaptation_episodes: list[EpisodeResult]
    env_steps: int
    """Env steps in all of the adaptation: episode + learning + learner evaluation steps."""
    learning_steps: int
    recoveries: list[dict[str, Any]]
    adapted: bool
    """The verdict: `window` successes in a row without new learning were reached."""
    evaluation: list[EpisodeResult] = field(default_factory=list)
    adaptation_seconds: float = 0.0
    evaluation_seconds: float = 0.0
    learner_evaluation_steps: int = 0
    """Env steps of the learner's own evaluations (its convergence test), part of
    `env_steps`."""
    reason: str = ""
    """Why adaptation ended, in one line."""
    seed: int = 0
    """The run seed (nesyworld.hybrid.seeding) the maps and the learner came from."""

    @property
    def episode_steps(self) -> int:
        return sum(r.steps for r in self.adaptation_episodes)

    @property
    def t_adapt(self) -> int | None:
        """T_adapt under the light protocol: `env_steps` when adapted, else None."""
        return self.env_steps if self.adapted else None

    @property
    def post_novelty_success_rate(self) -> float:
        n = len(self.evaluation)
        return sum(r.success for r in self.evaluation) / n if n else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL,
            "seed": self.seed,
            "adapted": self.adapted,
            "verdict": ("adapted: " if self.adapted else "not adapted: ") + self.reason,
            "t_adapt": self.t_adapt,
            "adaptation_episodes": len(self.adaptation_episodes),
            "env_steps": self.env_steps,
            "episode_steps": self.episode_steps,
            "learning_steps": self.learning_steps,
            "learner_evaluation_steps": self.learner_evaluation_steps,
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
    then evaluate it frozen. `env` should already carry the novelty; `seed` is the run seed:
    adaptation episode k plays the run's adaptation map k, evaluation episode k its
    evaluation map k (nesyworld.hybrid.seeding), so two run seeds share no map.

    Adaptation has converged when `window` episodes in a row succeed without learning
    anything new (a learned operator that fails on a new map is fine-tuned meanwhile, and
    the streak restarts; `RecoveryConfig.finetunes` bounds the fine-tunes)."""
    seeds = RunSeeds(seed)
    start = time.perf_counter()
    done: list[EpisodeResult] = []
    adapted = False
    has_learning = hasattr(agent, "learning")
    if has_learning:
        agent.learning = True
    streak, restarts = 0, []
    for k in range(max_episodes):
        learned_before = len(getattr(agent, "recoveries", []))
        result = run_episode(env, agent, seeds.adaptation(k))
        done.append(result)
        if on_episode is not None:
            on_episode(k, result)
        quiet = len(getattr(agent, "recoveries", [])) == learned_before
        if result.success and not quiet and streak:
            restarts.append(k + 1)
        streak = streak + 1 if result.success and quiet else 0
        if streak >= window:
            adapted = True
            break
    if adapted:
        reason = (f"{window} successes in a row without new learning, after "
                  f"{len(done)} episodes")
    else:
        reason = (f"the cap of {max_episodes} adaptation episodes came first; the last "
                  f"{streak} succeeded without new learning (needed {window})")
        if restarts:
            reason += ("; learning in successful episodes "
                       f"{', '.join(map(str, restarts))} restarted the count")
    recoveries = list(getattr(agent, "recoveries", []))
    learning_steps = sum(r.learning_steps for r in recoveries)
    evaluation_steps = sum(r.evaluation_steps for r in recoveries)
    adaptation_seconds = time.perf_counter() - start
    if has_learning:
        agent.learning = False
    if before_evaluation is not None:
        before_evaluation()
    start = time.perf_counter()
    evaluation = [run_episode(env, agent, seeds.evaluation(k)) for k in range(eval_episodes)]
    return AdaptationResult(done, sum(r.steps for r in done) + learning_steps
                            + evaluation_steps, learning_steps,
                            [r.summary() for r in recoveries], adapted, evaluation,
                            adaptation_seconds, time.perf_counter() - start,
                            evaluation_steps, reason, seed)
