"""What the derivation makes of multi-hit blocks, events and per-target costs: a break
operator that repeats its action and costs every hit, operators that carry their target's
cost, repeats that survive JSON, PDDL and knowledge-base round trips, and the domain check
passing on a spec that uses each feature."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.hybrid.boundary.world_adapter import body
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.execution.skills import Primitives, skill_actions
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.derivation.domain_check import check_domain
from nesyworld.symbolic.derivation.schema_io import schema_from_dict, schema_to_dict
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.pddl.writer import write_pddl
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

HITS = """\
extends: pogostick
entity_types:
  diamond_ore: {hits: 3}
  oak_log: {hits: 2}
"""
COSTS = """\
extends: pogostick
actions:
  break:
    class: break
    cost: 2
    costs: {target: {diamond_ore: 5}, holding: {iron_pickaxe: 0.5}}
  collect: {class: collect, costs: {target: {oak_log: 3}}}
  craft: {class: craft, costs: {target: {planks: 4}}}
  trade: {class: trade, cost: 6}
"""
EVENTS = """\
extends: pogostick
entity_types:
  crafting_table: {properties: {on_fire: false}}
events:
  - {at: 1, spawn: {type: oak_log, near: agent}}
  - {when: {inventory: {oak_log: 1}}, remove: {type: block_of_platinum}}
  - {at: 2, move: {type: trader, near: agent}}
  - {at: 2, set: {type: crafting_table, property: on_fire, value: true}}
"""
BOTH = HITS + COSTS.split("\n", 1)[1]


def operators(spec: WorldSpec) -> dict[str, object]:
    return {op.name: op for op in derive(spec).operators}


def test_a_multi_hit_break_repeats_and_costs_every_hit() -> None:
    ops = operators(load_spec(HITS))
    ore, log = ops["break_diamond_ore_with_iron_pickaxe"], ops["break_oak_log"]
    assert (ore.repeat, ore.cost) == (3, 3.0)  # type: ignore[attr-defined]
    assert (log.repeat, log.cost) == (2, 2.0)  # type: ignore[attr-defined]
    assert ops["break_block_of_platinum_with_iron_pickaxe"].repeat == 1  # type: ignore[attr-defined]
    assert all(op.repeat == 1 for op in derive("pogostick").operators
               if op.name.startswith("break"))


def test_operators_carry_their_targets_cost() -> None:
    ops = operators(load_spec(COSTS))
    costs = {n: op.cost for n, op in ops.items()}  # type: ignore[attr-defined]
    assert costs["break_diamond_ore_with_iron_pickaxe"] == 2.5  # 5, the pickaxe halves it
    assert costs["break_block_of_platinum_with_iron_pickaxe"] == 1.0  # 2 x 0.5
    assert costs["break_oak_log"] == 2.0  # no tool required: no holding factor
    assert costs["collect_oak_log"] == 3.0 and costs["craft_planks"] == 4.0
    assert costs["craft_stick"] == 1.0 and costs["trade_block_of_titanium_1"] == 6.0
    both = operators(load_spec(BOTH))
    assert both["break_diamond_ore_with_iron_pickaxe"].cost == 7.5  # type: ignore[attr-defined]


def test_repeat_round_trips_and_old_files_still_read() -> None:
    op = operators(load_spec(HITS))["break_diamond_ore_with_iron_pickaxe"]
    data = schema_to_dict(op)  # type: ignore[arg-type]
    assert data["repeat"] == 3 and schema_from_dict(data) == op
    plain = schema_to_dict(derive("pogostick").operators[0])
    assert "repeat" not in plain and schema_from_dict(plain).repeat == 1


def test_the_pddl_says_the_repeat_and_the_kb_keeps_it(tmp_path: Path) -> None:
    derivation = derive(load_spec(HITS))
    domain, _ = write_pddl(derivation)
    assert "repeat 3: its action runs 3 times, cost 3 in all" in domain
    kb = KnowledgeBase.from_pddl(domain, derivation)
    assert kb.operator("break_diamond_ore_with_iron_pickaxe").repeat == 3
    assert kb.entry("break_diamond_ore_with_iron_pickaxe").origin == "derived"


@pytest.mark.parametrize("text", [HITS, COSTS, EVENTS, BOTH], ids=["hits", "costs", "events",
                                                                  "hits+costs"])
def test_the_domain_check_passes_on_each_feature(text: str) -> None:
    report = check_domain(load_spec(text), samples=8)
    assert report.ok, report.to_table()


def test_the_skill_hits_until_the_block_breaks() -> None:
    world = World(load_spec(HITS), seed=0)
    op = GroundOperator(operators(world.spec)["break_diamond_ore_with_iron_pickaxe"])  # type: ignore[arg-type]
    assert world.step("approach_diamond_ore").ok and world.step("select_iron_pickaxe").ok
    taken = [world.step(a).ok for a in skill_actions(world, op, "macro", Primitives(body(world)))]
    assert taken == [True, True, True] and "diamond" in world.inventory_dict()
    # a block damaged before breaks sooner: the skill stops there, not on what it left
    assert world.step("approach_diamond_ore").ok
    world.state.damage[world.front(world.main)] = 2  # type: ignore[index]
    taken = [world.step(a).ok for a in skill_actions(world, op, "macro", Primitives(body(world)))]
    assert taken == [True] and world.inventory_dict()["diamond"] == 18
