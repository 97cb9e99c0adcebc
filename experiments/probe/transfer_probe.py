"""Why a transferred RL policy does or does not adapt: its action distribution in the novel
world, step by step.

A Transfer RL baseline (hybrid/baselines/rl_agents.py) keeps its pre-novelty weights and
learns on by sampling its own policy. It can only learn to use what it samples: when
pre-training has made the policy almost deterministic, a novelty's new action (Axe's
`select_axe`) starts with a probability that no number of env steps will ever draw, and a
refused action the policy is sure of is repeated until the episode ends. This probe plays a
few episodes of the novelty with the agent's own sampling and reports, per step, the policy's
entropy, the probability it gives the actions the novelty added, and how long it kept
repeating a refused action: the evidence for "it cannot explore" or against it.

    python -m nesyworld.experiments.probe results/table2/pretrained/transfer_rl_unmasked_0.pt \
        --novelty axe
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import cast

import numpy as np

from nesyworld.hybrid.baselines.legal_actions import offered, trained_with_masks
from nesyworld.hybrid.baselines.rl_agents import TransferRLAgent
from nesyworld.hybrid.baselines.rl_config import (
    DEFAULT_TRANSFER,
    PAPER_TRANSFER,
    TRANSFER_RL_CONFIG,
)
from nesyworld.learning import load_checkpoint, mask_from_info
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
from nesyworld.world.simulation.world import World

__all__ = ["ProbeResult", "main", "probe_parser", "probe_transfer"]


@dataclass(frozen=True)
class ProbeResult:
    """What the policy's distribution looked like over the probed steps (nats for entropy)."""

    checkpoint: str
    novelty: str
    new_actions: tuple[str, ...]
    """Actions of the novel world the checkpoint's policy had never had."""
    episodes: int
    steps: int
    successes: int
    mean_entropy: float
    max_entropy: float
    """log(number of actions offered): the entropy of a uniform choice, for scale."""
    sure_steps: float
    """Share of steps whose most probable action had probability >= 0.99."""
    new_action_probability: float
    """The largest probability any new action got at any probed step."""
    new_action_mean_probability: float
    """The probability of taking some new action, on average over the probed steps."""
    new_actions_taken: int
    refused_steps: int
    longest_refused_repeat: int
    """The longest run of one refused action taken again and again."""
    new_actions_from: str
    """How new actions started (TransferConfig.new_actions_from; "" for the old mean)."""
    no_op_mean_probability: float
    """The probability of the old `nop` on average over the probed steps (nan without one):
    what a new action gets when it starts as the paper's placeholder no-op did."""
    prefix: tuple[str, ...] = ()
    """Actions played at the start of every episode before the policy acts (not probed)."""
    new_action_episodes: dict[str, int] = field(default_factory=dict)
    """For each new action, the episodes in which the policy took it."""
    new_types_held: dict[str, int] = field(default_factory=dict)
    """For each entity type the novelty added, the episodes in which the agent had one in
    its inventory at some step: how far along a chain of new steps the policy got."""
    new_types_selected: dict[str, int] = field(default_factory=dict)
    """Likewise, the episodes in which the agent had it selected."""


def _new_actions(agent: TransferRLAgent, old: Sequence[str]) -> tuple[str, ...]:
    return tuple(a for a in agent.names.actions if a not in set(old))


def _note(world: World, added: Sequence[str], held: set[str], chosen: set[str]) -> None:
    """Add to `held` and `chosen` the types of `added` the agent has in its inventory and
    has selected now."""
    names = world.types.names
    inventory = world.state.inventory[world.main]
    held.update(t for t in added if inventory[names.index(t)] > 0)
    chosen.update(t for t in added if names[int(world.state.selected[world.main])] == t)


