"""The workshop task (domains/workshop/birdhouse.yaml): a YAML-only domain unrelated to
Polycraft. Its scripted solution and a planner's plan both reach the goal, and the plan is long
enough (21 operators) for a novelty to break it in many places."""

from __future__ import annotations

import pytest

from nesyworld.domains import scripted_solution
from nesyworld.hybrid import PlanningAgent, run_episode
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World, load_spec
from nesyworld.world.envs import NesyGridEnv


def test_it_loads_and_shares_nothing_with_polycraft() -> None:
    spec = load_spec("birdhouse")
    assert spec.goal == {"birdhouse": 1}
    assert set(spec.concrete_types) & set(load_spec("pogostick").concrete_types) == {"air"}
    assert spec.entity_types["forge"].disabled_when == {"lit": False}


@pytest.mark.parametrize("seed", range(12))
def test_scripted_solution_reaches_the_goal(seed: int) -> None:
    plan = scripted_solution("birdhouse")
    assert plan and len(plan) >= 8
    world = World("birdhouse", seed=seed)
    outcomes = [world.step(name) for name in plan]
    assert [o.reason for o in outcomes if not o.ok] == []
    assert world.goal_reached()


def test_the_rules_bite() -> None:
    """A cold forge forges nothing, pines need the axe, and the berry bush goes when picked."""
    world = World("birdhouse", seed=0)
    inv = world.state.inventory[world.main]
    inv[world.types.id("iron_ore")] = inv[world.types.id("coal")] = 1
    world.step("approach_forge")
    assert "lit=False" in world.step("craft_iron_ingot").reason
    world.step("approach_pine_tree")
    assert "needs axe selected" in world.step("break").reason
    bushes = int((world.state.grid == world.types.id("berry_bush")).sum())
    world.step("approach_berry_bush")
    assert world.step("collect").ok
    assert int((world.state.grid == world.types.id("berry_bush")).sum()) == bushes - 1
    assert world.inventory_dict()["berries"] == 2


def test_the_planner_needs_at_least_eight_operators() -> None:
    result = Planner("fast-downward", timeout=60).plan(derive("birdhouse"))
    assert result.ok, result.message
    assert len(result.steps) >= 8
    assert {"use_forge", "trade_paint", "craft_birdhouse"} <= {s.operator for s in result.steps}


@pytest.mark.parametrize("seed", [0, 3])
def test_the_planning_agent_builds_it(seed: int) -> None:
    env = NesyGridEnv("birdhouse")
    result = run_episode(env, PlanningAgent(env, KnowledgeBase.from_world("birdhouse")),
                         seed=seed)
    assert result.success
