"""Agents that plan: the protocol every agent follows, the random floor, the planning
agent and the hybrid agent that learns an operator when one fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.agents.hybrid_agent import HybridAgent
    from nesyworld.hybrid.agents.planning_agent import (
        Agent,
        Event,
        PlanningAgent,
        PlanningConfig,
        RandomAgent,
    )

__getattr__, __all__ = lazy_exports(__name__, {
    "hybrid_agent": ["HybridAgent"],
    "planning_agent": ["Agent", "Event", "PlanningAgent", "PlanningConfig", "RandomAgent"],
})
