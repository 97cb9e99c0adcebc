"""Agents that plan: the protocol every agent follows, the random floor, the planning
agent and the hybrid agent that learns an operator when one fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.agents.hybrid_agent import HybridAgent
    from nesyworld.hybrid.agents.planning_agent import (
        AgentEvent,
        PlanningAgent,
        PlanningConfig,
        RandomAgent,
    )
    from nesyworld.hybrid.agents.protocol import Agent

__getattr__, __all__ = lazy_exports(__name__, {
    "hybrid_agent": ["HybridAgent"],
    "planning_agent": ["AgentEvent", "PlanningAgent", "PlanningConfig", "RandomAgent"],
    "protocol": ["Agent"],
})
