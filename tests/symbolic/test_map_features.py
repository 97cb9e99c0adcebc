"""What a break leaves, what it spawns, and doors that need a key: each small spec's goal needs
the feature, the derived domain finds the plan, the planning agent carries it out in the env,
and the domain check agrees with the simulator on every operator."""

from __future__ import annotations

import pytest

from nesyworld.hybrid import PlanningAgent, run_episode
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.derivation.domain_check import check_domain
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World
from nesyworld.world.actions.schema import BEHIND_DOOR, SPAWNING, Fact
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

COMMON = """\
actions:
  move_forward: {class: move, direction: forward}
  move_backward: {class: move, direction: backward}
  move_left: {class: move, direction: left}
  move_right: {class: move, direction: right}
  rotate_left: {class: rotate, direction: left}
  rotate_right: {class: rotate, direction: right}
  approach: {class: approach}
  break: {class: break}
  select: {class: select}
  use: {class: use}
  nop: {class: nop}
  give_up: {class: give_up}
action_sets:
  main: [move_*, rotate_*, approach, break, select, use, nop, give_up]
agents:
  hero: {type: agent, at: [2, 1], facing: east, action_set: main}
goal:
  inventory: {gem: 1}
"""
TYPES = """\
entity_types:
  air: {class: floor, glyph: "."}
  bedrock: {class: block, glyph: "#"}
  agent: {class: actor}
  gem: {class: item}
"""

# the only gem is in the ore a rock leaves behind
LEAVES = "name: leaves\n" + TYPES + """\
  rock: {breakable: true, drops: {}, leaves: ore, glyph: R}
  ore: {breakable: true, drops: {gem: 1}, glyph: O}
map:
  ascii: |
    #######
    #.....#
    #...R.#
    #.....#
    #######
""" + COMMON

# the only gem comes from the mushroom that grows where a stump was broken, three steps later
SPAWN = "name: spawn\n" + TYPES + """\
  stump: {breakable: true, drops: {}, on_break: {spawn: mushroom, after: 3}, glyph: S}
  mushroom: {breakable: true, drops: {gem: 1}, glyph: M}
map:
  ascii: |
    #######
    #.....#
    #...S.#
    #.....#
    #######
""" + COMMON

# the ore is in the east room behind a locked door; the key is in a box in the west room
DOOR = "name: door_key\n" + TYPES + """\
  key: {class: item}
  key_box: {breakable: true, drops: {key: 1}, glyph: K}
  ore: {breakable: true, drops: {gem: 1}, glyph: O}
  open_door: {class: floor, glyph: /}
  locked_door:
    glyph: D
    use: {holding: key, removes: true, becomes: open_door}
map:
  ascii: |
    #########
    #...#...#
    #.K.D.O.#
    #...#...#
    #########
  doors:
    - {at: [2, 4], type: locked_door}
""" + COMMON

SPECS = {"leaves": LEAVES, "spawn": SPAWN, "door": DOOR}


def plan_of(spec: WorldSpec) -> list[str]:
    kb = KnowledgeBase.from_world(spec)
    with Planner() as planner:
        result = planner.plan(kb.derivation(), abstract(World(spec, seed=0)))
    assert result.ok, result
    return [step.operator for step in result.steps]


@pytest.mark.parametrize("name", SPECS)
def test_the_planner_finds_the_plan_and_the_agent_carries_it_out(name: str) -> None:
    spec = load_spec(SPECS[name])
    names = plan_of(spec)
    needed = {"leaves": ["break_rock", "break_ore"],
              "spawn": ["break_stump", "wait_for_mushroom", "break_mushroom"],
              "door": ["break_key_box", "select_key", "use_locked_door", "approach_ore",
                       "break_ore"]}[name]
    assert [n for n in names if n in needed] == needed, names
    agent = PlanningAgent(NesyGridEnv(spec), KnowledgeBase.from_world(spec))
    for seed in range(3):
        result = run_episode(agent.env, agent, seed=seed)
        assert result.success, (name, seed, agent.failures)
    assert not agent.failures


@pytest.mark.parametrize("name", SPECS)
def test_the_domain_check_agrees_on_each_feature(name: str) -> None:
    report = check_domain(load_spec(SPECS[name]), samples=10)
    assert report.ok, f"\n{report}"


def test_a_break_says_a_spawn_is_coming_and_waiting_brings_it() -> None:
    world = World(load_spec(SPAWN), seed=0)
    for action in ("approach_stump", "break"):
        assert world.step(action).ok
    z = abstract(world)
    assert z.holds(Fact(SPAWNING, ("mushroom",)))
    world.step("nop")
    world.step("nop")
    z = abstract(world)
    assert z.names[z.facing] == "mushroom" and not z.holds(Fact(SPAWNING, ("mushroom",)))


def test_what_is_behind_a_locked_door_cannot_be_approached_until_it_is_opened() -> None:
    spec = load_spec(DOOR)
    world = World(spec, seed=0)
    z = abstract(world)
    assert z.holds(Fact(BEHIND_DOOR, ("ore",))) and not z.holds(Fact(BEHIND_DOOR, ("key_box",)))
    assert z.holds(Fact("through_locked_door", ("ore",)))
    assert not world.step("approach_ore").ok
    for action in ("approach_key_box", "break", "select_key", "approach_locked_door", "use"):
        assert world.step(action).ok, action
    assert not abstract(world).holds(Fact(BEHIND_DOOR, ("ore",)))
    assert world.step("approach_ore").ok


def test_a_world_without_closed_doors_gets_no_door_facts() -> None:
    kb = KnowledgeBase.from_world("pogostick_full")  # its doors are open floor
    assert not any(BEHIND_DOOR in str(op.describe()) for op in kb.derivation().operators)


def _novelties() -> list[str]:
    from nesyworld.domains import DOMAINS_DIR

    return sorted(p.stem for p in (DOMAINS_DIR / "polycraft" / "novelties").glob("*.yaml"))


@pytest.mark.parametrize("name", _novelties())
def test_the_domain_check_agrees_under_every_shipped_novelty(name: str) -> None:
    from nesyworld.world.novelty.transforms import apply_novelties

    report = check_domain(apply_novelties("pogostick", [name]), samples=8)
    assert report.ok, f"\n{report}"
