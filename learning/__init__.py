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
"""

from nesyworld.learning.algorithms.masking import (
    ActionMaskObservation,
    apply_action_mask,
    mask_from_info,
)
from nesyworld.learning.config import ICMConfig, PPOConfig, TrainConfig
from nesyworld.learning.policy import Policy
from nesyworld.learning.training import (
    Checkpoint,
    ConvergenceTest,
    EpochRecord,
    Learner,
    TrainResult,
    VectorEnvAdapter,
    VectorEnvFactory,
    build_learner,
    load_checkpoint,
    save_checkpoint,
    train,
)

__all__ = [
    "ActionMaskObservation", "Checkpoint", "ConvergenceTest", "EpochRecord", "ICMConfig",
    "Learner", "PPOConfig", "Policy", "TrainConfig", "TrainResult", "VectorEnvAdapter",
    "VectorEnvFactory", "apply_action_mask", "build_learner", "load_checkpoint",
    "mask_from_info", "save_checkpoint", "train",
]
