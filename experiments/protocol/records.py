"""What one experiment run is, and what it records: the contract between the protocol (which
runs an agent through the four phases), the runner (which schedules runs and stores their
records) and the reports (which compute the metrics from the records).

A record is one JSON object per run (a line of a JSON-lines file):

    {"key": "rapidlearn+/pogostick/axe/0", "spec": {...RunSpec as a dict...},
     "code_version": "0.1.0+g1a2b3c4", "started": "2026-11-22T03:00:00+00:00",
     "wall_seconds": 41.2, "status": "ok" | "error", "error": "",
     "novelty": {"env_steps": 1200, "actions": 1200, "cpu_seconds": 3.1},
     "curve": [CurvePoint as a dict, ...],
     "detections": [{"env_steps": 1210, "actions": 1210, "correct": true,
                     "what": "new entity type 'axe'"}]}

Counters (`env_steps`, `actions`, `cpu_seconds`) are cumulative from the start of the run and
leave out evaluation episodes, as the paper does: env_steps counts every env step the agent
caused (its task episodes and any learning rollouts or training), actions only the actions it
chose in its own task episodes, cpu_seconds the process CPU time spent on both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Phase = Literal["pre", "post"]

AGENTS = ("planning", "repair+rapidlearn+", "repair+rapidlearn", "rapidlearn", "rapidlearn+",
          "rl", "rl+icm", "transfer_rl", "transfer_rl+icm")
"""Agent names the protocol knows (`+` / `+icm`: with ICM curiosity)."""


@dataclass(frozen=True)
class ProtocolConfig:
    """Budgets of the four phases (paper section 5.1) for one run.

    An epoch is `epoch_steps` env steps of training (or of task episodes, for agents that
    learn while acting), followed by `eval_episodes` separate evaluation episodes that give
    one point of the success-rate curve.
    """

    pre_steps: int = 4_000_000
    """Initial training budget (paper: 4M env steps for the RL agents)."""
    post_steps: int = 1_000_000
    """Adaptation budget after the injection."""
    epoch_steps: int = 4_800
    eval_episodes: int = 100
    post_eval_episodes: int = 100
    """Episodes of the final, separate post-adaptation evaluation."""
    success_threshold: float = 0.9
    eta: int = 5
    """Convergence: success_threshold met in each of the last eta epochs (paper appendix A)."""
    max_episode_steps: int = 400
    pretrained: str = ""
    """RL agents: a checkpoint (`RLAgent.save`) to start from instead of pre-novelty
    training, so one pre-training per seed serves every novelty; `{seed}` in the path is
    replaced by the run's seed. The pre-novelty phase then only evaluates it."""


@dataclass(frozen=True)
class RunSpec:
    """One (agent, domain, novelty, seed) run under a protocol."""

    agent: str
    domain: str
    novelty: str
    seed: int
    protocol: ProtocolConfig = field(default_factory=ProtocolConfig)

    @property
    def key(self) -> str:
        return f"{self.agent}/{self.domain}/{self.novelty}/{self.seed}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSpec:
        protocol = ProtocolConfig(**data.get("protocol", {}))
        return cls(data["agent"], data["domain"], data["novelty"], int(data["seed"]), protocol)


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation of the agent: a point of the success-rate curve (paper figure 4)."""

    phase: Phase
    epoch: int
    env_steps: int
    actions: int
    cpu_seconds: float
    success_rate: float
    mean_steps: float
    """Mean episode length of the successful evaluation episodes (t in the paper's Δt);
    NaN when none succeeded."""
    episodes: int
    converged: bool
    """The convergence criterion holds at this point (pre: training done; post: adapted)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
