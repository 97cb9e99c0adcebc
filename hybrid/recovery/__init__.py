"""Recovery by learning (RAPid-Learn style, see docs/RECOVERY.md): the subproblem env
built from a failure, more start states, training, and the learned operator.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.hybrid.recovery.env import RecoveryEnv, RecoveryEnvConfig
    from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
    from nesyworld.hybrid.recovery.recover import Recovery, RecoveryConfig, RecoveryOutcome

_EXPORTS = {
    "RecoveryEnv": "env",
    "RecoveryEnvConfig": "env",
    "LearnedOperator": "learned_operator",
    "Recovery": "recover",
    "RecoveryConfig": "recover",
    "RecoveryOutcome": "recover",
}
__all__ = [
    "LearnedOperator", "Recovery", "RecoveryConfig", "RecoveryEnv", "RecoveryEnvConfig",
    "RecoveryOutcome",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
