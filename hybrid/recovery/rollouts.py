"""A learned policy's episodes in the recovery env, each with its abstract start and end.

What a learned operator promises is read off these (hybrid/recovery/learned_operator.py),
and so are the trials of a repair (hybrid/repair/trials.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nesyworld.hybrid.recovery.env import RecoveryEnv
from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract

__all__ = ["PolicyEpisode", "PolicyFn", "rollout", "rollouts"]

PolicyFn = Callable[[np.ndarray, np.ndarray], int]
"""obs, mask -> index into the recovery env's actions (learning's Policy.act)."""


@dataclass(frozen=True)
class PolicyEpisode:
    """One episode of the policy in the recovery env, with its abstract start and end."""

    success: bool
    steps: int
    start: SymbolicState
    end: SymbolicState
    actions: tuple[str, ...]


def rollout(env: RecoveryEnv, policy: PolicyFn) -> PolicyEpisode:
    """Run the policy for one episode from the failure snapshot."""
    obs, info = env.reset()
    start = env.abstract_state
    actions: list[str] = []
    success = False
    while True:
        index = int(policy(obs, info["action_mask"]))
        actions.append(env.action_names[index])
        obs, _, terminated, truncated, info = env.step(index)
        if terminated or truncated:
            success = bool(info["success"])
            break
    return PolicyEpisode(success, len(actions), start, abstract(env.world), tuple(actions))


def rollouts(env: RecoveryEnv, policy: PolicyFn, n: int, min_success_rate: float
              ) -> list[PolicyEpisode]:
    """Up to `n` rollouts, stopping as soon as so many have failed that the success rate
    can no longer reach `min_success_rate` (the verdict is then known, and each failed
    rollout costs the whole horizon)."""
    allowed = n - math.ceil(min_success_rate * n - 1e-9)
    out: list[PolicyEpisode] = []
    for _ in range(n):
        out.append(rollout(env, policy))
        if min_success_rate > 0 and sum(not r.success for r in out) > allowed:
            break
    return out
