"""Training several learning agents on a multi-agent task (a spec with `multiagent:`).

Independent learners: each learner gets its own masked-PPO policy from `nesyworld.learning`.
Training alternates: in each round, every learner in turn trains against the others' current
policies, which stay frozen meanwhile. Freezing keeps each learner's world stationary for the
length of its phase (what PPO assumes), and separate policies let learners take different
roles (in the cooperative task only one of them holds the pickaxe). Agents that are not
learners (traders, say) are driven by their spec controllers, as in the Gymnasium env.

Evaluation plays every learner's policy (sampled, so a policy cannot loop forever on one
greedy action) beside uniformly random learners on the same seeds, and reports per-agent
returns and the team's success rate (cooperative) or each learner's win rate (competitive).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import PPOConfig, TrainConfig, train
from nesyworld.world.envs.parallel_env import NesyGridParallel
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

ActFn = Callable[[Any, np.ndarray], int]


@dataclass(frozen=True)
class MultiAgentTrainConfig:
    """Budgets of one multi-agent training run; `steps` is shared by all learners."""

    steps: int = 6_000
    rounds: int = 2
    eval_episodes: int = 20
    seed: int = 0
    hidden_sizes: tuple[int, ...] = (64, 64)
    collect_chunk: int = 200

    def __post_init__(self) -> None:
        if self.steps <= 0 or self.rounds <= 0 or self.eval_episodes <= 0:
            raise ValueError("MultiAgentTrainConfig: steps, rounds and eval_episodes must be > 0")


def _random_act(rng: np.random.Generator) -> ActFn:
    def act(obs: Any, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(rng.choice(legal)) if len(legal) else 0
    return act


class _Driver:
    """Chooses every agent's action in a round: learners by their policy (random until they
    have one), other agents by their spec controller (a skipped turn becomes `nop`)."""

    def __init__(self, env: NesyGridParallel, policies: Mapping[str, ActFn], seed: int) -> None:
        self.env = env
        self.rng = np.random.default_rng(seed)
        self.random = _random_act(self.rng)
        self.policies = dict(policies)

    def actions(self, obs: Mapping[str, Any], infos: Mapping[str, Any],
                skip: str | None = None) -> dict[str, int]:
        w = self.env.world
        out = {}
        for name in self.env.agents:
            if name == skip:
                continue
            mask = np.asarray(infos[name]["action_mask"], dtype=bool)
            if name in self.env.learners:
                out[name] = int(self.policies.get(name, self.random)(obs[name], mask))
                continue
            i = w.agent_names.index(name)
            ctrl = w.controllers[i]
            choice = ctrl.choose() if ctrl is not None else None
            if isinstance(choice, str):
                choice = w.action_index(choice, i)
            if choice is None:
                names = w.action_names(i)
                choice = names.index("nop") if "nop" in names else self.random(obs[name], mask)
            out[name] = int(choice)
        return out


class LearnerView(gym.Env[Any, int]):
    """One learner's Gymnasium view of a multi-agent world; the others act by `policies`.

    `info["success"]` is the team's success (cooperative) or this learner's win
    (competitive), which the trainer's convergence test and evaluation read.
    """

    def __init__(self, spec: WorldSpec, learner: str, policies: Mapping[str, ActFn],
                 seed: int = 0) -> None:
        self.env = NesyGridParallel(spec, seed=seed)
        if learner not in self.env.learners:
            raise ValueError(f"'{learner}' is not a learner; learners: {self.env.learners}")
        self.learner = learner
        self.driver = _Driver(self.env, {k: v for k, v in policies.items() if k != learner},
                              seed)
        self.observation_space = self.env.observation_space(learner)
        self.action_space = self.env.action_space(learner)
        self._obs: dict[str, Any] = {}
        self._infos: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        self._obs, self._infos = self.env.reset(seed=seed, options=options)
        return self._obs[self.learner], self._info(self.learner)

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        actions = self.driver.actions(self._obs, self._infos, skip=self.learner)
        actions[self.learner] = int(action)
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        self._obs, self._infos = obs, infos
        info = dict(infos[self.learner])
        info["success"] = _succeeded(self.env, self.learner, info)
        return (obs[self.learner], float(rewards[self.learner]), bool(terms[self.learner]),
                bool(truncs[self.learner]), info)

    def _info(self, name: str) -> dict[str, Any]:
        return dict(self._infos[name])


def _succeeded(env: NesyGridParallel, learner: str, info: Mapping[str, Any]) -> bool:
    team = env.aec.team
    if team is not None and not team.team.cooperative:
        return info.get("winner") == learner
    return bool(info.get("success", False))


@dataclass
class AgentReport:
    """One learner's evaluation: trained policy beside random play on the same seeds.
    `rate` is the team success rate (cooperative) or this learner's win rate (competitive)."""

    name: str
    mean_return: float
    rate: float
    random_mean_return: float
    random_rate: float
    train_steps: int = 0


