"""The paper's RL baselines: the agents, plan-based reward shaping, training envs and
evaluation episodes on the batched core, carrying a policy across a change of spaces, and
which actions they are told are legal (the world's masks, or none as in the paper).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.baselines.batched_episodes import (
        evaluate_policy,
        play_batched,
        policy_actions,
        steady_world,
    )
    from nesyworld.hybrid.baselines.legal_actions import ForbidActions
    from nesyworld.hybrid.baselines.rl_agents import RLAgent, TransferRLAgent
    from nesyworld.hybrid.baselines.rl_config import RLConfig
    from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
    from nesyworld.hybrid.baselines.vector_envs import VectorPlanShapedReward

__getattr__, __all__ = lazy_exports(__name__, {
    "batched_episodes": ["evaluate_policy", "play_batched", "policy_actions", "steady_world"],
    "legal_actions": ["ForbidActions"],
    "rl_agents": ["RLAgent", "TransferRLAgent"],
    "rl_config": ["RLConfig"],
    "shaping": ["PlanShapedReward", "ShapingConfig"],
    "vector_envs": ["VectorPlanShapedReward"],
})
