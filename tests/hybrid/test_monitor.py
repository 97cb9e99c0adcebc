"""What the monitor counts as an operator failure, and what it tolerates."""

from __future__ import annotations

from nesyworld.hybrid.execution.monitor import check_effects, tolerated
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World

KB = KnowledgeBase.from_world("pogostick")


def test_an_npc_in_the_cleared_cell_is_tolerated_a_missing_log_is_not() -> None:
    world = World("pogostick", seed=0)
    world.step("approach_oak_log")
    z0 = abstract(world)
    op = GroundOperator(KB.operator("break_oak_log"))
    # what the operator promises, except that something else now stands in the cell
    promised = z0.apply(op.schema.effects)
    trader = promised.names.index("trader")
    moved_in = type(promised)(promised.names, trader, promised.holding, promised.world,
                              promised.inventory, promised.props)
    expected, _ = check_effects(op, z0, moved_in)
    assert expected == ["facing(air)"]
    assert tolerated(op, z0, moved_in, expected)
    expected, _ = check_effects(op, z0, z0)  # nothing happened: the log is not in hand
    assert "inventory(oak_log) +1" in expected and not tolerated(op, z0, z0, expected)


def test_an_approach_that_ends_facing_something_else_is_a_failure() -> None:
    world = World("pogostick", seed=0)
    z0 = abstract(world)
    op = GroundOperator(KB.operator("approach_oak_log"), (z0.names[z0.facing],))
    expected, _ = check_effects(op, z0, z0)
    assert expected and not tolerated(op, z0, z0, expected)  # no count to vouch for it
