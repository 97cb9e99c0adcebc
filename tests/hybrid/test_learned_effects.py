"""A learned operator promises only what every accepted rollout did: every inventory count's
least change (consumed inputs included, even those no precondition compares), and world
counts only where every rollout agrees."""

from __future__ import annotations

import pytest

from nesyworld.hybrid.recovery.learned_operator import common_effects
from nesyworld.hybrid.recovery.rollouts import PolicyEpisode
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.world.actions.schema import INVENTORY, WORLD, CountChange

NAMES = ("air", "oak_log", "planks", "stick", "tree")


def state(inv: tuple[int, ...], world: tuple[int, ...] = (0, 0, 0, 0, 3)) -> SymbolicState:
    return SymbolicState(NAMES, 0, 0, world, inv)


def rollout(end_inv: tuple[int, ...], end_world: tuple[int, ...] = (0, 0, 0, 0, 3)
            ) -> PolicyEpisode:
    return PolicyEpisode(True, 5, state((0, 1, 4, 0, 0)), state(end_inv, end_world), ())


def test_consumed_inputs_are_effects_even_when_nothing_compares_them() -> None:
    wins = [rollout((0, 0, 2, 4, 0)), rollout((0, 0, 2, 4, 0))]
    effects = common_effects(wins, relevant=set())
    assert CountChange(INVENTORY, "oak_log", -1) in effects
    assert CountChange(INVENTORY, "planks", -2) in effects
    assert CountChange(INVENTORY, "stick", 4) in effects


def test_a_count_that_varies_is_promised_at_its_least() -> None:
    wins = [rollout((0, 1, 2, 4, 0)), rollout((0, 1, 0, 8, 0))]
    effects = common_effects(wins, relevant=set())
    assert CountChange(INVENTORY, "planks", -4) in effects  # spends at most 4
    assert CountChange(INVENTORY, "stick", 4) in effects  # gains at least 4


def test_world_counts_only_for_the_failed_objects_and_when_all_agree() -> None:
    wins = [rollout((0, 1, 4, 0, 0), (0, 0, 0, 0, 2)), rollout((0, 1, 4, 0, 0), (0, 0, 0, 0, 1))]
    relevant = {(WORLD, "tree")}
    assert not [e for e in common_effects(wins, relevant, {"tree"}) if e.fluent == WORLD]
    same = [rollout((0, 1, 4, 0, 0), (0, 0, 0, 0, 2))] * 2
    assert CountChange(WORLD, "tree", -1) in common_effects(same, relevant, {"tree"})
    assert not [e for e in common_effects(same, relevant, set()) if e.fluent == WORLD]


def test_a_learned_gain_the_worlds_semantics_cannot_explain_is_not_promised() -> None:
    from nesyworld.hybrid.boundary import OracleRefused, WorldAdapter
    from nesyworld.hybrid.execution.monitor import OperatorFailure
    from nesyworld.hybrid.execution.operators import GroundOperator
    from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
    from nesyworld.hybrid.recovery.recover import Recovery
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world import World
    from nesyworld.world.actions.schema import OperatorSchema
    from nesyworld.world.novelty.transforms import apply_novelties
    from nesyworld.world.observations.builder import ObservationConfig

    world = World(apply_novelties("pogostick", []))
    failure = OperatorFailure(GroundOperator(OperatorSchema("x", (), (), (), "nop", "t")),
                              "refused", "", [], [], world.snapshot(), (), 0)

    def learned(*effects: CountChange) -> LearnedOperator:
        schema = OperatorSchema("learned_x_1", (), (), effects, "policy:learned_x_1", "t")
        return LearnedOperator(schema, lambda o, m: 0, (), ObservationConfig(), 1.0, 1, 1, "")

    oracle = Recovery(KnowledgeBase.from_world("pogostick"), knowledge="oracle")
    env = WorldAdapter.of_world(world)
    both = learned(CountChange(INVENTORY, "oak_log", 1), CountChange(INVENTORY, "trader", 1))
    assert oracle._check_declared(env, failure, both) is None
    assert both.schema.effects == (CountChange(INVENTORY, "oak_log", 1),)
    only = learned(CountChange(INVENTORY, "trader", 1))
    assert "declared semantics" in (oracle._check_declared(env, failure, only) or "")
    with pytest.raises(OracleRefused):  # the closed agent has no such check to make
        Recovery(KnowledgeBase.from_world("pogostick"))._check_declared(env, failure, only)


def test_a_stand_in_promises_the_failed_operators_gains_not_its_detours() -> None:
    from nesyworld.hybrid.execution.operators import GroundOperator
    from nesyworld.hybrid.recovery.learned_operator import stand_in_effects
    from nesyworld.world.actions.schema import OperatorSchema

    craft = GroundOperator(OperatorSchema("craft_stick", (), (), (
        CountChange(INVENTORY, "planks", -2), CountChange(INVENTORY, "stick", 4)), "c", "t"))
    # every rollout did what craft_stick declares, and broke an oak log on the way
    start = SymbolicState(NAMES, 0, 0, (0, 0, 0, 0, 3), (0, 0, 4, 0, 0))
    end = SymbolicState(NAMES, 0, 0, (0, 0, 0, 0, 3), (0, 1, 2, 4, 0))
    wins = [PolicyEpisode(True, 5, start, end, ())] * 2
    effects = common_effects(wins, relevant={(INVENTORY, "stick")})
    assert CountChange(INVENTORY, "oak_log", 1) in effects
    kept = stand_in_effects(craft, wins, effects, {(INVENTORY, "stick")})
    assert CountChange(INVENTORY, "oak_log", 1) not in kept  # a detour, not promised
    assert CountChange(INVENTORY, "stick", 4) in kept
    assert CountChange(INVENTORY, "planks", -2) in kept  # what it spends stays promised
    # a rollout that did not do what the failed operator declares: promise what was seen
    short = [PolicyEpisode(True, 5, start, SymbolicState(NAMES, 0, 0, (0, 0, 0, 0, 3),
                                                   (0, 1, 4, 0, 0)), ())]
    seen = common_effects(short, relevant=set())
    assert stand_in_effects(craft, short, seen, {(INVENTORY, "stick")}) == seen


@pytest.mark.parametrize("knowledge", ["oracle", "closed"])
def test_spending_actions_are_those_the_model_says_spend_something_else(knowledge: str
                                                                         ) -> None:
    """The oracle reads the world's model, the closed agent its knowledge base's: on the
    unchanged world the two agree."""
    import numpy as np

    from nesyworld.hybrid.recovery.spending import (
        spending_actions,
        withhold_actions,
        withholding_mask,
    )
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world import World

    world = World("pogostick", seed=0)
    kb = KnowledgeBase.from_world("pogostick")
    names = tuple(world.action_names())
    spend = spending_actions(world, names, (), kb, knowledge)  # type: ignore[arg-type]
    assert {"craft_planks", "craft_stick", "trade_block_of_titanium_1"} <= set(spend)
    assert not [n for n in spend if n.startswith(("approach_", "move", "select_"))]
    assert "craft_planks" not in spending_actions(world, names, {"oak_log"}, kb,
                                                  knowledge)  # type: ignore[arg-type]
    assert spending_actions(world, names, (), None, "closed") == ()  # nothing known
    keep = withholding_mask(names, spend)
    mask = np.ones(len(names), np.int8)
    assert not withhold_actions(mask, keep)[names.index("craft_planks")]
    only = np.zeros(len(names), np.int8)
    only[names.index("craft_planks")] = 1
    assert (withhold_actions(only, keep) == only).all()  # never leave the policy nothing
