"""Trials in a prepared state (hybrid/repair/preparation.py): a new action refused as things
stand is tried again after a plan of the agent's own gets what it likely needs."""

from __future__ import annotations

from functools import cache

import pytest

from nesyworld.domains import DOMAINS_DIR
from nesyworld.hybrid import HybridAgent, run_episode
from nesyworld.hybrid.boundary import CopyRecipe, WorldAdapter
from nesyworld.hybrid.repair.preparation import (
    Needs,
    kin_places,
    prepare,
    prepared_trials,
    producible,
    worth_preparing,
)
from nesyworld.hybrid.repair.trials import (
    Trial,
    TrialResult,
    experiment,
    induce_all,
    named_items,
)
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import FACING, INVENTORY, CountAtLeast, CountChange, Fact
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")
NOVELTY = DOMAINS_DIR / "polycraft" / "suite" / "reinforced_pogo_stick.yaml"
ACTION = "craft_reinforced_pogo_stick"


@cache
def reinforced(refusals: str) -> tuple[WorldAdapter, CopyRecipe]:
    spec = apply_novelties("pogostick", [NOVELTY])
    env = NesyGridEnv(spec, refusals=refusals)  # type: ignore[arg-type]
    env.reset(seed=0)
    return WorldAdapter(env), CopyRecipe(spec, refusals)  # type: ignore[arg-type]


def test_an_action_names_its_longest_items_only() -> None:
    names = ["pogo_stick", "stick", "reinforced_pogo_stick_kit", "planks"]
    assert named_items(ACTION, names) == ["pogo_stick"]
    assert named_items("select_stick", names) == ["stick"]


def test_the_places_of_an_action_come_from_its_kin() -> None:
    assert kin_places(ACTION, KB) == ["crafting_table"]  # every station craft faces it
    assert kin_places("trade_ring_7", KB) == ["trader"]
    assert kin_places("zap_reinforced_pogo_stick", KB) is None  # no known verb
    assert {"pogo_stick", "planks", "stick", "diamond"} <= set(producible(KB))


def test_refusals_are_read_for_items_places_and_held_things() -> None:
    needs = Needs({"pogo_stick", "crafting_table", "axe"})
    results = [TrialResult(Trial((), ACTION), False, reason, None, None) for reason in (
        f"{ACTION} needs facing crafting_table", f"{ACTION} needs 2 pogo_stick",
        "break needs axe selected", "needs 3 unknown_thing", "")]
    needs.absorb(results)
    assert needs.items == {"pogo_stick": 2, "axe": 1}
    assert needs.faced == ["crafting_table"] and needs.held == ["axe"]


def test_an_action_is_prepared_when_it_names_what_the_task_is_about() -> None:
    refused = [TrialResult(Trial((), ACTION), False, "", None, None)]
    assert worth_preparing(ACTION, {"reinforced_pogo_stick"}, refused)
    assert not worth_preparing(ACTION, {"ring"}, refused)
    assert not worth_preparing("nop", {"nop"}, [])


def test_preparing_runs_a_plan_of_its_own_in_a_copy() -> None:
    env, copies = reinforced("explained")
    before = env.detect()
    reached, steps = prepare(copies, env.snapshot(), KB, Planner(), {"stick": 2}, 400)
    assert reached is not None and 0 < steps < 400
    assert reached[1].count(INVENTORY, "stick") >= 2
    assert env.detect() == before  # the agent's own env is untouched
    none, steps = prepare(copies, env.snapshot(), KB, Planner(), {"stick": 2}, 1)
    assert none is None and steps == 1  # out of steps


@pytest.mark.parametrize("refusals", ["explained", "silent"])
def test_a_never_seen_recipe_is_found_by_preparing_its_inputs(refusals: str) -> None:
    env, copies = reinforced(refusals)
    z, snapshot, offered = env.detect(), env.snapshot(), env.actions()
    new = [a for a in offered if "reinforced" in a]
    plain = experiment(copies, snapshot, z, KB, offered, new, [])
    assert not plain.operators  # refused wherever it stands
    more, steps = prepared_trials(copies, snapshot, z, KB, Planner(), offered, [ACTION],
                                  plain.results)
    assert 0 < steps <= 1500
    (op,) = induce_all([*plain.results, *more], KB, new)
    assert op.action == ACTION and "after a plan to hold" in op.provenance
    assert set(op.preconditions) == {CountAtLeast(INVENTORY, "pogo_stick", 1),
                                     CountAtLeast(INVENTORY, "block_of_platinum", 1),
                                     Fact(FACING, ("crafting_table",))}
    assert CountChange(INVENTORY, "reinforced_pogo_stick", 1) in op.effects


def test_the_hybrid_agent_reaches_the_new_goal_without_learning() -> None:
    spec = apply_novelties("pogostick", [NOVELTY])
    env = NesyGridEnv(spec, refusals="silent")
    agent = HybridAgent(env, KB.copy())
    result = run_episode(env, agent, seed=0)
    assert result.success
    assert [r.summary()["method"] for r in agent.recoveries] == ["repair"]
    assert any(e.origin == "repaired" and e.operator.action == ACTION for e in agent.kb)
