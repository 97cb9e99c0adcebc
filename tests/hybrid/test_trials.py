"""Experimenting with what is new (hybrid/repair/trials.py): which trials are planned, what
an accepted trial induces, and the hypotheses a silent refusal gets."""

from __future__ import annotations

from nesyworld.hybrid import HybridAgent, run_episode
from nesyworld.hybrid.boundary import CopyRecipe
from nesyworld.hybrid.repair.trials import (
    Trial,
    TrialResult,
    experiment,
    generic_actions,
    induce,
    mentions,
    plan_trials,
    requirements,
)
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    CountAtLeast,
    CountChange,
    Fact,
    OperatorSchema,
    SetFact,
)
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector


def _axe_world() -> tuple[World, KnowledgeBase]:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    env.reset(seed=0)
    return env.unwrapped.world, KnowledgeBase.from_world("pogostick")


def test_names_are_mentioned_as_whole_words() -> None:
    assert mentions("select_axe", "axe") and mentions("approach_oak_log", "oak_log")
    assert not mentions("select_axe_head", "head_x") and not mentions("relax", "axe")


def test_generic_actions_are_those_the_model_uses_on_several_faced_types() -> None:
    generic = generic_actions(KnowledgeBase.from_world("pogostick"))
    assert "break" in generic
    assert not {"craft_planks", "select_axe", "approach_oak_log"} & generic


def test_trials_try_each_new_action_as_is_and_in_each_context() -> None:
    world, kb = _axe_world()
    z = abstract(world)
    offered = world.action_names()
    trials = plan_trials(z, offered, ["select_axe"], ["axe"], generic_actions(kb))
    assert Trial((), "select_axe", None) in trials
    assert Trial(("approach_crafting_table",), "select_axe", (FACING, "crafting_table")) in trials
    assert all(t.action == "select_axe" for t in trials)  # no new type is on the map
    # the agent carries an axe: holding it is a context for the other new actions
    assert z.count(INVENTORY, "axe") > 0
    more = plan_trials(z, offered, ["select_axe", "deselect"], ["axe"], ())
    assert Trial(("select_axe",), "deselect", (HOLDING, "axe")) in more
    assert len(plan_trials(z, offered, ["select_axe"], ["axe"], (), max_trials=2)) == 2


def test_an_accepted_trial_induces_its_observed_change() -> None:
    world, kb = _axe_world()
    found = experiment(CopyRecipe(world.spec), world.snapshot(), abstract(world), kb,
                       world.action_names(), ["select_axe"], ["axe"])
    assert found.env_steps > 0 and found.results
    (op,) = found.operators
    assert op.name == "induced_select_axe" and op.action == "select_axe"
    assert SetFact(HOLDING, ("axe",), True) in op.effects
    assert Fact(HOLDING, ("?prev",)) in op.preconditions
    assert CountAtLeast(INVENTORY, "axe", 1) in op.preconditions  # its name mentions axe
    assert "induced from a trial of 'select_axe'" in op.provenance


def test_a_refused_or_idle_trial_induces_nothing() -> None:
    world, kb = _axe_world()
    z = abstract(world)
    trial = Trial((), "select_axe")
    assert induce(TrialResult(trial, False, "no", z, z), kb) is None
    assert induce(TrialResult(trial, True, "", z, z), kb) is None  # nothing changed


def test_a_trial_in_a_context_requires_it_and_spends_what_it_used() -> None:
    world, kb = _axe_world()
    z0 = abstract(world)
    i = z0.names.index("crafting_table")
    planks = z0.names.index("planks")
    inv = list(z0.inventory)
    inv[planks] += 4
    start = type(z0)(z0.names, i, z0.holding, z0.world, tuple(inv), z0.props)
    inv[planks] -= 4
    inv[z0.names.index("stick")] += 2
    end = type(z0)(z0.names, i, z0.holding, z0.world, tuple(inv), z0.props)
    trial = Trial(("approach_crafting_table",), "craft_wand", (FACING, "crafting_table"))
    op = induce(TrialResult(trial, True, "", start, end), kb)
    assert op is not None and op.name == "induced_craft_wand_crafting_table"
    assert Fact(FACING, ("crafting_table",)) in op.preconditions
    assert CountAtLeast(INVENTORY, "planks", 4) in op.preconditions
    assert CountChange(INVENTORY, "stick", 2) in op.effects


def test_a_silent_refusal_gets_what_new_actions_bring_as_hypotheses() -> None:
    failed = OperatorSchema("break_oak_log", (), (Fact(FACING, ("oak_log",)),), (), "break",
                            "test")
    induced = OperatorSchema("induced_select_axe", (), (),
                             (SetFact(HOLDING, ("?prev",), False),
                              SetFact(HOLDING, ("axe",), True),
                              SetFact(FACING, ("trader",), True),
                              CountChange(INVENTORY, "gem", 1)), "select_axe", "test")
    conds = requirements(failed, [induced])
    assert conds == [Fact(HOLDING, ("axe",)), CountAtLeast(INVENTORY, "gem", 1)]


def test_a_new_trade_replaces_an_impossible_break_by_trials() -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["multi_interact_unbreakable"])
    kinds: list[str] = []
    agent = HybridAgent(env, KnowledgeBase.from_world("pogostick"),
                        novelty="multi_interact_unbreakable",
                        on_event=lambda e: kinds.append(e.kind))
    assert run_episode(env, agent, seed=0).success and "learned" not in kinds
    assert agent.kb.entry("break_oak_log").status == "demoted"
    induced = [e for e in agent.kb if e.operator.name.startswith("induced_trade_oak_log_1")]
    assert induced and induced[0].origin == "repaired"
    assert Fact(FACING, ("trader",)) in induced[0].operator.preconditions


def test_no_plan_at_the_start_is_bridged_by_trials_of_the_new_actions() -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick", refusals="silent"),
                          ["multi_interact_no_trees"])
    kinds: list[str] = []
    agent = HybridAgent(env, KnowledgeBase.from_world("pogostick"),
                        novelty="multi_interact_no_trees",
                        on_event=lambda e: kinds.append(e.kind))
    assert run_episode(env, agent, seed=0).success
    assert kinds.index("no_plan") < kinds.index("repaired") and "learned" not in kinds


def test_a_new_kind_of_thing_is_tried_with_each_held_tool_in_hand() -> None:
    from pathlib import Path

    from nesyworld.hybrid.boundary import WorldAdapter
    from nesyworld.world.novelty.transforms import apply_novelties

    suite = Path(__file__).parents[2] / "domains" / "polycraft" / "suite"
    env = NesyGridEnv(apply_novelties("pogostick", [str(suite / "rubber_tree.yaml")]))
    env.reset(seed=0)
    adapter = WorldAdapter(env)
    kb = KnowledgeBase.from_world("pogostick")
    assert "collect" in generic_actions(kb)  # a bare verb acts on what is in front
    found = experiment(adapter.recipe, adapter.snapshot(), adapter.detect(), kb,
                       adapter.actions(), ["approach_rubber_tree"], ["rubber_tree"])
    (collect,) = [op for op in found.operators if op.action == "collect"]
    # rubber comes from the new tree only with the tree tap in hand: so says the trial
    assert Fact(FACING, ("rubber_tree",)) in collect.preconditions
    assert Fact(HOLDING, ("tree_tap",)) in collect.preconditions
    assert CountChange(INVENTORY, "rubber", 1) in collect.effects
