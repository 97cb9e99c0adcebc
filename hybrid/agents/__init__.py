"""Agents that plan: the protocol every agent follows, the random floor, the planning
agent and the hybrid agent that learns an operator when one fails.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.hybrid.agents.hybrid_agent import HybridAgent
    from nesyworld.hybrid.agents.planning_agent import (
        Agent,
        Event,
        PlanningAgent,
        PlanningConfig,
        RandomAgent,
    )

_EXPORTS = {
    "HybridAgent": "hybrid_agent",
    "Agent": "planning_agent",
    "Event": "planning_agent",
    "PlanningAgent": "planning_agent",
    "PlanningConfig": "planning_agent",
    "RandomAgent": "planning_agent",
}
__all__ = [
    "Agent", "Event", "HybridAgent", "PlanningAgent", "PlanningConfig", "RandomAgent",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
