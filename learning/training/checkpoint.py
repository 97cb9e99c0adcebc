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

import dataclasses
import math
import os
import pickle
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym
import torch

from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
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

    def critic(self) -> ValueCritic:
        """A fresh critic network with the stored weights (its values are in the learner's
        units: returns times `PPOConfig.reward_scale`)."""
        critic = ValueCritic(self.obs_dim, self.ppo.critic_sizes)
        critic.load_state_dict(self.critic_state)
        critic.eval()
        return critic

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


MAX_BYTES = 2**30
"""Policies here are small MLPs (a few MB); a file beyond this is not one of them."""
MAX_OBS_DIM = 10**7
MAX_ACTIONS = 100_000
MAX_LAYERS = 16
MAX_WIDTH = 65_536
FIELDS = ("format_version", "ppo", "icm", "train", "observation_space", "action_space",
          "obs_dim", "actor_state", "critic_state", "ppo_optim_state", "icm_state",
          "icm_optim_state", "return_stats", "env_steps", "metadata")


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint written by `save_checkpoint` (tensors are loaded on the CPU).

    Nothing in the file can run code, and every field is checked (configs, spaces, the
    networks' tensors against the shapes the configs imply) so that a damaged or edited
    file is one CheckpointError naming the file and the field, never a torch error later."""
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as err:
        raise CheckpointError(f"{path}: cannot read the file ({err.strerror}); expected a "
                              "checkpoint file from save_checkpoint") from None
    if not file.is_file() or size > MAX_BYTES:
        raise CheckpointError(f"{path}: not a file of at most {MAX_BYTES} bytes; expected a "
                              "checkpoint file from save_checkpoint")
    try:
        payload = torch.load(file, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        first = " ".join(str(err).split())[:80]
        raise CheckpointError(
            f"{path}: not a plain-data checkpoint (format {FORMAT_VERSION}); a file of format "
            "1 holds pickled spaces: load it once with an older nesyworld you trust and save "
            f"it again ({first})") from None
    except Exception as err:  # torch's reader of a damaged zip or pickle raises
        # RuntimeError, EOFError, zipfile.BadZipFile, KeyError, struct.error... and
        # nothing but the file can cause them
        raise CheckpointError(f"{path}: not a checkpoint torch can read "
                              f"({type(err).__name__}); expected a file from "
                              "save_checkpoint") from None
    return _checked(payload, str(path))


def _checked(payload: Any, path: str) -> Checkpoint:
    def fail(where: str, expected: str) -> CheckpointError:
        return CheckpointError(f"{path}: {where} is malformed; expected {expected}")

    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: expected a mapping of checkpoint fields")
    version = payload.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format {str(version)[:20]!r}, expected "
                              f"{FORMAT_VERSION}")
    for key in FIELDS:
        if key not in payload:
            raise CheckpointError(f"{path}: the field '{key}' is missing; a checkpoint field "
                                  "is missing or malformed")
    unknown = sorted(str(k)[:40] for k in payload if k not in FIELDS)
    if unknown:
        raise fail(f"field '{unknown[0]}'", "only " + ", ".join(FIELDS))
    try:
        ppo = _config(PPOConfig, payload["ppo"], "ppo", fail)
        icm = None if payload["icm"] is None else _config(ICMConfig, payload["icm"], "icm", fail)
        train = None if payload["train"] is None else _config(TrainConfig, payload["train"],
                                                              "train", fail)
        observation_space = space_from_dict(payload["observation_space"],
                                            f"{path}: observation_space")
        action_space = space_from_dict(payload["action_space"], f"{path}: action_space")
    except SpaceFormatError as err:
        raise CheckpointError(" ".join(str(err).split())[:300]) from None
    if not isinstance(action_space, gym.spaces.Discrete) or not 1 <= int(
            action_space.n) <= MAX_ACTIONS:
        raise fail("action_space", f"a discrete space of 1 to {MAX_ACTIONS} actions")
    obs_dim = payload["obs_dim"]
    if type(obs_dim) is not int or not 1 <= obs_dim <= MAX_OBS_DIM:
        raise fail("obs_dim", f"an integer from 1 to {MAX_OBS_DIM}")
    for name, sizes in (("hidden_sizes", ppo.hidden_sizes), ("critic_hidden_sizes",
                                                             ppo.critic_sizes)):
        if (not isinstance(sizes, tuple) or not 1 <= len(sizes) <= MAX_LAYERS
                or any(type(n) is not int or not 1 <= n <= MAX_WIDTH for n in sizes)):
            raise fail(f"ppo.{name}", f"1 to {MAX_LAYERS} layer widths from 1 to {MAX_WIDTH}")
    with torch.device("meta"):  # shapes only: no memory, whatever the sizes
        actor = MaskedActor(obs_dim, int(action_space.n), ppo.hidden_sizes)
        critic = ValueCritic(obs_dim, ppo.critic_sizes)
    _weights(payload["actor_state"], actor.state_dict(), "actor_state", fail)
    _weights(payload["critic_state"], critic.state_dict(), "critic_state", fail)
    if payload["icm_state"] is not None:
        _weights(payload["icm_state"], None, "icm_state", fail)
    for key in ("ppo_optim_state", "icm_optim_state"):
        if payload[key] is not None:
            _optimiser(payload[key], key, fail)
    stats = payload["return_stats"]
    if stats is not None and not _return_stats(stats):
        raise fail("return_stats", "mean, var (finite numbers) and count (an integer >= 0)")
    env_steps = payload["env_steps"]
    if type(env_steps) is not int or env_steps < 0:
        raise fail("env_steps", "an integer >= 0")
    if not isinstance(payload["metadata"], dict):
        raise fail("metadata", "a mapping")
    return Checkpoint(
        ppo=ppo, icm=icm, train=train, observation_space=observation_space,
        action_space=action_space, obs_dim=obs_dim, actor_state=payload["actor_state"],
        critic_state=payload["critic_state"], ppo_optim_state=payload["ppo_optim_state"],
        icm_state=payload["icm_state"], icm_optim_state=payload["icm_optim_state"],
        return_stats=stats, env_steps=env_steps, metadata=dict(payload["metadata"]))


def _config(cls: type[Any], data: Any, where: str, fail: Any) -> Any:
    """A stored config, each known field of the type its default has (unknown keys are
    dropped, as config_from_dict does: a newer version may have added fields)."""
    if not isinstance(data, dict):
        raise fail(where, f"a mapping of {cls.__name__} fields")
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name not in data or f.default is dataclasses.MISSING:
            continue
        value, default = data[f.name], f.default
        if value is None and type(None) in typing.get_args(hints[f.name]):
            continue  # a field that may be None (PPOConfig.max_grad_norm: no clip)
        if isinstance(default, bool):
            ok = type(value) is bool
        elif isinstance(default, int):
            ok = type(value) is int
        elif isinstance(default, float):
            ok = type(value) in (int, float) and math.isfinite(value)
        elif isinstance(default, str):
            ok = isinstance(value, str) and len(value) <= 1000
        elif isinstance(default, tuple) or any(typing.get_origin(k) is tuple
                                               for k in typing.get_args(hints[f.name])):
            ok = isinstance(value, (list, tuple)) and len(value) <= 1000 and all(
                type(v) in (int, float, str, bool) for v in value)
        else:
            ok = value is None or type(value) in (int, float, str, bool)
        if not ok:
            raise fail(f"{where}.{f.name}", f"a value like {default!r}")
    try:
        return config_from_dict(cls, data)
    except (TypeError, ValueError) as err:
        raise fail(where, f"{cls.__name__} fields ({type(err).__name__})") from None


def _weights(state: Any, like: dict[str, torch.Tensor] | None, where: str, fail: Any) -> None:
    """Named float tensors, finite; with `like`, exactly its names and shapes."""
    if not isinstance(state, dict) or len(state) > 10_000:
        raise fail(where, "a mapping of parameter names to tensors")
    if like is not None and set(state) != set(like):
        raise fail(where, "the parameters of the network the configs describe")
    for name, tensor in state.items():
        if not isinstance(name, str) or not isinstance(tensor, torch.Tensor):
            raise fail(where, "a mapping of parameter names to tensors")
        if like is not None and tuple(tensor.shape) != tuple(like[name].shape):
            raise fail(f"{where}.{name}", f"shape {tuple(like[name].shape)}")
        if not tensor.is_floating_point() or not bool(torch.isfinite(tensor).all()):
            raise fail(f"{where}.{name}", "finite floating-point weights")


def _optimiser(state: Any, where: str, fail: Any) -> None:
    """The layout torch's `Optimizer.state_dict()` writes, with finite tensors."""
    if not isinstance(state, dict) or set(state) != {"state", "param_groups"}:
        raise fail(where, "an optimiser state (state, param_groups)")
    groups = state["param_groups"]
    if not isinstance(groups, list) or not groups or any(
            not isinstance(g, dict) or not isinstance(g.get("params"), list)
            or any(type(i) is not int for i in g["params"]) for g in groups):
        raise fail(f"{where}.param_groups", "groups with their parameter indices")
    ids = {i for g in groups for i in g["params"]}
    moments = state["state"]
    if not isinstance(moments, dict) or any(k not in ids or not isinstance(v, dict)
                                            for k, v in moments.items()):
        raise fail(f"{where}.state", "per-parameter moments of the listed parameters")
    for values in moments.values():
        for v in values.values():
            if not isinstance(v, torch.Tensor) or not bool(torch.isfinite(v).all()):
                raise fail(f"{where}.state", "finite tensors")


def _return_stats(stats: Any) -> bool:
    if not isinstance(stats, dict) or set(stats) != {"mean", "var", "count"}:
        return False
    numbers = [stats["mean"], stats["var"]]
    flat = [v for n in numbers for v in (n if isinstance(n, list) else [n])]
    return (len(flat) <= 10_000 and all(type(v) in (int, float) and math.isfinite(v)
                                        for v in flat)
            and type(stats["count"]) is int and stats["count"] >= 0)
