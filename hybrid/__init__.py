"""nesyworld.hybrid: where plans meet the world. Plan executor with execution monitoring,
skills, agents, and recovery by learning (the hybrid agent)."""

from nesyworld.hybrid.agents import Agent, Event, PlanningAgent, PlanningConfig, RandomAgent
from nesyworld.hybrid.hybrid_agent import HybridAgent
from nesyworld.hybrid.learned_operator import LearnedOperator
from nesyworld.hybrid.monitor import OperatorFailure, check_effects
from nesyworld.hybrid.operators import GroundOperator
from nesyworld.hybrid.recording import EpisodeRecorder, EpisodeRecording
from nesyworld.hybrid.recording_reader import RecordingError, read_recording
from nesyworld.hybrid.recovery import Recovery, RecoveryOutcome, RecoverySettings
from nesyworld.hybrid.recovery_env import RecoveryConfig, RecoveryEnv
from nesyworld.hybrid.rl_agents import RLAgent, RLConfig, TransferRLAgent
from nesyworld.hybrid.runner import EpisodeResult, run_episode, summarize
from nesyworld.hybrid.shaping import PlanShapedReward, ShapingConfig
from nesyworld.hybrid.vector_training import VectorPlanShapedReward

__all__ = [
    "Agent",
    "EpisodeRecorder",
    "EpisodeRecording",
    "EpisodeResult",
    "Event",
    "GroundOperator",
    "HybridAgent",
    "LearnedOperator",
    "OperatorFailure",
    "PlanShapedReward",
    "PlanningAgent",
    "PlanningConfig",
    "RLAgent",
    "RLConfig",
    "RandomAgent",
    "RecordingError",
    "Recovery",
    "RecoveryConfig",
    "RecoveryEnv",
    "RecoveryOutcome",
    "RecoverySettings",
    "ShapingConfig",
    "TransferRLAgent",
    "VectorPlanShapedReward",
    "check_effects",
    "read_recording",
    "run_episode",
    "summarize",
]
