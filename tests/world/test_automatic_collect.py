"""Automatic collect rules (NovelGym's floating objects): an env-driven agent takes such an
entity from any cell beside it at the end of each of its steps that was not refused; agents
with a controller never do; the derived `approach_<type>` says the entity is taken on arrival.
"""

from __future__ import annotations

from nesyworld.symbolic.derivation.domain_check import check_domain
from nesyworld.world.actions.schema import FACING, INVENTORY, WORLD, CountChange, SetFact
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec

SHELLS = """\
name: shells
entity_types:
  air: {class: floor}
  bedrock: {class: block}
  shell: {collect: {gives: {pearl: 1}, removes: true, automatic: true}}
  agent: {class: actor}
  pearl: {class: item}
actions:
  move_forward: {class: move, direction: forward}
  rotate_right: {class: rotate, direction: right}
  approach: {class: approach}
  collect: {class: collect}
  nop: {class: nop}
action_sets:
  main: [move_forward, rotate_right, approach, collect, nop]
  npc: [move_forward]
map:
  ascii: |
    #######
    #.....#
    #..s..#
    #.....#
    #######
  legend: {".": air, "#": bedrock, s: shell}
agents:
  player: {type: agent, at: [1, 1], facing: east, action_set: main}
  crab: {type: agent, controller: stationary, action_set: npc, at: [3, 2], facing: east}
goal:
  inventory: {pearl: 1}
"""
SHELL = (2, 3)


def shells() -> World:
    return World(load_spec(SHELLS), seed=0)


def pearls(world: World, agent: int = 0) -> int:
    return int(world.state.inventory[agent, world.types.id("pearl")])


def test_a_step_that_ends_beside_the_entity_takes_it() -> None:
    world = shells()
    assert world.act(world.main, "move_forward").ok  # (1, 2): diagonal to the shell
    assert pearls(world) == 0 and world.state.grid[SHELL] == world.types.id("shell")
    assert world.act(world.main, "move_forward").ok  # (1, 3): right above it
    assert pearls(world) == 1 and world.state.grid[SHELL] == 0


def test_approach_takes_it_on_arrival() -> None:
    world = shells()
    assert world.act(world.main, "approach_shell").ok
    assert pearls(world) == 1
    assert world.types.id("shell") not in world.state.grid


def test_a_refused_step_takes_nothing_and_a_controlled_agent_never_does() -> None:
    world = shells()
    crab = world.agent_names.index("crab")
    assert world.act(crab, "move_forward").ok  # the crab now stands below the shell
    assert world.state.grid[SHELL] == world.types.id("shell")
    world.move_agent(world.main, (1, 3))  # beside it, as an event or a reset could leave it
    world.state.facing[world.main] = 0  # north, into the wall
    assert not world.act(world.main, "move_forward").ok
    assert pearls(world) == 0
    assert world.act(world.main, "nop").ok
    assert pearls(world) == 1 and pearls(world, crab) == 0


def test_the_derived_approach_says_it_is_taken_and_there_is_no_collect_operator() -> None:
    world = shells()
    ops = {op.name: op for op in world.actions["approach"].operators()}
    effects = set(ops["approach_shell"].effects)
    assert {SetFact(FACING, ("air",), True), CountChange(INVENTORY, "pearl", 1),
            CountChange(WORLD, "shell", -1), CountChange(WORLD, "air", 1)} <= effects
    assert SetFact(FACING, ("shell",), True) not in effects
    assert world.actions["collect"].operators() == []  # it is never faced at a step's start


def test_the_domain_check_agrees_with_the_world() -> None:
    report = check_domain(load_spec(SHELLS), samples=4, seed=0)
    assert report.ok, report.to_table()
    assert report.operator("approach_shell").agreements == 4
