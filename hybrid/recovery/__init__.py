"""Recovery by learning (RAPid-Learn style, see docs/ADAPTATION.md): the subproblem env
built from a failure, more start states, training, and the learned operator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.recovery.config import RecoveryConfig, RecoveryResult
    from nesyworld.hybrid.recovery.env import RecoveryEnv, RecoveryEnvConfig
    from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
    from nesyworld.hybrid.recovery.recover import Recovery

__getattr__, __all__ = lazy_exports(__name__, {
    "env": ["RecoveryEnv", "RecoveryEnvConfig"],
    "learned_operator": ["LearnedOperator"],
    "recover": ["Recovery"],
    "config": ["RecoveryConfig", "RecoveryResult"],
})
