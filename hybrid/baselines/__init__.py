"""The paper's RL baselines: the agents, plan-based reward shaping, training envs on
the batched core, and carrying a policy across a change of spaces.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.hybrid.baselines.rl_agents import RLAgent, RLConfig, TransferRLAgent
    from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
    from nesyworld.hybrid.baselines.vector_envs import VectorPlanShapedReward

_EXPORTS = {
    "RLAgent": "rl_agents",
    "RLConfig": "rl_agents",
    "TransferRLAgent": "rl_agents",
    "PlanShapedReward": "shaping",
    "ShapingConfig": "shaping",
    "VectorPlanShapedReward": "vector_envs",
}
__all__ = [
    "PlanShapedReward", "RLAgent", "RLConfig", "ShapingConfig", "TransferRLAgent",
    "VectorPlanShapedReward",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
