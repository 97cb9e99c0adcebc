"""Action masking: move the env's `info["action_mask"]` into the observation, and mask logits.

Why the mask goes into the observation and not stay in `info`: tianshou's Collector stores, with
each transition (obs, act, obs_next), the `info` returned by the step, i.e. the info of
`obs_next`. The mask that constrained `act` belongs to `obs`, so a mask read from the stored
info during the PPO update would be one step late. Putting it into a Dict observation
{"obs": ..., "mask": ...} keeps it attached to the state it belongs to, for `obs` and `obs_next`
alike, through vector envs (the collector stacks Dict observations into a tianshou Batch with
fields `obs` and `mask`, the convention tianshou's own DQN uses for masks) and through the buffer.

The wrapper also reduces `info` to one boolean, `success`: the buffer stacks infos across
steps and envs, and an env whose info keys or value shapes vary (strings, nested dicts, keys
present only at episode end) would break that.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import torch
from gymnasium.spaces.utils import flatten, flatten_space

__all__ = [
    "MASKED_LOGIT",
    "SUCCESS_INFO_KEY",
    "ActionMaskObservation",
    "apply_action_mask",
    "flatten_observation",
    "illegal_action_rows",
    "illegal_actions",
    "mask_from_info",
    "mask_observation",
    "masked_observation_space",
]

MASKED_LOGIT = -1e8
"""Logit given to illegal actions: exp(-1e8) is exactly 0 in float32, so their probability is 0
and they are never sampled, while a finite value keeps gradients and entropy free of NaNs."""

SUCCESS_INFO_KEY = "success"
"""Key of the success flag in the wrapper's sanitised info (whatever the env calls it)."""


def flatten_observation(space: gym.Space, obs: Any) -> np.ndarray:
    """Flatten an observation of `space` to the float32 vector the networks take.

    Shared by the training wrapper and `Policy.act`, so a policy run outside training sees
    exactly the encoding it was trained on (Discrete becomes one-hot, Dict is concatenated).
    """
    return np.asarray(flatten(space, obs), dtype=np.float32)


def mask_from_info(
    info: dict[str, Any], n_actions: int, mask_key: str = "action_mask"
) -> np.ndarray:
    """The legal-action mask from an env info dict (all legal if the env gives none).

    Accepts bool or int arrays (PettingZoo's int8 convention); a wrong length is an error because
    a silently misaligned mask would let illegal actions through.
    """
    raw = info.get(mask_key)
    if raw is None:
        return np.ones(n_actions, dtype=bool)
    mask = np.asarray(raw).astype(bool).reshape(-1)
    if mask.shape != (n_actions,):
        raise ValueError(f"info[{mask_key!r}] has shape {mask.shape}, expected ({n_actions},)")
    return mask


def masked_observation_space(raw_space: gym.Space, n_actions: int) -> gym.spaces.Dict:
    """The Dict space of the observations `mask_observation` makes from `raw_space`."""
    flat = flatten_space(raw_space)
    return gym.spaces.Dict(
        {
            "obs": gym.spaces.Box(-np.inf, np.inf, shape=flat.shape, dtype=np.float32),
            "mask": gym.spaces.MultiBinary(n_actions),
        }
    )


def mask_observation(
    raw_space: gym.Space,
    obs: Any,
    info: dict[str, Any],
    n_actions: int,
    success_key: str = "success",
    mask_key: str = "action_mask",
) -> tuple[dict[str, np.ndarray], dict[str, bool]]:
    """One env's (observation, info) in the form the agent trains on: the Dict observation
    {"obs", "mask"} and the info reduced to {SUCCESS_INFO_KEY: bool}.

    A function rather than wrapper code so that the single-env wrapper and the adapter of
    gymnasium vector envs (vector_adapter.py) give the policy exactly the same encoding.
    """
    mask = mask_from_info(info, n_actions, mask_key)
    wrapped = {"obs": flatten_observation(raw_space, obs), "mask": mask.astype(np.int8)}
    return wrapped, {SUCCESS_INFO_KEY: bool(info.get(success_key, False))}


def apply_action_mask(logits: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """Set the logits of illegal actions to MASKED_LOGIT (probability exactly 0).

    A row with no legal action at all is left unmasked (the env is then inconsistent; failing
    loudly inside a vectorised rollout would lose the whole run, and the env will reject the
    action anyway).
    """
    if mask is None:
        return logits
    return logits.masked_fill(illegal_actions(mask.to(device=logits.device), logits.shape),
                              MASKED_LOGIT)


def illegal_actions(mask: torch.Tensor, shape: torch.Size | tuple[int, ...]) -> torch.Tensor:
    """The actions `apply_action_mask` masks out (True) of a legal-action `mask` of `shape`:
    the illegal ones, except in a row with no legal action at all."""
    legal = mask.bool().reshape(shape)
    return ~(legal | ~legal.any(dim=-1, keepdim=True))


def illegal_action_rows(mask: np.ndarray) -> np.ndarray:
    """`illegal_actions` of (B, A) legal-action rows as a numpy array, for the rollout, which
    holds its masks as arrays (numpy does it in a fraction of torch's per-call cost)."""
    legal = mask.astype(bool, copy=False)
    return ~(legal | ~legal.any(axis=-1, keepdims=True))


class ActionMaskObservation(gym.Wrapper):
    """Dict observation {"obs": flat float32 vector, "mask": int8 legal-action mask}.

    The mask comes from `info[mask_key]` of `reset` and `step` (all legal if absent). The info
    is reduced to {"success": bool(info[success_key])}; see the module docstring for why.
    """

    def __init__(
        self,
        env: gym.Env,
        success_key: str = "success",
        mask_key: str = "action_mask",
    ) -> None:
        super().__init__(env)
        if not isinstance(env.action_space, gym.spaces.Discrete):
            raise TypeError(
                f"nesyworld.learning needs a Discrete action space, got {env.action_space}"
            )
        self.raw_observation_space: gym.Space = env.observation_space
        self.success_key = success_key
        self.mask_key = mask_key
        self.n_actions = int(env.action_space.n)
        self.observation_space = masked_observation_space(env.observation_space, self.n_actions)

    def _wrap(self, obs: Any, info: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict]:
        return mask_observation(
            self.raw_observation_space, obs, info, self.n_actions, self.success_key, self.mask_key
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, info)

    def step(
        self, action: Any
    ) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        wrapped, small_info = self._wrap(obs, info)
        return wrapped, reward, terminated, truncated, small_info
