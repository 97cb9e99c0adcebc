"""RL agents on noisy observations train on NesyGridEnv copies, which honour the noise,
never on the compiled vector env, whose LiDAR is exact (and which refuses noise)."""

from __future__ import annotations

from nesyworld.hybrid import RLAgent
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv


def test_noisy_observations_keep_rl_training_off_the_exact_batched_core() -> None:
    kb = KnowledgeBase.from_world("pogostick")
    assert RLAgent(NesyGridEnv("pogostick"), kb).vector_env_factory() is not None
    noisy = RLAgent(NesyGridEnv("pogostick", observation={"noise": 0.2}), kb)
    assert noisy.vector_env_factory() is None
