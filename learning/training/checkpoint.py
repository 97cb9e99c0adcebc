"""Checkpoints: networks, optimiser states and configs of a trained agent, for fine-tuning.

A checkpoint stores each part separately (actor, critic, PPO optimiser, ICM model and optimiser,
return-scaling statistics) rather than tianshou's `Algorithm.state_dict()`, because:
  - a fine-tuning run may add or drop ICM, and then only the matching parts should be loaded;
  - with the ICM wrapper, `Algorithm.state_dict()` nests the wrapped algorithm's optimiser
    states under a key that torch's `load_state_dict` does not route back (tianshou 2.0.1
    only handles the top-level `_optimizers` key).

Files are written with `torch.save` and read with `torch.load(weights_only=False)` because they
hold gymnasium spaces (to flatten observations exactly as in training): load only checkpoints
you (or this project) wrote.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym
import torch

from nesyworld.learning.algorithms.networks import MaskedActor
from nesyworld.learning.config import (
    ICMConfig,
    PPOConfig,
    TrainConfig,
    config_from_dict,
    config_to_dict,
)
from nesyworld.learning.policy import Policy

__all__ = ["Checkpoint", "load_checkpoint", "save_checkpoint"]

FORMAT_VERSION = 1


@dataclass
class Checkpoint:
    """Everything needed to run the policy or to continue training it."""

    ppo: PPOConfig
    icm: ICMConfig | None
    train: TrainConfig | None
    observation_space: gym.Space
    """The env's raw observation space (before the training wrapper)."""
    action_space: gym.spaces.Discrete
    obs_dim: int
    actor_state: dict[str, torch.Tensor]
    critic_state: dict[str, torch.Tensor]
    ppo_optim_state: dict[str, Any] | None = None
    icm_state: dict[str, torch.Tensor] | None = None
    icm_optim_state: dict[str, Any] | None = None
    return_stats: dict[str, Any] | None = None
    """tianshou's running return statistics (mean, var, count) used by return scaling."""
    env_steps: int = 0
    """Training env steps behind these weights, summed over this run and the runs it continued."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Free-form provenance (e.g. which failure and novelty a learned operator came from)."""

    def actor(self) -> MaskedActor:
        """A fresh actor network with the stored weights."""
        actor = MaskedActor(self.obs_dim, int(self.action_space.n), self.ppo.hidden_sizes)
        actor.load_state_dict(self.actor_state)
        actor.eval()
        return actor

    def policy(self, greedy: bool = True, seed: int | None = None) -> Policy:
        """The stored policy as a `Policy` handle (no tianshou needed to use it)."""
        return Policy(self.actor(), self.observation_space, self.action_space, greedy, seed)


class _HasCheckpoint(Protocol):
    def checkpoint(self, **metadata: Any) -> Checkpoint: ...


def save_checkpoint(
    path: str | os.PathLike[str], source: Checkpoint | _HasCheckpoint, **metadata: Any
) -> Path:
    """Write `source` (a Checkpoint, or e.g. a TrainResult) to `path`; returns the path.

    Extra keyword arguments are merged into the checkpoint's metadata.
    """
    ckpt = source if isinstance(source, Checkpoint) else source.checkpoint()
    payload = {
        "format_version": FORMAT_VERSION,
        "ppo": config_to_dict(ckpt.ppo),
        "icm": None if ckpt.icm is None else config_to_dict(ckpt.icm),
        "train": None if ckpt.train is None else config_to_dict(ckpt.train),
        "observation_space": ckpt.observation_space,
        "action_space": ckpt.action_space,
        "obs_dim": ckpt.obs_dim,
        "actor_state": ckpt.actor_state,
        "critic_state": ckpt.critic_state,
        "ppo_optim_state": ckpt.ppo_optim_state,
        "icm_state": ckpt.icm_state,
        "icm_optim_state": ckpt.icm_optim_state,
        "return_stats": ckpt.return_stats,
        "env_steps": ckpt.env_steps,
        "metadata": {**ckpt.metadata, **metadata},
    }
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, out)  # atomic: a crash never leaves a half-written checkpoint
    return out


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint written by `save_checkpoint` (tensors are loaded on the CPU)."""
    payload = torch.load(Path(path), map_location="cpu", weights_only=False)
    version = payload.get("format_version")
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: checkpoint format {version!r}, expected {FORMAT_VERSION}")
    return Checkpoint(
        ppo=config_from_dict(PPOConfig, payload["ppo"]),
        icm=None if payload["icm"] is None else config_from_dict(ICMConfig, payload["icm"]),
        train=None if payload["train"] is None else config_from_dict(TrainConfig, payload["train"]),
        observation_space=payload["observation_space"],
        action_space=payload["action_space"],
        obs_dim=int(payload["obs_dim"]),
        actor_state=payload["actor_state"],
        critic_state=payload["critic_state"],
        ppo_optim_state=payload["ppo_optim_state"],
        icm_state=payload["icm_state"],
        icm_optim_state=payload["icm_optim_state"],
        return_stats=payload["return_stats"],
        env_steps=int(payload["env_steps"]),
        metadata=dict(payload["metadata"]),
    )
