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

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

Phase = Literal["pre", "post"]

UNMASKED = "_unmasked"
"""Suffix of an RL agent that trains and acts without the world's action masks, as the
paper's RL agents did (`RLConfig.action_masks=False`, hybrid/baselines/legal_actions.py):
`transfer_rl+icm_unmasked` is Transfer RL + ICM on the plain action space."""
RL_AGENTS = ("rl", "rl+icm", "transfer_rl", "transfer_rl+icm")
AGENTS = ("planning", "repair+rapidlearn+", "repair+rapidlearn", "rapidlearn", "rapidlearn+",
          *RL_AGENTS, *(name + UNMASKED for name in RL_AGENTS))
"""Agent names the protocol knows (`+` / `+icm`: with ICM curiosity; `_unmasked`: see
`UNMASKED`)."""


PROTOCOL_NAMES = ("paper", "light", "custom")
"""Every output names the protocol it used: "paper" is NovelGym's own (`PAPER_PROTOCOL`),
"light" the quicker default of `nesyworld run` (experiments/protocol/adaptation.py), and
"custom" any other budgets a config sets."""


@dataclass(frozen=True)
class ProtocolConfig:
    """Budgets and convergence test of the four phases (paper section 5.1) for one run.

    An epoch is `epoch_steps` env steps of training (or of task episodes, for agents that
    learn while acting), followed by `eval_episodes` separate evaluation episodes that give
    one point of the success-rate curve. What counts as an env step is docs/COUNTS.md's.
    """

    name: str = ""
    """Which protocol these values are (PROTOCOL_NAMES). Left empty, it is "paper" when
    every field `PAPER_FIELDS` names has the paper's value and "custom" otherwise; "paper"
    with other values is refused."""
    pre_steps: int = 4_000_000
    """Initial training budget (paper section 7: 4M env steps for the RL agents)."""
    post_steps: int = 1_000_000
    """Adaptation budget after the injection (the paper states none; its slowest mean
    T_adapt is 854,400)."""
    epoch_steps: int = 4_800
    """Paper appendix A and table 7: an epoch is 4,800 env steps."""
    eval_episodes: int = 100
    """Paper tables 6 and 7: 100 episodes per test."""
    post_eval_episodes: int = 100
    """Episodes of the final, separate post-adaptation evaluation."""
    success_threshold: float = 0.9
    """Paper appendix A: delta_G = 0.9, met in each of the last eta epochs."""
    reward_threshold: float = 400.0
    """Paper appendix A: delta_R = 400, the mean evaluation reward in each of the last eta
    epochs."""
    eta: int = 5
    """Paper appendix A: eta = 5."""
    nu: int = 5
    """Paper appendix A: nu = 5; the best success rate and reward of the last eta + nu
    epochs must be in the last eta."""
    max_episode_steps: int = 400
    """Paper appendix A and table 7: episodes end after 400 steps."""
    pre_full_budget: bool = True
    """Agents that learn before the novelty (the RL baselines) train for the whole
    `pre_steps`, as the paper's did ("trained for 4 Million timesteps after which it achieved
    comparable performance to a planning agent", section 6; S_pre = 1, section 7), rather
    than stopping where the convergence test first holds; that point is still marked on the
    curve. False stops there (a quicker pre-training, at S_pre about 0.9)."""
    pre_stop_reward: float | None = None
    """With `pre_full_budget` off, another place to stop pre-training: once the last
    `pre_stop_epochs` evaluations in a row all reach this mean reward. NovelGym's code stops
    its pre-training so, after 22 checks in a row at 900 (its `generate_min_rew_stop_fn`).
    None: where the convergence test first holds."""
    pre_stop_epochs: int = 6
    """The run of evaluations `pre_stop_reward` asks for. NovelGym checks the mean reward
    after every collect of 2,400 env steps and again on the test each passing check starts
    (tianshou's `test_in_train`), so its 22 checks span about 26,400 env steps: about 6 of
    our 4,800-step epochs."""
    pretrained: str = ""
    """RL agents: where the pre-trained checkpoint of each (agent, seed) lives, with `{agent}`
    and `{seed}` filled in (experiments/protocol/pretraining.py). The first run of a pair
    pre-trains and saves it; every later run loads it and only evaluates it before the
    novelty, so one pre-training per seed serves every novelty, as in the paper. Without
    `{seed}` every seed shares one file."""

    def __post_init__(self) -> None:
        if self.pre_stop_reward is not None and self.pre_full_budget:
            raise ValueError("protocol pre_stop_reward: pre-training stops early only with "
                             "pre_full_budget false")
        if self.pre_stop_epochs < 1:
            raise ValueError(f"protocol pre_stop_epochs is {self.pre_stop_epochs}; expected "
                             "at least 1")
        mismatches = self.paper_mismatches()
        if not self.name:
            object.__setattr__(self, "name", "custom" if mismatches else "paper")
        elif self.name not in PROTOCOL_NAMES:
            raise ValueError(f"protocol name: expected one of {', '.join(PROTOCOL_NAMES)}, "
                             f"got {self.name!r}")
        elif self.name == "paper" and mismatches:
            raise ValueError(f"protocol 'paper' with values that are not the paper's: "
                             f"{', '.join(mismatches)}")

    @classmethod
    def paper(cls, **changes: Any) -> ProtocolConfig:
        """NovelGym's protocol; `changes` may set only the fields outside `PAPER_FIELDS`."""
        fixed = sorted(set(changes) & set(PAPER_FIELDS))
        if fixed:
            raise ValueError(f"protocol 'paper' fixes {', '.join(fixed)}")
        return cls(name="paper", **changes)

    def paper_mismatches(self) -> list[str]:
        """The fields that differ from the paper's protocol, as "field=value (paper: v)"."""
        return [f"{f.name}={getattr(self, f.name)} (paper: {f.default})"
                for f in fields(ProtocolConfig)
                if f.name in PAPER_FIELDS and getattr(self, f.name) != f.default]


