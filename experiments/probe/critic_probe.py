"""What a transferred critic teaches the policy in the novel world: advantages, per action.

A Transfer RL baseline (hybrid/baselines/rl_agents.py) carries its critic over a novelty with
the policy. PPO's policy step raises the actions whose advantage is above the sample's mean
and lowers the rest, and the advantages are measured against the critic's values, which were
learnt in the old world. Where the novelty changed what a state is worth, the carried critic
can favour the old plan's steps and penalise the new ones, and fine-tuning then unlearns
the very steps that succeed. This probe plays episodes of the novelty with the agent's own
sampling and scores each step's action under the carried critic and under a freshly
initialised one (`TransferConfig.fresh_critic`), with the agent's own discount, GAE lambda
and reward scale: if the two disagree on the novelty's steps, the critic is what steers
fine-tuning.

    python -m nesyworld.experiments.probe.critic_probe CHECKPOINT --novelty fire_floating
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from nesyworld.experiments.probe.transfer_probe import probe_parser
from nesyworld.hybrid.baselines.legal_actions import trained_with_masks
from nesyworld.hybrid.baselines.rl_agents import TransferRLAgent
from nesyworld.hybrid.baselines.rl_config import (
    DEFAULT_TRANSFER,
    PAPER_TRANSFER,
    TRANSFER_RL_CONFIG,
)
from nesyworld.hybrid.baselines.transfer import restarted_critic
from nesyworld.learning import Checkpoint, load_checkpoint
from nesyworld.learning.algorithms.masking import flatten_observation
from nesyworld.learning.algorithms.networks import ValueCritic
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

__all__ = ["ActionAdvantage", "CriticProbe", "gae", "main", "probe_critic"]


@dataclass(frozen=True)
class ActionAdvantage:
    """One action's mean advantage over the steps it was taken, normalised as PPO does
    (the sample's mean subtracted, divided by its standard deviation): above 0, a policy
    step raises the action's probability; below, it lowers it."""

    action: str
    steps: int
    carried: float
    fresh: float


@dataclass(frozen=True)
class CriticProbe:
    """The advantages the carried and a fresh critic give the same episodes (values in the
    learner's units: returns times `PPOConfig.reward_scale`)."""

    checkpoint: str
    novelty: str
    episodes: int
    steps: int
    successes: int
    start_value_carried: float
    """The carried critic's mean value of the episodes' first states."""
    start_value_fresh: float
    success_advantage_carried: float
    """Mean normalised advantage of the steps of successful episodes (nan without one)."""
    failure_advantage_carried: float
    success_advantage_fresh: float
    failure_advantage_fresh: float
    actions: tuple[ActionAdvantage, ...]
    """Every action taken, most taken first."""


def gae(rewards: np.ndarray, values: np.ndarray, last_value: float, gamma: float,
        lam: float) -> np.ndarray:
    """Generalised advantage estimates of one episode: `values` of its states, `last_value`
    the value after its last step (0 if it terminated, the critic's if it was cut off)."""
    following = np.append(values[1:], last_value)
    deltas = rewards + gamma * following - values
    advantages = np.empty_like(deltas)
    running = 0.0
    for t in range(len(deltas) - 1, -1, -1):
        running = deltas[t] + gamma * lam * running
        advantages[t] = running
    return advantages


@dataclass
class _Episode:
    observations: np.ndarray
    """(T + 1, obs_dim): each state, then the one after the last step."""
    actions: np.ndarray
    rewards: np.ndarray
    terminated: bool
    success: bool


def _advantages(critic: ValueCritic, episodes: Sequence[_Episode], ckpt: Checkpoint
                ) -> tuple[list[np.ndarray], float]:
    """Each episode's advantages, and the mean value of the first states."""
    out, starts = [], []
    for episode in episodes:
        with torch.no_grad():
            values = critic.values(torch.as_tensor(episode.observations)).numpy()
        starts.append(float(values[0]))
        last = 0.0 if episode.terminated else float(values[-1])
        out.append(gae(episode.rewards * ckpt.ppo.reward_scale, values[:-1], last,
                       ckpt.ppo.gamma, ckpt.ppo.gae_lambda))
    return out, float(np.mean(starts))


def _normalised(advantages: list[np.ndarray]) -> list[np.ndarray]:
    every = np.concatenate(advantages)
    mean, std = every.mean(), every.std() + 1e-8
    return [(a - mean) / std for a in advantages]


def _where(parts: list[np.ndarray], won: list[bool], success: bool) -> list[np.ndarray]:
    return [part for part, w in zip(parts, won, strict=True) if w == success]


def _mean_of(parts: list[np.ndarray]) -> float:
    return float(np.concatenate(parts).mean()) if parts else float("nan")


def probe_critic(checkpoint: str | Path, novelty: str, domain: str = "pogostick",
                 episodes: int = 40, max_steps: int = 400, seed: int = 100) -> CriticProbe:
    """Play `episodes` episodes (map seeds `seed` onwards, at most `max_steps` steps) of
    `domain` after `novelty` as the Transfer RL agent acts, and score every step's action
    under the carried critic and a fresh one."""
    if episodes < 1 or max_steps < 1:
        raise ValueError("episodes and max_steps must be at least 1")
    env = NoveltyInjector(NesyGridEnv(domain), [novelty])
    ckpt = load_checkpoint(checkpoint)
    masks = trained_with_masks(ckpt)
    config = dataclasses.replace(TRANSFER_RL_CONFIG, action_masks=masks)
    agent = TransferRLAgent(env, ckpt, None, config,
                            transfer=DEFAULT_TRANSFER if masks else PAPER_TRANSFER)
    played: list[_Episode] = []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        agent.reset(obs, info)  # the network grows to the novel world's spaces here
        space = agent.checkpoint.observation_space
        rows, actions, rewards = [flatten_observation(space, obs)], [], []
        terminated = truncated = False
        for _ in range(max_steps):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            rows.append(flatten_observation(space, obs))
            actions.append(action)
            rewards.append(float(reward))
            if terminated or truncated:
                break
        played.append(_Episode(np.asarray(rows, np.float32), np.asarray(actions),
                               np.asarray(rewards), bool(terminated),
                               bool(info.get("success", False))))
    grown = agent.checkpoint
    carried, start_carried = _advantages(grown.critic(), played, grown)
    fresh, start_fresh = _advantages(restarted_critic(grown, seed).critic(), played, grown)
    carried, fresh = _normalised(carried), _normalised(fresh)
    names = agent.names.actions
    taken = np.concatenate([e.actions for e in played])
    by_carried, by_fresh = np.concatenate(carried), np.concatenate(fresh)
    rows_out = [ActionAdvantage(names[a], int((taken == a).sum()),
                                float(by_carried[taken == a].mean()),
                                float(by_fresh[taken == a].mean()))
                for a in np.unique(taken)]
    won = [e.success for e in played]
    return CriticProbe(
        checkpoint=str(checkpoint), novelty=novelty, episodes=episodes, steps=len(taken),
        successes=sum(won), start_value_carried=start_carried, start_value_fresh=start_fresh,
        success_advantage_carried=_mean_of(_where(carried, won, True)),
        failure_advantage_carried=_mean_of(_where(carried, won, False)),
        success_advantage_fresh=_mean_of(_where(fresh, won, True)),
        failure_advantage_fresh=_mean_of(_where(fresh, won, False)),
        actions=tuple(sorted(rows_out, key=lambda r: (-r.steps, r.action))))


def main(argv: list[str] | None = None) -> None:
    parser = probe_parser(
        "python -m nesyworld.experiments.probe.critic_probe",
        "The advantages a transferred critic gives each action after a novelty, beside a "
        "fresh critic's, on the same episodes.", episodes=40, max_steps=400, seed=100)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    try:
        result = probe_critic(args.checkpoint, args.novelty, args.domain, args.episodes,
                              args.max_steps, args.seed)
    except (OSError, ValueError) as err:
        parser.exit(2, f"critic_probe: {err}\n")
    if args.json:
        print(json.dumps(asdict(result)))
        return
    for key, value in asdict(result).items():
        if key != "actions":
            print(f"{key:>26}  {value:.3g}" if isinstance(value, float) else
                  f"{key:>26}  {value}")
    print(f"\n{'action':<28} {'steps':>6} {'carried':>8} {'fresh':>8}")
    for row in result.actions:
        print(f"{row.action:<28} {row.steps:>6} {row.carried:>+8.2f} {row.fresh:>+8.2f}")


if __name__ == "__main__":
    main()
