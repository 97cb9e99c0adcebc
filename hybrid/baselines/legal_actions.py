"""Which actions an RL baseline is told are legal: the world's mask, or (as in the NovelGym
paper) none at all, less the actions its config forbids.

Why a choice: our RL baselines were built to train and act with the simulator's exact
legality mask (`info["action_mask"]`). That mask carries a novelty's new preconditions into
the policy (after the axe novelty, `break` is illegal until the axe is selected), so a
pre-trained policy adapts almost for free, and its I_novelty is far below the paper's. The
paper's RL agents had a plain action space (appendix B: 28 actions, no mask): an illegal
action is taken, refused by the env, and costs its step. `RLConfig.action_masks=False` is that
baseline: training envs and acting report every action legal except the `forbidden` ones
(give_up, see `RLConfig.forbidden`), and the world refuses what it must.

A policy trained with masks never learned to act without them (with every action offered,
the pre-trained masked policy succeeded 0 of 20 times before any novelty), so a checkpoint
records which way it was trained (`CHECKPOINT_KEY`) and an agent refuses the other kind
(`check_masking`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from nesyworld.learning import Checkpoint
from nesyworld.learning.training.checkpoint import CheckpointError

CHECKPOINT_KEY = "action_masks"
"""Checkpoint metadata: whether the policy was trained with the world's masks. Checkpoints
saved before the key existed were all trained with them, so a missing key reads as True."""


def forbid(mask: Any, action_names: Sequence[str], names: Sequence[str]) -> np.ndarray:
    """`mask` with the named actions illegal, unless that would leave no legal action."""
    out = np.array(mask, dtype=bool)
    for name in names:
        if name in action_names:
            out[action_names.index(name)] = False
    return out if out.any() else np.array(mask, dtype=bool)


def offered(mask: Any, action_names: Sequence[str], forbidden: Sequence[str],
            action_masks: bool) -> np.ndarray:
    """The actions the policy may choose from: the world's `mask` (or, when `action_masks`
    is False, every action) less the `forbidden` ones."""
    base = mask if action_masks else np.ones(len(action_names), dtype=bool)
    return forbid(base, action_names, forbidden)


def trained_with_masks(ckpt: Checkpoint) -> bool:
    """Whether `ckpt`'s policy was trained with the world's masks (see `CHECKPOINT_KEY`)."""
    return bool(ckpt.metadata.get(CHECKPOINT_KEY, True))


def check_masking(ckpt: Checkpoint, action_masks: bool, where: str = "checkpoint") -> None:
    """Refuse a policy trained the other way: a CheckpointError naming `where` (the file)."""
    trained = trained_with_masks(ckpt)
    if trained != action_masks:
        how = {True: "with the world's action masks", False: "without action masks"}
        raise CheckpointError(
            f"{where}: this policy was trained {how[trained]}, but the agent acts "
            f"{how[action_masks]} (RLConfig.action_masks={action_masks}); pre-train a policy "
            "for this agent instead (a masked policy never learned to act unmasked)")


class ForbidActions(gym.Wrapper):
    """Marks named actions illegal in `info["action_mask"]`; names are looked up in the env's
    current action list, so a novelty that shifts indices cannot unmask the wrong action.
    With `action_masks=False` the world's mask is replaced by all-legal first (see the module
    docstring): only the named actions stay illegal."""

    def __init__(self, env: gym.Env, names: Sequence[str], action_masks: bool = True) -> None:
        super().__init__(env)
        self.names = tuple(names)
        self.action_masks = action_masks

    def _mask(self, info: dict[str, Any]) -> dict[str, Any]:
        if "action_mask" in info and (self.names or not self.action_masks):
            info["action_mask"] = offered(info["action_mask"],
                                          self.env.unwrapped.action_names,  # type: ignore[attr-defined]
                                          self.names, self.action_masks)
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._mask(info)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._mask(info)


__all__ = ["CHECKPOINT_KEY", "ForbidActions", "check_masking", "forbid", "offered",
           "trained_with_masks"]