PAPER_FIELDS = ("pre_steps", "epoch_steps", "eval_episodes", "post_eval_episodes",
                "success_threshold", "reward_threshold", "eta", "nu", "max_episode_steps",
                "pre_full_budget", "pre_stop_reward")
"""The fields the paper fixes (their defaults above are its values); `post_steps` and
`pretrained` are budget and plumbing, free under every protocol."""
PAPER_PROTOCOL = ProtocolConfig(name="paper")


@dataclass(frozen=True)
class RunSpec:
    """One (agent, domain, novelty, seed) run under a protocol."""

    agent: str
    domain: str
    novelty: str
    seed: int
    protocol: ProtocolConfig = field(default_factory=ProtocolConfig)
    knowledge: str = "closed"
    """What a hybrid agent may know of the changed world (docs/KNOWLEDGE.md)."""
    refusals: str = "explained"
    """Whether the env says why it refused an action."""

    @property
    def key(self) -> str:
        base = f"{self.agent}/{self.domain}/{self.novelty}/{self.seed}"
        # the default regime keeps the short key; others are runs of their own
        extra = [x for x, default in ((self.knowledge, "closed"),
                                      (self.refusals, "explained")) if x != default]
        return "/".join([base, *extra])

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSpec:
        """Inverse of `as_dict`; a hybrid agent's spec recorded before the regimes were named
        ran in the oracle's (docs/KNOWLEDGE.md)."""
        from nesyworld.hybrid.agents.names import HYBRID_AGENTS

        protocol = ProtocolConfig(**data.get("protocol", {}))
        before = "oracle" if data["agent"] in HYBRID_AGENTS else "closed"
        return cls(data["agent"], data["domain"], data["novelty"], int(data["seed"]), protocol,
                   str(data.get("knowledge", before)),
                   str(data.get("refusals", "explained")))


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
    mean_reward: float = math.nan
    """Mean return of the evaluation episodes (delta_R of the convergence test); NaN in
    records written before it was kept."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
