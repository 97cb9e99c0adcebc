"""The plan executor and the planning agent: solving, monitoring, failures, novelty events."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.hybrid import (
    Agent,
    PlanningAgent,
    PlanningConfig,
    RandomAgent,
    check_effects,
    run_episode,
    summarize,
)
from nesyworld.hybrid.agents.planning_agent import ScriptedAgent
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties, load_novelty

KB = KnowledgeBase.from_world("pogostick")


def planning(spec: object = "pogostick", mode: str = "macro") -> PlanningAgent:
    return PlanningAgent(NesyGridEnv(spec), KB, PlanningConfig(mode=mode))  # type: ignore[arg-type]


def test_agents_follow_the_protocol() -> None:
    env = NesyGridEnv("pogostick")
    for agent in (planning(), RandomAgent(env), ScriptedAgent(env, ["nop"])):
        assert isinstance(agent, Agent)


@pytest.mark.parametrize("mode", ["macro", "primitive"])
def test_planning_agent_solves_pogostick(mode: str) -> None:
    agent = planning(mode=mode)
    results = [run_episode(agent.env, agent, seed=s) for s in range(15)]
    assert all(r.success for r in results)
    steps = summarize(results)["mean_steps"]
    assert steps <= 16 if mode == "macro" else steps > 16  # primitive skills walk cell by cell
    assert not agent.failures


def test_planning_agent_solves_the_full_two_room_task() -> None:
    agent = PlanningAgent(NesyGridEnv("pogostick_full"))
    results = [run_episode(agent.env, agent, seed=s) for s in range(10)]
    assert sum(r.success for r in results) >= 9


def test_random_agent_is_the_floor() -> None:
    env = NesyGridEnv("pogostick")
    agent = RandomAgent(env, seed=0)
    results = [run_episode(env, agent, seed=s) for s in range(3)]
    assert not any(r.success for r in results) and all(r.steps == 400 for r in results)


# --- failures under novelties: the failing operator is named --------------------------------
EXPECTED_FAILURE = {
    "axe": ("break_oak_log", "needs axe"),
    "fence": ("approach_oak_log", "no reachable"),
    "distance": ("trade_block_of_titanium_1", "2 cells ahead"),
    "fire": ("craft_pogo_stick", "on_fire"),
    "multi_interact_unbreakable": ("break_oak_log", "cannot be broken"),
    "portal_treasure": ("break_oak_log", "cannot be broken"),
    "random_drop": ("break_oak_log", "inventory(oak_log)"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILURE))
def test_detrimental_novelty_fails_with_the_right_operator(name: str) -> None:
    agent = planning(apply_novelties("pogostick", [name]))
    # random_drop's break pays out 30% of the time: the first seed where it did not
    result = next(r for r in (run_episode(agent.env, agent, seed=s) for s in range(3, 13))
                  if agent.failures)
    operator, reason = EXPECTED_FAILURE[name]
    first = agent.failures[0]
    assert first.operator.name == operator and reason in str(first), str(first)
    if name != "random_drop":  # the drop sometimes comes, after a retry
        assert not result.success


@pytest.mark.parametrize("name", ["multi_interact_no_trees", "space_around"])
def test_no_plan_when_the_world_lacks_what_the_plan_needs(name: str) -> None:
    agent = planning(apply_novelties("pogostick", [name]))
    result = run_episode(agent.env, agent, seed=0)
    assert not result.success and any(e.kind == "no_plan" for e in agent.events)


@pytest.mark.parametrize("name", ["busy", "moving", "multi_room", "rival_lumberjack", "chest"])
def test_nuisance_and_beneficial_novelties_still_succeed(name: str) -> None:
    assert load_novelty(name).category in ("nuisance", "beneficial")
    agent = planning(apply_novelties("pogostick", [name]))
    results = [run_episode(agent.env, agent, seed=s) for s in range(8)]
    assert sum(r.success for r in results) >= 7


def test_new_types_and_actions_are_reported_with_their_step() -> None:
    agent = planning(apply_novelties("pogostick", ["fence"]))
    run_episode(agent.env, agent, seed=0)
    seen = {e.data.get("type") or e.data.get("action"): e.step for e in agent.novelties}
    assert seen == {"fence": 0, "approach_fence": 0, "select_fence": 0}


def test_the_monitor_catches_an_action_that_yields_less_than_declared(tmp_path: Path) -> None:
    """A novelty where crafting planks silently yields 2 instead of 4: the action succeeds,
    and only the effect check notices."""
    stingy = tmp_path / "stingy.yaml"
    stingy.write_text("novelty: stingy_planks\ncategory: detrimental\nlevel: interactions\n"
                      "changes:\n  recipes:\n    planks: {outputs: {planks: 2}}\n")
    agent = planning(apply_novelties("pogostick", [stingy]))
    run_episode(agent.env, agent, seed=0)
    failure = agent.failures[0]
    assert failure.kind == "effect_mismatch" and failure.operator.name == "craft_planks"
    assert failure.expected == ["inventory(planks) +4"] and failure.observed == [
        "inventory(planks) +2"]
    assert "did not do what it declares" in str(failure)
    assert failure.snapshot is not None and failure.suffix  # what recovery needs


def test_check_effects_directly() -> None:
    env = NesyGridEnv("pogostick")
    env.reset(seed=0)
    world = env.unwrapped.world
    op = GroundOperator(KB.operator("select_iron_pickaxe"), ("air",))
    z0 = abstract(world)
    world.step("select_iron_pickaxe")
    assert check_effects(op, z0, abstract(world)) == ([], [])
    assert check_effects(op, z0, z0) == (["not holding(air)", "holding(iron_pickaxe)"],
                                         ["holding(air)", "not holding(iron_pickaxe)"])


def test_mid_episode_novelty_is_seen_when_it_arrives_and_breaks_crafting() -> None:
    from nesyworld.world.envs import NoveltyInjector

    env = NoveltyInjector(NesyGridEnv("pogostick"), ["lightning"])
    agent = PlanningAgent(env, KB)
    result = run_episode(env, agent, seed=0)
    assert not result.success
    assert {e.step for e in agent.novelties} == {8}
    assert agent.failures[0].operator.name == "craft_pogo_stick"
    assert "on_fire" in str(agent.failures[0])
