"""nesyworld.hybrid: where plans meet the world. Plan executor with execution monitoring,
skills, agents, and recovery by learning (the hybrid agent).

The names below load on first use, so that importing this package stays cheap and its
subpackages can import each other without cycles through this file.
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
    from nesyworld.hybrid.baselines.rl_agents import RLAgent, RLConfig, TransferRLAgent
    from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
    from nesyworld.hybrid.baselines.vector_envs import VectorPlanShapedReward
    from nesyworld.hybrid.execution.episode import EpisodeResult, run_episode, summarize
    from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
    from nesyworld.hybrid.execution.operators import GroundOperator
    from nesyworld.hybrid.recording.reader import RecordingError, read_recording
    from nesyworld.hybrid.recording.writer import EpisodeRecorder, EpisodeRecording
    from nesyworld.hybrid.recovery.env import RecoveryEnv, RecoveryEnvConfig
    from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
    from nesyworld.hybrid.recovery.recover import Recovery, RecoveryConfig, RecoveryOutcome

_EXPORTS = {
    "HybridAgent": "nesyworld.hybrid.agents.hybrid_agent",
    "Agent": "nesyworld.hybrid.agents.planning_agent",
    "Event": "nesyworld.hybrid.agents.planning_agent",
    "PlanningAgent": "nesyworld.hybrid.agents.planning_agent",
    "PlanningConfig": "nesyworld.hybrid.agents.planning_agent",
    "RandomAgent": "nesyworld.hybrid.agents.planning_agent",
    "RLAgent": "nesyworld.hybrid.baselines.rl_agents",
    "RLConfig": "nesyworld.hybrid.baselines.rl_agents",
    "TransferRLAgent": "nesyworld.hybrid.baselines.rl_agents",
    "PlanShapedReward": "nesyworld.hybrid.baselines.shaping",
    "ShapingConfig": "nesyworld.hybrid.baselines.shaping",
    "VectorPlanShapedReward": "nesyworld.hybrid.baselines.vector_envs",
    "EpisodeResult": "nesyworld.hybrid.execution.episode",
    "run_episode": "nesyworld.hybrid.execution.episode",
    "summarize": "nesyworld.hybrid.execution.episode",
    "OperatorFailure": "nesyworld.hybrid.execution.monitor",
    "check_effects": "nesyworld.hybrid.execution.monitor",
    "GroundOperator": "nesyworld.hybrid.execution.operators",
    "RecordingError": "nesyworld.hybrid.recording.reader",
    "read_recording": "nesyworld.hybrid.recording.reader",
    "EpisodeRecorder": "nesyworld.hybrid.recording.writer",
    "EpisodeRecording": "nesyworld.hybrid.recording.writer",
    "RecoveryEnv": "nesyworld.hybrid.recovery.env",
    "RecoveryEnvConfig": "nesyworld.hybrid.recovery.env",
    "LearnedOperator": "nesyworld.hybrid.recovery.learned_operator",
    "Recovery": "nesyworld.hybrid.recovery.recover",
    "RecoveryConfig": "nesyworld.hybrid.recovery.recover",
    "RecoveryOutcome": "nesyworld.hybrid.recovery.recover",
}
__all__ = [
    "Agent", "EpisodeRecorder", "EpisodeRecording", "EpisodeResult", "Event", "GroundOperator",
    "HybridAgent", "LearnedOperator", "OperatorFailure", "PlanShapedReward", "PlanningAgent",
    "PlanningConfig", "RLAgent", "RLConfig", "RandomAgent", "RecordingError", "Recovery",
    "RecoveryConfig", "RecoveryEnv", "RecoveryEnvConfig", "RecoveryOutcome", "ShapingConfig",
    "TransferRLAgent", "VectorPlanShapedReward", "check_effects", "read_recording",
    "run_episode", "summarize",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
