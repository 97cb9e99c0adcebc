"""Model repair: reading refusals, forming candidates, and repairs verified by execution that
make learning unnecessary (hybrid/repair/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.hybrid import HybridAgent, RepairConfig, run_episode
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.repair.candidates import candidates, specialize
from nesyworld.hybrid.repair.declared import declared_operators
from nesyworld.hybrid.repair.evidence import gather, read_refusal
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.actions.schema import (
    FACING,
    HOLDING,
    INVENTORY,
    CountAtLeast,
    CountChange,
    Distinct,
    Fact,
    OperatorSchema,
    Param,
)
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

POGOSTICK = Path(__file__).parents[2] / "domains" / "polycraft" / "pogostick.yaml"
TYPES = ("oak_log", "planks", "axe", "crafting_table", "stick")
BREAK = OperatorSchema("break_oak_log", (), (Fact(FACING, ("oak_log",)),),
                       (CountChange(INVENTORY, "oak_log", 1),), "break", "test")
CRAFT = OperatorSchema("craft_stick", (), (CountAtLeast(INVENTORY, "planks", 2),),
                       (CountChange(INVENTORY, "planks", -2), CountChange(INVENTORY, "stick", 4)),
                       "craft_stick", "test")


@pytest.mark.parametrize(("reason", "expected"), [
    ("breaking oak_log needs axe selected", [Fact(HOLDING, ("axe",))]),
    ("stick needs 3 planks", [CountAtLeast(INVENTORY, "planks", 3)]),
    ("tree_tap needs facing crafting_table", [Fact(FACING, ("crafting_table",))]),
    ("crafting_table cannot be used while on_fire=True",
     [Fact("on_fire", ("oak_log",), negated=True)]),
    ("oak_log is not wet=true", [Fact("wet", ("oak_log",))]),
    ("no axe in the inventory", [CountAtLeast(INVENTORY, "axe", 1)]),
])
def test_a_refusal_in_the_world_vocabulary_states_its_requirement(reason: str,
                                                                 expected: list) -> None:
    reading = read_refusal(reason, GroundOperator(BREAK), TYPES)
    assert list(reading.needs) == expected and not reading.impossible


@pytest.mark.parametrize("reason", ["oak_log cannot be broken", "nothing to collect from air",
                                    "no reachable oak_log"])
def test_a_refusal_that_says_the_action_cannot_do_it_is_impossible(reason: str) -> None:
    assert read_refusal(reason, GroundOperator(BREAK), TYPES).impossible


@pytest.mark.parametrize("reason", ["the moon is wrong", "needs 2 unicorns", "needs 0 planks",
                                    "needs ghost selected", ""])
def test_a_reason_outside_the_vocabulary_yields_no_guess(reason: str) -> None:
    assert read_refusal(reason, GroundOperator(BREAK), TYPES).empty


def _failure(op: GroundOperator, reason: str) -> OperatorFailure:
    return OperatorFailure(op, "refused", reason, [], [], None, (), 3)


def test_a_stated_count_of_a_spent_item_is_tried_first_as_the_new_amount_spent() -> None:
    evidence = gather(_failure(GroundOperator(CRAFT), "stick needs 3 planks"), TYPES)
    cands = [c for c in candidates(evidence, KnowledgeBase.from_world("pogostick"))
             if c.kind != "demote"]
    assert [c.kind for c in cands] == ["consume", "require"]
    consume = cands[0].operators[0]
    assert CountAtLeast(INVENTORY, "planks", 3) in consume.preconditions
    assert CountAtLeast(INVENTORY, "planks", 2) not in consume.preconditions
    assert CountChange(INVENTORY, "planks", -3) in consume.effects
    assert CountChange(INVENTORY, "planks", -2) in cands[1].operators[0].effects


def test_a_lifted_operator_is_repaired_for_the_failing_binding_only() -> None:
    lifted = OperatorSchema("use_on", (Param("?t", "physobj"),), (Fact(FACING, ("?t",)),),
                            (), "use_{?t}", "test")
    ground, kept = specialize(GroundOperator(lifted, ("oak_log",)))
    assert ground.params == () and ground.action == "use_oak_log"
    assert Fact(FACING, ("oak_log",)) in ground.preconditions
    assert kept is not None and Distinct("?t", "oak_log") in kept.preconditions


def test_the_world_declares_only_its_new_actions_operators() -> None:
    kb = KnowledgeBase.from_world("pogostick")
    world = World(str(POGOSTICK))
    ops = [op for a in world.actions.values() for op in a.operators()]
    assert declared_operators(ops, [], kb) == ()
    assert declared_operators(ops, world.action_names(), kb) == ()  # all known already


def _agent(novelty: str | Path, **kwargs: object) -> tuple[HybridAgent, NoveltyInjector,
                                                           list[str]]:
    env = NoveltyInjector(NesyGridEnv("pogostick"), [str(novelty)])
    kinds: list[str] = []
    agent = HybridAgent(env, KnowledgeBase.from_world("pogostick"), novelty=str(novelty),
                        on_event=lambda e: kinds.append(e.kind), **kwargs)  # type: ignore[arg-type]
    return agent, env, kinds


def test_oracle_axe_is_repaired_from_the_refusal_without_learning() -> None:
    agent, env, kinds = _agent("axe", knowledge="oracle")
    assert agent.name == "repair+rapidlearn+"
    first = run_episode(env, agent, seed=0)
    assert first.success and "repaired" in kinds and "learned" not in kinds
    assert not agent.learned and 0 < agent.adaptation_env_steps < 200
    (outcome,) = agent.recoveries
    summary = outcome.summary()
    assert summary["method"] == "repair" and summary["repair"] == "require"
    entry = agent.kb.entry("break_oak_log")
    assert entry.origin == "repaired" and Fact(HOLDING, ("axe",)) in entry.operator.preconditions
    assert "needs axe selected" in entry.meta["evidence"]
    assert "(holding" not in entry.meta["before"]["break_oak_log"]
    assert "(holding axe)" in summary["after"]["break_oak_log"]
    assert all(run_episode(env, agent, seed=s).success for s in (1, 2))
    assert len(agent.recoveries) == 1  # nothing more to repair or learn


def test_repair_off_is_the_papers_learning_agent() -> None:
    agent, _, _ = _agent("axe", repair=RepairConfig(enabled=False))
    assert agent.name == "rapidlearn+" and not agent.repair_config.enabled


def test_oracle_an_impossible_action_is_demoted_and_a_new_trade_takes_its_place() -> None:
    agent, env, kinds = _agent("multi_interact_unbreakable", knowledge="oracle")
    assert run_episode(env, agent, seed=0).success and "learned" not in kinds
    assert agent.kb.entry("break_oak_log").status == "demoted"
    assert agent.kb.entry("trade_oak_log_1").origin == "repaired"


def test_oracle_no_plan_at_the_start_is_bridged_by_the_new_actions() -> None:
    agent, env, kinds = _agent("multi_interact_no_trees", knowledge="oracle")
    assert run_episode(env, agent, seed=0).success
    assert kinds.index("no_plan") < kinds.index("repaired") and "learned" not in kinds


def _novelty(tmp_path: Path, name: str, changes: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"novelty: {name}\ncategory: detrimental\nlevel: interactions\n"
                    f"description: a test novelty\nchanges:\n{changes}")
    return path


def test_an_undeclared_change_is_a_failure_and_the_observed_effect_is_repaired(
        tmp_path: Path) -> None:
    novelty = _novelty(tmp_path, "sapling_drop",
                       "  entity_types:\n    oak_log: {drops: {oak_log: 1, sapling: 1}}\n")
    agent, env, kinds = _agent(novelty)
    assert run_episode(env, agent, seed=0).success
    failure = next(f for f in agent.failures if f.kind == "undeclared")
    assert failure.operator.name == "break_oak_log"
    assert "inventory(sapling) +1" in str(failure)
    assert CountChange(INVENTORY, "sapling", 1) in agent.kb.operator("break_oak_log").effects
    assert "learned" not in kinds


def test_a_recipe_that_spends_more_is_repaired_from_the_observed_change(tmp_path: Path
                                                                         ) -> None:
    novelty = _novelty(tmp_path, "dear_sticks",
                       "  recipes:\n    stick: {inputs: {planks: 3}, outputs: {stick: 4}}\n")
    agent, env, kinds = _agent(novelty)
    results = [run_episode(env, agent, seed=s) for s in range(3)]
    assert results[-1].success and "repaired" in kinds and "learned" not in kinds
    stick = agent.kb.operator("craft_stick")
    assert CountChange(INVENTORY, "planks", -3) in stick.effects
    assert CountAtLeast(INVENTORY, "planks", 3) in stick.preconditions


def test_the_evidence_of_a_failure_is_read_from_its_states() -> None:
    world = World(str(POGOSTICK))
    z = abstract(world)
    failure = OperatorFailure(GroundOperator(CRAFT), "effect_mismatch", "", [], [], None, (),
                              0, z, z)
    evidence = gather(failure, world.types.names)
    assert evidence.observed == {} and evidence.declared[(INVENTORY, "planks")] == -2


def test_oracle_an_approach_behind_a_new_door_takes_the_worlds_declared_semantics() -> None:
    vault = POGOSTICK.parent / "suite" / "diamond_vault.yaml"
    agent, env, kinds = _agent(vault, knowledge="oracle")
    assert run_episode(env, agent, seed=0).success and "learned" not in kinds
    repair = next(r.summary() for r in agent.recoveries if r.summary().get("repair"))
    assert repair["repair"] == "declared" and "approach_diamond_ore" in repair["operators"]
    assert "break_vault_door_with_key" in repair["operators"]  # a new type's, declared
