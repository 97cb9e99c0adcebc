"""Shared fixtures for the simulator tests: a small hand-made world with fixed positions.

The map below is an ASCII level, so no placement is random; the only NPC is a stationary
trader placed with `at:`. Every action class has something to act on:

      col 0123456789AB
    r0    ..##########     (0,0) and (0,1) touch the top edge of the map (no border)
    r1    #.........R#     R: the trader agent (placed with `at:`, not a glyph)
    r2    #.T.D.C..b.#     T tree, D diamond ore, C crafting table (on fire), b berry bush
    r3    #.A........#     A: the main agent (placed with `at:`), facing north -> the tree
    r4    #.......##.#
    r5    #......#G#.#     G gold ore, walled off on all four sides
    r6    ############
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

from nesyworld.world.simulation.world import Outcome, World
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

MINI_SPEC = """\
name: mini
description: every action class on one small fixed map
entity_types:
  air: {class: floor}
  bedrock: {class: block}
  oak_log:
    breakable: true
    drops: {oak_log: 1}
    on_break: {spawn: sapling, after: 3}
    collect: {holding: tree_tap, gives: {rubber: 1}}
  diamond_ore:
    breakable: true
    break_tool: iron_pickaxe
    drops: {diamond: 2}
  gold_ore:
    breakable: true
    break_tool: iron_pickaxe
  berry_bush:
    collect: {gives: {berry: 1}, removes: true}
  crafting_table:
    class: station
    properties: {on_fire: true}
    disabled_when: {on_fire: true}
    use:
      holding: water_bucket
      when: {on_fire: true}
      sets: {on_fire: false}
      consumes: {water_bucket: 1}
      gives: {bucket: 1}
  sapling:
    class: item
    breakable: true
    placeable: true
    grows_into: {spawn: oak_log, after: 5}
  agent: {class: actor}
  trader: {class: actor}
  iron_pickaxe: {class: item}
  tree_tap: {class: item}
  water_bucket: {class: item}
  bucket: {class: item}
  rubber: {class: item}
  berry: {class: item}
  planks: {class: item}
  stick: {class: item}
  diamond: {class: item}
  titanium: {class: item}
actions:
  move_forward: {class: move, direction: forward}
  move_backward: {class: move, direction: backward}
  move_left: {class: move, direction: left}
  move_right: {class: move, direction: right}
  rotate_left: {class: rotate, direction: left}
  rotate_right: {class: rotate, direction: right}
  approach: {class: approach}
  break: {class: break}
  collect: {class: collect}
  craft: {class: craft}
  trade: {class: trade}
  select: {class: select}
  deselect: {class: deselect}
  place: {class: place}
  use: {class: use}
  nop: {class: nop}
  give_up: {class: give_up}
action_sets:
  main: [move_*, rotate_*, approach, break, collect, craft, trade, select, deselect, place,
         use, nop, give_up]
  npc: [nop]
recipes:
  planks: {inputs: {oak_log: 1}, outputs: {planks: 4}}
  stick: {inputs: {planks: 2}, outputs: {stick: 4}, station: crafting_table}
trades:
  titanium: {trader: trader, inputs: {diamond: 1}, outputs: {titanium: 1}}
map:
  ascii: |
    ..##########
    #..........#
    #.T.D.C..b.#
    #..........#
    #.......##.#
    #......#G#.#
    ############
  legend:
    ".": air
    "#": bedrock
    T: oak_log
    D: diamond_ore
    C: crafting_table
    b: berry_bush
    G: gold_ore
agents:
  player:
    type: agent
    at: [3, 2]
    facing: north
    action_set: main
    inventory: {iron_pickaxe: 1, tree_tap: 1, water_bucket: 2, sapling: 1}
  merchant:
    type: trader
    controller: stationary
    action_set: npc
    at: [1, 10]
    facing: west
goal:
  inventory: {titanium: 1}
max_steps: 100
"""

# Fixed cells of MINI_SPEC. Test modules cannot import this file (pytest runs with
# --import-mode=importlib), so they get these through the `cells` and `play` fixtures.
CELLS = SimpleNamespace(
    tree=(2, 2),
    ore=(2, 4),
    table=(2, 6),
    bush=(2, 9),
    gold=(5, 8),
    player_start=(3, 2),
    trader_at=(1, 10),
    edge=(0, 1),
)


@pytest.fixture(scope="session")
def mini_spec() -> WorldSpec:
    return load_spec(MINI_SPEC)


@pytest.fixture
def world(mini_spec: WorldSpec) -> World:
    """A fresh mini world: the player at (3, 2) facing north (the tree)."""
    return World(mini_spec, seed=0)


@pytest.fixture(scope="session")
def cells() -> SimpleNamespace:
    return CELLS


@pytest.fixture(scope="session")
def pogostick_spec() -> WorldSpec:
    return load_spec("pogostick")


def play_round(world: World, action: str | int) -> tuple[Outcome, list[tuple[int, Outcome]]]:
    """One round exactly as `run_actions` plays it (the main agent acts, every NPC acts, the
    clock ticks), but returning each NPC's outcome too. Mirrors `World.step_npcs`."""
    main = world.act(world.main, action)
    npcs = []
    for i, ctrl in enumerate(world.controllers):
        if ctrl is not None:
            choice = ctrl.choose()
            if choice is not None:
                npcs.append((i, world.act(i, choice)))
    world.end_round()
    return main, npcs


@pytest.fixture(scope="session")
def play() -> Callable[[World, str | int], tuple[Outcome, list[tuple[int, Outcome]]]]:
    return play_round
