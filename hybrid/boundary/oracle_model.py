"""The oracle regime's reads of the post-novelty world's own model (hybrid/knowledge/regime.py).

A labelled baseline may judge dead ends and learned operators by what the changed world
declares; a closed-regime agent never calls these (the boundary test,
tests/hybrid/test_boundary.py, checks that everything else reaches the world's model only
through `WorldAdapter.oracle` and its `oracle_*` reads, which refuse outside this regime).
"""

from __future__ import annotations

from typing import Any

from nesyworld.hybrid.knowledge.relaxation import relaxed_closure, spawn_rules
from nesyworld.symbolic.derivation.derive import DerivationError, derive
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World
from nesyworld.world.actions.schema import INVENTORY
from nesyworld.world.spec.model import WorldSpec


def goal_reachable(spec: WorldSpec, snapshot: Any, planner: Planner | None = None
                   ) -> bool | None:
    """Can the goal still be reached from this state? False only when it surely cannot:
    some goal item cannot be had even in a relaxation of the world's own declared semantics
    (`relaxed_reachable`). None when it cannot be told (no snapshot, a model the derivation
    cannot express); `planner` is not needed (kept for callers that pass one). This reads
    the post-novelty world's model: the oracle regime's test (hybrid/recovery/starts.py's
    `model_goal_reachable` is the closed regime's)."""
    have = relaxed_reachable(spec, snapshot)
    if have is None:
        return None
    return all((INVENTORY, item) in have for item in spec.goal)


def relaxed_reachable(spec: WorldSpec, snapshot: Any) -> set[tuple[str, str]] | None:
    """Every count that can become positive and every fact that can hold from this state, in
    a relaxation of the world's own declared semantics (its registries' derived operators,
    growth, spawns, events) that forgets deletions, consumption, amounts and negated
    conditions, so a model that is stricter than the world (a plugin's refusal it cannot
    express) never makes something reachable look unreachable. None when it cannot be
    told. The post-novelty world's model: only the oracle regime reads it."""
    if snapshot is None:
        return None
    try:
        world = World(spec)
        world.restore(snapshot)
        d = derive(world)
    except (DerivationError, ValueError):
        return None
    return relaxed_closure(d.operators, d.initial, spawn_rules(spec))
