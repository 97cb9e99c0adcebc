"""Executing plans: ground operators, the skills that drive env actions, the effect
monitor, and running whole episodes.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.hybrid.execution.episode import EpisodeResult, run_episode, summarize
    from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
    from nesyworld.hybrid.execution.operators import GroundOperator

_EXPORTS = {
    "EpisodeResult": "episode",
    "run_episode": "episode",
    "summarize": "episode",
    "OperatorFailure": "monitor",
    "check_effects": "monitor",
    "GroundOperator": "operators",
}
__all__ = [
    "EpisodeResult", "GroundOperator", "OperatorFailure", "check_effects", "run_episode",
    "summarize",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
