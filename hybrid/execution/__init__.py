"""Executing plans: the executor (plan, run each operator, check what changed), ground
operators, the skills that drive env actions, the effect monitor, and running whole
episodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.execution.episode import EpisodeResult, run_episode, summarize
    from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
    from nesyworld.hybrid.execution.operators import GroundOperator
    from nesyworld.hybrid.execution.plan_executor import drive, execute

__getattr__, __all__ = lazy_exports(__name__, {
    "episode": ["EpisodeResult", "run_episode", "summarize"],
    "plan_executor": ["drive", "execute"],
    "monitor": ["OperatorFailure", "check_effects"],
    "operators": ["GroundOperator"],
})
