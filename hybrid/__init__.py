"""nesyworld.hybrid: where plans meet the world. Plan executor with execution monitoring,
skills, agents, and recovery (the hybrid agent): model repair first, learning when no
repair verifies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.adapters.hosts import host_for, register_host
    from nesyworld.hybrid.agents.hybrid_agent import HybridAgent, hybrid_configs
    from nesyworld.hybrid.agents.names import HYBRID_AGENTS
    from nesyworld.hybrid.agents.planning_agent import (
        AgentEvent,
        PlanningAgent,
        PlanningConfig,
        RandomAgent,
    )
    from nesyworld.hybrid.agents.protocol import Agent
    from nesyworld.hybrid.baselines.rl_agents import RLAgent, TransferRLAgent
    from nesyworld.hybrid.baselines.rl_config import RLConfig
    from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
    from nesyworld.hybrid.baselines.vector_envs import VectorPlanShapedReward
    from nesyworld.hybrid.boundary.interface import Environment, Host, OracleRefused, Outcome
    from nesyworld.hybrid.boundary.world_adapter import WorldAdapter
    from nesyworld.hybrid.execution.episode import EpisodeResult, run_episode, summarize
    from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
    from nesyworld.hybrid.execution.operators import GroundOperator
    from nesyworld.hybrid.recording.reader import RecordingError, read_recording
    from nesyworld.hybrid.recording.writer import EpisodeRecorder, EpisodeRecording
    from nesyworld.hybrid.recovery.config import RecoveryConfig, RecoveryResult
    from nesyworld.hybrid.recovery.env import RecoveryEnv, RecoveryEnvConfig
    from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
    from nesyworld.hybrid.recovery.recover import Recovery
    from nesyworld.hybrid.repair.repairer import ModelRepair, RepairConfig, RepairResult

__getattr__, __all__ = lazy_exports(__name__, {
    "agents.hybrid_agent": ["HybridAgent", "hybrid_configs"],
    "agents.names": ["HYBRID_AGENTS"],
    "agents.planning_agent": ["AgentEvent", "PlanningAgent", "PlanningConfig", "RandomAgent"],
    "agents.protocol": ["Agent"],
    "baselines.rl_agents": ["RLAgent", "TransferRLAgent"],
    "baselines.rl_config": ["RLConfig"],
    "baselines.shaping": ["PlanShapedReward", "ShapingConfig"],
    "baselines.vector_envs": ["VectorPlanShapedReward"],
    "adapters.hosts": ["host_for", "register_host"],
    "boundary.interface": ["Environment", "Host", "OracleRefused", "Outcome"],
    "boundary.world_adapter": ["WorldAdapter"],
    "execution.episode": ["EpisodeResult", "run_episode", "summarize"],
    "execution.monitor": ["OperatorFailure", "check_effects"],
    "execution.operators": ["GroundOperator"],
    "recording.reader": ["RecordingError", "read_recording"],
    "recording.writer": ["EpisodeRecorder", "EpisodeRecording"],
    "recovery.env": ["RecoveryEnv", "RecoveryEnvConfig"],
    "recovery.learned_operator": ["LearnedOperator"],
    "recovery.recover": ["Recovery"],
    "recovery.config": ["RecoveryConfig", "RecoveryResult"],
    "repair.repairer": ["ModelRepair", "RepairConfig", "RepairResult"],
})