def probe_transfer(checkpoint: str | Path, novelty: str, domain: str = "pogostick",
                   episodes: int = 5, max_steps: int = 100, seed: int = 0,
                   new_actions_from: str | None = None, prefix: Sequence[str] = ()
                   ) -> ProbeResult:
    """Play `episodes` episodes (at most `max_steps` steps each, map seeds `seed` onwards) of
    `domain` after `novelty` with the checkpoint's policy, as the Transfer RL agent acts.
    `new_actions_from`: as TransferConfig's; None for what the protocol gives this
    checkpoint (the paper's placeholder start for a policy trained without masks).
    `prefix`: actions (by name) played first in every episode, to ask whether the policy
    finishes a chain once its first steps are done."""
    ckpt = load_checkpoint(checkpoint)
    env = NoveltyInjector(NesyGridEnv(domain), [novelty])
    masks = trained_with_masks(ckpt)
    config = dataclasses.replace(TRANSFER_RL_CONFIG, action_masks=masks)
    transfer = DEFAULT_TRANSFER if masks else PAPER_TRANSFER
    if new_actions_from is not None:
        transfer = dataclasses.replace(transfer, new_actions_from=new_actions_from)
    agent = TransferRLAgent(env, ckpt, None, config, transfer=transfer)
    old_actions = agent.names.actions
    old_types = set(NesyGridEnv(domain).world.types.names)
    taken: Counter[str] = Counter()
    held: Counter[str] = Counter()
    chosen: Counter[str] = Counter()
    entropies: list[float] = []
    sure, new_taken, refused, successes, longest = 0, 0, 0, 0, 0
    new_p, max_entropy, new_sum, nop_sum = 0.0, 0.0, 0.0, 0.0
    new: tuple[str, ...] = ()
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        agent.reset(obs, info)
        new = _new_actions(agent, old_actions)
        world = cast(NesyGridEnv, env.unwrapped).world
        added = [t for t in world.types.names if t not in old_types]
        ever_held: set[str] = set()
        ever_chosen: set[str] = set()
        ended = False
        for name in prefix:
            if name not in agent.names.actions:
                raise ValueError(f"prefix: {name!r} is not an action of the {novelty} world")
            obs, _, terminated, truncated, info = env.step(agent.names.actions.index(name))
            _note(world, added, ever_held, ever_chosen)
            ended = terminated or truncated
            if ended:
                successes += int(bool(info.get("success", False)))
                break
        episode_new: set[str] = set()
        repeat, last = 0, -1
        for _ in range(0 if ended else max_steps - len(prefix)):
            names = agent.names.actions
            mask = offered(mask_from_info(info, len(names)), names, config.forbidden,
                           config.action_masks)
            p = agent.policy.action_probabilities(obs, mask)
            entropies.append(float(-(p[p > 0] * np.log(p[p > 0])).sum()))
            max_entropy = max(max_entropy, math.log(max(1, int(np.count_nonzero(mask)))))
            sure += int(p.max() >= 0.99)
            nop_sum += float(p[names.index("nop")]) if "nop" in old_actions else math.nan
            new_idx = [names.index(a) for a in new]
            if new_idx:
                new_p = max(new_p, float(p[new_idx].max()))
                new_sum += float(p[new_idx].sum())
            action = agent.act(obs, info)
            new_taken += int(names[action] in new)
            if names[action] in new:
                episode_new.add(names[action])
            obs, _, terminated, truncated, info = env.step(action)
            _note(world, added, ever_held, ever_chosen)
            if info.get("ok", True):
                repeat, last = 0, -1
            else:
                refused += 1
                repeat = repeat + 1 if action == last else 1
                last = action
                longest = max(longest, repeat)
            if terminated or truncated:
                successes += int(bool(info.get("success", False)))
                break
        taken.update(episode_new)
        held.update(ever_held)
        chosen.update(ever_chosen)
        for t in added:
            held[t] += 0
            chosen[t] += 0
    steps = len(entropies)
    return ProbeResult(
        checkpoint=str(checkpoint), novelty=novelty, new_actions=new, episodes=episodes,
        steps=steps, successes=successes,
        mean_entropy=float(np.mean(entropies)) if steps else float("nan"),
        max_entropy=max_entropy, sure_steps=sure / steps if steps else float("nan"),
        new_action_probability=new_p,
        new_action_mean_probability=new_sum / steps if steps else float("nan"),
        new_actions_taken=new_taken, refused_steps=refused,
        longest_refused_repeat=longest, new_actions_from=transfer.new_actions_from,
        no_op_mean_probability=nop_sum / steps if steps else float("nan"),
        prefix=tuple(prefix), new_action_episodes={a: taken[a] for a in new},
        new_types_held=dict(held), new_types_selected=dict(chosen))


def probe_parser(prog: str, description: str, episodes: int, max_steps: int,
                 seed: int) -> argparse.ArgumentParser:
    """The arguments every probe of a checkpoint after a novelty takes: the checkpoint, the
    novelty and domain, and the episodes it plays (their count, length and first map seed,
    with these defaults)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("checkpoint", help="a checkpoint saved by RLAgent.save")
    parser.add_argument("--novelty", required=True, help="a shipped novelty name or file")
    parser.add_argument("--domain", default="pogostick")
    parser.add_argument("--episodes", type=int, default=episodes)
    parser.add_argument("--max-steps", type=int, default=max_steps)
    parser.add_argument("--seed", type=int, default=seed, help="the first episode's map seed")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = probe_parser(
        "python -m nesyworld.experiments.probe",
        "How an RL checkpoint's policy acts after a novelty: entropy, the probability of the "
        "novelty's new actions, repeated refusals.", episodes=5, max_steps=100, seed=0)
    parser.add_argument("--new-actions-from", default=None, metavar="ACTION",
                        help="start new actions as this old one ('' for the old actions' "
                             "mean logit); default: what the protocol does")
    parser.add_argument("--prefix", default="", metavar="A,B,...",
                        help="actions played first in every episode, comma-separated")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    result = probe_transfer(args.checkpoint, args.novelty, args.domain, args.episodes,
                            args.max_steps, args.seed, args.new_actions_from,
                            tuple(a for a in args.prefix.split(",") if a))
    if args.json:
        print(json.dumps(asdict(result)))
        return
    for key, value in asdict(result).items():
        print(f"{key:>24}  {value:.3g}" if isinstance(value, float) else f"{key:>24}  {value}")