@dataclass
class MultiAgentResult:
    spec: str
    mode: str
    agents: list[AgentReport]
    team_rate: float
    """Cooperative: team success rate; competitive: rate of episodes someone won."""
    random_team_rate: float
    episodes: int
    train_steps: int
    config: MultiAgentTrainConfig = field(default_factory=MultiAgentTrainConfig)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def evaluate(spec: WorldSpec, policies: Mapping[str, ActFn], episodes: int, seed: int
             ) -> tuple[dict[str, float], dict[str, float], float]:
    """Mean return and success/win rate per learner, and the team (or any-winner) rate."""
    env = NesyGridParallel(spec)
    driver = _Driver(env, policies, seed)
    learners = env.learners
    returns = {n: 0.0 for n in learners}
    wins = {n: 0 for n in learners}
    team = 0
    for ep in range(episodes):
        obs, infos = env.reset(seed=RunSeeds(seed).evaluation(ep))
        success, winner = False, None
        while env.agents:
            obs, rewards, _, _, step_infos = env.step(driver.actions(obs, infos))
            for n in learners:
                returns[n] += rewards.get(n, 0.0)
            infos = step_infos
            first = next(iter(step_infos.values()), {})
            success, winner = bool(first.get("success", False)), first.get("winner")
        team += success
        for n in learners:
            wins[n] += (winner == n) if winner is not None else success
    return ({n: r / episodes for n, r in returns.items()},
            {n: w / episodes for n, w in wins.items()}, team / episodes)


def train_multiagent(spec: WorldSpec | str | Path, config: MultiAgentTrainConfig | None = None,
                     on_phase: Callable[[int, str, int], None] | None = None
                     ) -> MultiAgentResult:
    """Train one PPO policy per learner (alternating phases), then evaluate against random.

    `on_phase(round, learner, steps)` is called before each training phase (progress)."""
    config = config or MultiAgentTrainConfig()
    spec = spec if isinstance(spec, WorldSpec) else load_spec(spec)
    learners = NesyGridParallel(spec).learners
    per_phase = max(1, config.steps // (config.rounds * len(learners)))
    ppo = PPOConfig(hidden_sizes=config.hidden_sizes)
    policies: dict[str, ActFn] = {}
    checkpoints: dict[str, Any] = {}
    steps = {n: 0 for n in learners}
    for rnd in range(config.rounds):
        for name in learners:
            if on_phase is not None:
                on_phase(rnd, name, per_phase)
            frozen = dict(policies)
            tc = TrainConfig(step_budget=per_phase, epoch_length=per_phase,
                             collect_chunk=min(config.collect_chunk, per_phase), num_envs=1,
                             vector_env="dummy", eval_episodes=1, progress=False,
                             stop_on_convergence=False, seed=RunSeeds(config.seed).learner,
                             env_seed=RunSeeds(config.seed).map("learner_envs", 20_000 * rnd),
                             max_episode_steps=spec.max_steps)
            result = train(partial(LearnerView, spec, name, frozen, config.seed),
                           tc, ppo, init=checkpoints.get(name))
            checkpoints[name] = result.checkpoint()
            policy = result.policy
            policies[name] = partial(policy.act, greedy=False)
            steps[name] += result.env_steps
    eval_seed = config.seed  # a run seed: its evaluation maps, never used in training
    ret, rate, team = evaluate(spec, policies, config.eval_episodes, eval_seed)
    r_ret, r_rate, r_team = evaluate(spec, {}, config.eval_episodes, eval_seed)
    agents = [AgentReport(n, ret[n], rate[n], r_ret[n], r_rate[n], steps[n]) for n in learners]
    mode = spec.multiagent.mode if spec.multiagent is not None else "single"
    return MultiAgentResult(spec.name, mode, agents, team, r_team, config.eval_episodes,
                            sum(steps.values()), config)


def render_table(result: MultiAgentResult) -> Any:
    """A rich table: one row per learner, trained beside random, and the team line."""
    from rich.table import Table

    rate = "team success" if result.mode == "cooperative" else "win rate"
    table = Table(title=f"{result.spec} ({result.mode}, {result.episodes} evaluation episodes, "
                        f"{result.train_steps} training steps)")
    for col in ("agent", "train steps", "return", f"{rate}", "random return", f"random {rate}"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for a in result.agents:
        table.add_row(a.name, str(a.train_steps), f"{a.mean_return:.1f}", f"{a.rate:.2f}",
                      f"{a.random_mean_return:.1f}", f"{a.random_rate:.2f}")
    label = "team" if result.mode == "cooperative" else "someone won"
    table.add_row(label, "", "", f"{result.team_rate:.2f}", "", f"{result.random_team_rate:.2f}")
    return table
