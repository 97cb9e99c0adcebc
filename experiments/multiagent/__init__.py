"""Multi-agent tasks: one learner per learning agent, trained in alternating rounds.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.experiments.multiagent.run import MultiAgentTrainConfig, train_multiagent

_EXPORTS = {
    "MultiAgentTrainConfig": "run",
    "train_multiagent": "run",
}
__all__ = [
    "MultiAgentTrainConfig", "train_multiagent",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
