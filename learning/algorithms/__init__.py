"""The learner: masked PPO on tianshou, ICM curiosity around it, their networks, and
action masking from `info["action_mask"]`.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.learning.algorithms.learner import Learner, build_learner

_EXPORTS = {
    "Learner": "learner",
    "build_learner": "learner",
}
__all__ = [
    "Learner", "build_learner",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
