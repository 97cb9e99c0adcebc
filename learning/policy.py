"""A trained policy usable without knowing tianshou: `Policy.act(obs, mask) -> int`.

This is what the hybrid executor runs, step by step, as the executor of a learned operator: it
passes the env's raw observation and `info["action_mask"]`, and gets an action index.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch

from nesyworld.learning.algorithms.masking import flatten_observation
from nesyworld.learning.algorithms.networks import MaskedActor

__all__ = ["Policy"]


class Policy:
    """Greedy or sampled action selection from a trained masked actor.

    `observation_space` is the env's raw observation space (before the training wrapper), so
    observations are flattened exactly as in training.
    """

    def __init__(
        self,
        actor: MaskedActor,
        observation_space: gym.Space,
        action_space: gym.spaces.Discrete,
        greedy: bool = True,
        seed: int | None = None,
    ) -> None:
        self.actor = actor
        self.observation_space = observation_space
        self.action_space = action_space
        self.greedy = greedy
        self._rng = np.random.default_rng(seed)

    @property
    def n_actions(self) -> int:
        return int(self.action_space.n)

    def action_probabilities(self, obs: Any, mask: Any = None) -> np.ndarray:
        """The policy's distribution over all actions; illegal actions have probability 0."""
        x = flatten_observation(self.observation_space, obs)
        m = np.ones(self.n_actions, dtype=bool) if mask is None else np.asarray(mask).astype(bool)
        if m.shape != (self.n_actions,):
            raise ValueError(f"mask has shape {m.shape}, expected ({self.n_actions},)")
        return self.batch_probabilities(x[None], m[None])[0]

    def batch_probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`action_probabilities` for k rows at once, in one forward pass: `obs` (k, d)
        already flat, `mask` (k, n) of legal actions; rows (k, n) sum to 1."""
        m = np.asarray(mask).astype(bool)
        was_training = self.actor.training
        self.actor.eval()
        try:
            with torch.no_grad():
                logits, _ = self.actor({"obs": obs, "mask": m})
                probs = torch.softmax(logits, dim=-1).cpu().numpy().astype(np.float64)
        finally:
            self.actor.train(was_training)
        # exact zeros, independent of float rounding in the softmax (rows with no legal
        # action keep the softmax's own distribution)
        probs = np.where(m | ~m.any(axis=1, keepdims=True), probs, 0.0)
        return probs / probs.sum(axis=1, keepdims=True)

    def act(
        self,
        obs: Any,
        mask: Any = None,
        greedy: bool | None = None,
        rng: np.random.Generator | None = None,
    ) -> int:
        """One action for one observation. `mask`: bool/int array of legal actions (None: all).

        `greedy` overrides the handle's default; sampling uses `rng` or the handle's own
        generator (seeded at construction, for reproducible rollouts).
        """
        probs = self.action_probabilities(obs, mask)
        if self.greedy if greedy is None else greedy:
            return int(np.argmax(probs))
        return int((rng or self._rng).choice(self.n_actions, p=probs))

    def __call__(self, obs: Any, mask: Any = None) -> int:
        return self.act(obs, mask)
