"""nesyworld.hybrid: where plans meet the world. Plan executor with execution monitoring,
skills, agents, and (soon) learned recovery."""

from nesyworld.hybrid.agents import Agent, Event, PlanningAgent, PlanningConfig, RandomAgent
from nesyworld.hybrid.monitor import OperatorFailure, check_effects
from nesyworld.hybrid.operators import GroundOperator
from nesyworld.hybrid.runner import EpisodeResult, run_episode, summarize

__all__ = [
    "Agent",
    "EpisodeResult",
    "Event",
    "GroundOperator",
    "OperatorFailure",
    "PlanningAgent",
    "PlanningConfig",
    "RandomAgent",
    "check_effects",
    "run_episode",
    "summarize",
]
