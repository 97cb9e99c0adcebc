"""The kitchen task (domains/kitchen/sandwich.yaml): a second crafting world written only in
YAML. Its scripted solution and a planner's plan must both reach the goal, which shows the
derived domain is faithful for a spec nobody wrote code for."""

from __future__ import annotations

import json
import re

import pytest

from nesyworld.domains import scripted_solution
from nesyworld.experiments.cli.main import main
from nesyworld.symbolic.derivation.derive import Derivation, derive
from nesyworld.symbolic.planning.planners import Planner, PlanStep
from nesyworld.world import World, load_spec


def test_it_loads_and_checks(capsys: pytest.CaptureFixture[str]) -> None:
    spec = load_spec("sandwich")
    assert spec.goal == {"sandwich": 1}
    assert {a.controller for a in spec.agents.values()} == {None, "stationary"}
    assert spec.entity_types["tomato_plant"].parents == ("plant", "cuttable")
    assert main(["check", "sandwich", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["name"] == "sandwich" and summary["trades"] == ["cheese"]


@pytest.mark.parametrize("seed", range(20))
def test_scripted_solution_reaches_the_goal(seed: int) -> None:
    plan = scripted_solution("sandwich")
    assert plan
    world = World("sandwich", seed=seed)
    outcomes = [world.step(name) for name in plan]
    assert [o.reason for o in outcomes if not o.ok] == []
    assert world.goal_reached()


def test_the_rules_bite() -> None:
    """The oven must be lit, the knife held, and the coin pouch goes away when collected."""
    world = World("sandwich", seed=0)
    world.state.inventory[world.main, world.types.id("flour")] = 1
    world.step("approach_oven")
    assert "lit=False" in world.step("craft_bread").reason
    world.step("approach_tomato_plant")
    assert "needs knife selected" in world.step("break").reason
    pouches = int((world.state.grid == world.types.id("coin_pouch")).sum())
    world.step("approach_coin_pouch")
    assert world.step("collect").ok
    assert int((world.state.grid == world.types.id("coin_pouch")).sum()) == pouches - 1
    assert world.inventory_dict()["coin"] == 3


def _env_action(d: Derivation, step: PlanStep) -> str:
    """The grounded env action of a plan step: the operator's `action`, with each `{?var}`
    filled from the step's arguments in parameter order."""
    op = d.operator(step.operator)
    binding = {p.name: arg for p, arg in zip(op.params, step.args, strict=True)}
    return re.sub(r"\{(\?[^}]+)\}", lambda m: binding[m.group(1)], op.action)


@pytest.fixture(scope="module")
def planner() -> Planner:
    return Planner("fast-downward", timeout=30)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a_planned_solution_executes(seed: int, planner: Planner) -> None:
    world = World("sandwich", seed=seed)
    d = derive(world)
    result = planner.plan(d)
    assert result.ok, result.message
    for step in result.steps:
        outcome = world.step(_env_action(d, step))
        assert outcome.ok, f"{step}: {outcome.reason}"
    assert world.goal_reached()
