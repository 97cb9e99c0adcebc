"""Withholding the actions that spend what a learned operator should not.

A policy learned on one map may craft, trade or place on its way items the task still needs;
the operator made from it would then promise, or silently cost, more than the failed operator
did. These helpers find the actions that can spend an item outside a set (from the knowledge
base, or from the world's own model in the oracle regime) and roll the policy out with them
withheld (hybrid/recovery/learned_operator.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from nesyworld.hybrid.boundary.world_adapter import oracle
from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, Knowledge
from nesyworld.hybrid.recovery.env import RecoveryEnv
from nesyworld.hybrid.recovery.rollouts import PolicyEpisode, PolicyFn, rollouts
from nesyworld.symbolic.derivation.derive import DerivationError, derive
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.actions.schema import INVENTORY, CountChange, Effect

__all__ = ["frugal_rollouts", "spending_actions", "spent_items", "withhold_actions",
           "withholding_mask"]


def withholding_mask(action_names: Sequence[str], withheld: Collection[str]) -> np.ndarray:
    """1 for the actions that may be taken, 0 for the withheld ones."""
    out = set(withheld)
    return np.array([n not in out for n in action_names], np.int8)


def withhold_actions(mask: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The legal actions minus the withheld ones; all the legal ones when nothing else is
    left (a policy needs some action to choose)."""
    kept = mask * keep
    return kept if kept.any() else mask


def spent_items(effects: Sequence[Effect], binding: Mapping[str, str] | None = None
                ) -> set[str]:
    """The inventory items these effects decrease."""
    b = binding or {}
    return {b.get(e.arg, e.arg) for e in effects
            if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta < 0}


def spending_actions(world: World, action_names: Sequence[str], allowed: Collection[str],
                     kb: KnowledgeBase | None = None,
                     knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> tuple[str, ...]:
    """The actions that can spend an inventory item outside `allowed` (crafting, trading,
    placing what the task still needs): by the world's own declared model in the oracle
    regime, by the knowledge base's operators in the closed one (`kb` is then required; an
    action the knowledge base does not know is not known to spend anything). Empty when the
    model cannot be derived."""
    if knowledge == "oracle":
        try:
            ops = derive(oracle(world, knowledge)).operators
        except (DerivationError, ValueError):
            return ()
    else:
        ops = [] if kb is None else [e.operator for e in kb if e.status == "active"]
    spending: set[str] = set()
    for op in ops:
        if "{" in op.action:
            continue
        if spent_items(op.effects) - set(allowed):
            spending.add(op.action)
    return tuple(n for n in action_names if n in spending)


def frugal_rollouts(env: RecoveryEnv, policy: PolicyFn, n_rollouts: int, declared: Collection[str],
            min_success_rate: float = 0.0, knowledge: Knowledge = DEFAULT_KNOWLEDGE
            ) -> tuple[list[PolicyEpisode], tuple[str, ...], float]:
    """Rollouts of the policy with the actions that can spend anything outside `declared`
    withheld: (the successful ones, the withheld actions, the success rate)."""
    withheld = spending_actions(env.world, env.action_names, declared, env.kb, knowledge)
    if not withheld:
        return [], (), 0.0
    keep = withholding_mask(env.action_names, withheld)

    def frugal(obs: np.ndarray, mask: np.ndarray) -> int:
        return policy(obs, withhold_actions(np.asarray(mask, np.int8), keep))

    wins = [r for r in rollouts(env, frugal, n_rollouts, min_success_rate) if r.success]
    return wins, withheld, len(wins) / max(1, n_rollouts)
