"""Costs by target and held item (`costs:` of an action): parsing with located errors, the
simulator's charge (Outcome.cost, the env's info["cost"]), scale_costs, and the fallback of
the batched core."""

from __future__ import annotations

import numpy as np
import pytest

from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.transforms import scale_costs
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec

COSTS = """\
extends: pogostick
actions:
  break:
    class: break
    cost: 2
    costs:
      target: {diamond_ore: 5, block_of_platinum: 4}
      holding: {iron_pickaxe: 0.5}
  craft:
    class: craft
    costs: {target: {planks: 3}}
  trade:
    class: trade
    costs: {target: {block_of_titanium_1: 7}}
"""


def test_costs_are_read() -> None:
    actions = load_spec(COSTS).actions
    costs = actions["break"].costs
    assert costs is not None and dict(costs.target) == {"diamond_ore": 5.0,
                                                        "block_of_platinum": 4.0}
    assert dict(costs.holding) == {"iron_pickaxe": 0.5}
    assert costs.of(2.0, "diamond_ore", "iron_pickaxe") == 2.5
    assert costs.of(2.0, "oak_log", "air") == 2.0
    assert actions["craft"].costs.target["planks"] == 3.0  # type: ignore[union-attr]
    assert load_spec("pogostick").actions["break"].costs is None


@pytest.mark.parametrize("old, new, message", [
    ("diamond_ore: 5,", "diamond_or: 5,", r"<string>:7:16: unknown entity type 'diamond_or'"),
    ("diamond_ore: 5,", "diamond_ore: -1,", r"<string>:7:29: value out of range .*>= 0"),
    ("diamond_ore: 5,", "diamond_ore: cheap,", r"<string>:7:29: wrong type .*a number"),
    ("iron_pickaxe: 0.5", "iron_pickax: 0.5", r"<string>:8:17: unknown entity type"),
    ("{target: {planks: 3}}", "{target: {plank: 3}}",
     r"<string>:11:22: unknown recipe 'plank' .*a recipe name declared under recipes"),
    ("{target: {block_of_titanium_1: 7}}", "{target: {planks: 7}}",
     r"<string>:14:22: unknown trade 'planks'"),
    ("      holding:", "      per_tool:", r"<string>:8:7: unknown key 'per_tool'"),
])
def test_bad_costs_are_located(old: str, new: str, message: str) -> None:
    assert old in COSTS
    with pytest.raises(SpecError, match=message):
        load_spec(COSTS.replace(old, new))


def test_costs_on_a_class_without_targets_are_an_error() -> None:
    text = COSTS + "  nop: {class: nop, costs: {target: {oak_log: 2}}}\n"
    with pytest.raises(SpecError, match=r"<string>:15:21: action class 'nop' has no per-target "
                                        r"costs .*only on the classes break, .*craft, "):
        load_spec(text)


def test_the_simulator_charges_by_target_and_held_item() -> None:
    world = World(load_spec(COSTS), seed=0)
    assert world.step("approach_oak_log").ok
    assert world.step("break").cost == 2.0  # no target entry, nothing held with a factor
    assert world.step("craft_planks").cost == 3.0
    assert world.step("craft_stick").cost == 1.0  # the craft's own cost
    assert world.step("approach_diamond_ore").ok and world.step("select_iron_pickaxe").ok
    assert world.step("break").cost == 2.5  # 5 x 0.5
    assert world.step("approach_block_of_platinum").ok
    assert world.step("break").cost == 2.0  # 4 x 0.5
    assert world.step("approach_trader").ok
    assert world.step("trade_block_of_titanium_1").cost == 7.0


def test_a_refused_action_costs_nothing_and_the_env_reports_the_charge() -> None:
    env = NesyGridEnv(load_spec(COSTS))
    env.reset(seed=0)
    names = env.action_names
    _, _, _, _, info = env.step(names.index("craft_stick"))
    assert not info["ok"] and info["cost"] == 0.0
    env.step(names.index("approach_diamond_ore"))
    env.step(names.index("select_iron_pickaxe"))
    _, reward, _, _, info = env.step(names.index("break"))
    assert info["ok"] and info["cost"] == 2.5
    assert reward == -1.0  # the reward scheme is the spec's `reward:`, as before


def test_scale_costs_scales_target_costs_too() -> None:
    doc = {"actions": {"break": {"class": "break", "cost": 2,
                                 "costs": {"target": {"diamond_ore": 5},
                                           "holding": {"iron_pickaxe": 0.5}}}}}
    out = scale_costs(doc, {"factor": 2})
    assert out["actions"]["break"]["cost"] == 4.0
    assert out["actions"]["break"]["costs"] == {"target": {"diamond_ore": 10.0},
                                                "holding": {"iron_pickaxe": 0.5}}


def test_the_batched_core_falls_back_and_charges_alike() -> None:
    spec = load_spec(COSTS)
    batch = BatchWorld(spec, 1, seed=0)
    assert batch.engine == "worlds" and "costs" in batch.why_not
    world = World(spec, seed=0)
    for name in ("approach_diamond_ore", "select_iron_pickaxe", "break"):
        cost = batch.step(np.array([0]), np.array([world.action_index(name)]))[0]
        assert cost == world.step(name).cost
    assert cost == 2.5
