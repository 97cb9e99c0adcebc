"""Checkpoints: networks, optimiser states and configs of a trained agent, for fine-tuning.

A checkpoint stores each part separately (actor, critic, PPO optimiser, ICM model and optimiser,
return-scaling statistics) rather than tianshou's `Algorithm.state_dict()`, because:
  - a fine-tuning run may add or drop ICM, and then only the matching parts should be loaded;
  - with the ICM wrapper, `Algorithm.state_dict()` nests the wrapped algorithm's optimiser
    states under a key that torch's `load_state_dict` does not route back (tianshou 2.0.1
    only handles the top-level `_optimizers` key).

Files are written with `torch.save` and read with `torch.load(weights_only=True)`: tensors,
numbers, strings, lists and dicts only, with the spaces stored as plain data (space_codec.py),
so loading a crafted file cannot run code. Files of format 1 (before this change) held
pickled spaces and are refused, with the way to convert them.
"""

from __future__ import annotations

import os
import pickle
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
from nesyworld.learning.training.space_codec import (
    SpaceFormatError,
    space_from_dict,
    space_to_dict,
)

__all__ = ["Checkpoint", "CheckpointError", "load_checkpoint", "save_checkpoint"]

FORMAT_VERSION = 2
"""2: spaces as plain data, loaded with weights_only=True. 1: pickled spaces (refused)."""


class CheckpointError(ValueError):
    """A file that is not a checkpoint this version can load; the message says why."""


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
        "observation_space": space_to_dict(ckpt.observation_space),
        "action_space": space_to_dict(ckpt.action_space),
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
    """Read a checkpoint written by `save_checkpoint` (tensors are loaded on the CPU).
    Nothing in the file can run code; CheckpointError says what is wrong with one that is
    not a checkpoint of this format."""
    try:
        payload = torch.load(Path(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise CheckpointError(
            f"{path}: not a plain-data checkpoint (format {FORMAT_VERSION}); a file of format "
            "1 holds pickled spaces: load it once with an older nesyworld you trust and save "
            f"it again ({first})") from None
    except (RuntimeError, EOFError, OSError, ValueError) as err:
        raise CheckpointError(f"{path}: not a checkpoint torch can read ({type(err).__name__})"
                              ) from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: expected a mapping of checkpoint fields")
    version = payload.get("format_version")
    if version != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format {version!r}, expected "
                              f"{FORMAT_VERSION}")
    try:
        return Checkpoint(
            ppo=config_from_dict(PPOConfig, payload["ppo"]),
            icm=None if payload["icm"] is None else config_from_dict(ICMConfig,
                                                                      payload["icm"]),
            train=None if payload["train"] is None else config_from_dict(TrainConfig,
                                                                          payload["train"]),
            observation_space=space_from_dict(payload["observation_space"],
                                              f"{path}: observation_space"),
            action_space=space_from_dict(payload["action_space"], f"{path}: action_space"),
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
    except SpaceFormatError as err:
        raise CheckpointError(str(err)) from None
    except (KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{path}: a checkpoint field is missing or malformed "
                              f"({type(err).__name__}: {str(err)[:120]})") from None
