"""Generic reinforcement learning for any Gymnasium env with a Discrete action space.

PPO (+ optional ICM curiosity) on tianshou 2, with action masking from `info["action_mask"]`,
the NovelGym paper's convergence test, checkpoints for fine-tuning, and a tianshou-free
`Policy.act(obs, mask)` handle for running a trained policy inside another program.

This package knows nothing of nesyworld's world, symbolic or hybrid layers (a test enforces
it): the hybrid layer hands it a small recovery env and uses what it returns.

Typical use::

    result = train(make_env, TrainConfig(step_budget=100_000), PPOConfig(), ICMConfig())
    if result.converged:
        save_checkpoint("op.pt", result, operator="learned_break_1")
    policy = load_checkpoint("op.pt").policy()
    action = policy.act(obs, info["action_mask"])

A native Gymnasium vector env (N copies stepped at once) replaces the single-env factory with
`train(vector_env_factory=lambda n: make_vector_env(num_envs=n), config=...)`.

The names below load on first use, so that importing this package stays cheap and its
subpackages can import each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.learning.algorithms.learner import Learner, build_learner
    from nesyworld.learning.algorithms.masking import (
        ActionMaskObservation,
        apply_action_mask,
        mask_from_info,
    )
    from nesyworld.learning.config import ICMConfig, PPOConfig, TrainConfig
    from nesyworld.learning.policy import Policy
    from nesyworld.learning.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
    from nesyworld.learning.training.convergence import ConvergenceTest
    from nesyworld.learning.training.trainer import EpochRecord, TrainResult, train
    from nesyworld.learning.training.vector_adapter import VectorEnvAdapter, VectorEnvFactory

_EXPORTS = {
    "Learner": "nesyworld.learning.algorithms.learner",
    "build_learner": "nesyworld.learning.algorithms.learner",
    "ActionMaskObservation": "nesyworld.learning.algorithms.masking",
    "apply_action_mask": "nesyworld.learning.algorithms.masking",
    "mask_from_info": "nesyworld.learning.algorithms.masking",
    "ICMConfig": "nesyworld.learning.config",
    "PPOConfig": "nesyworld.learning.config",
    "TrainConfig": "nesyworld.learning.config",
    "Policy": "nesyworld.learning.policy",
    "Checkpoint": "nesyworld.learning.training.checkpoint",
    "load_checkpoint": "nesyworld.learning.training.checkpoint",
    "save_checkpoint": "nesyworld.learning.training.checkpoint",
    "ConvergenceTest": "nesyworld.learning.training.convergence",
    "EpochRecord": "nesyworld.learning.training.trainer",
    "TrainResult": "nesyworld.learning.training.trainer",
    "train": "nesyworld.learning.training.trainer",
    "VectorEnvAdapter": "nesyworld.learning.training.vector_adapter",
    "VectorEnvFactory": "nesyworld.learning.training.vector_adapter",
}
__all__ = [
    "ActionMaskObservation", "Checkpoint", "ConvergenceTest", "EpochRecord", "ICMConfig",
    "Learner", "PPOConfig", "Policy", "TrainConfig", "TrainResult", "VectorEnvAdapter",
    "VectorEnvFactory", "apply_action_mask", "build_learner", "load_checkpoint",
    "mask_from_info", "save_checkpoint", "train",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
