"""Events (`events:`): parsing with located errors, firing at their step or on a condition,
once per episode and deterministically, kept across snapshots, saves and transitions; and
mid-episode novelties whose changes a running world could not take are located errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.injection import NoveltyInjector
from nesyworld.world.novelty.transforms import apply_novelties, load_novelty
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec

EVENTS = """\
extends: pogostick
entity_types:
  crafting_table: {properties: {on_fire: false}}
events:
  - at: 3
    spawn: {type: oak_log, near: agent, count: 2}
  - when: {inventory: {oak_log: 1}}
    remove: {type: block_of_platinum, count: 2}
  - at: 5
    move: {type: trader, to: [3, 4]}
  - at: 6
    set: {type: crafting_table, property: on_fire, value: true}
  - at: 7
    move: {type: diamond_ore, near: agent, count: all}
"""


def spec_with(events: str) -> str:
    return EVENTS.split("events:")[0] + "events:\n" + events


def count(world: World, name: str) -> int:
    return int(world.counts()[world.types.id(name)])


def nops(world: World, n: int) -> None:
    for _ in range(n):
        world.step("nop")


def test_events_are_read() -> None:
    spawn, remove, move, set_, move_all = load_spec(EVENTS).events
    assert (spawn.kind, spawn.at, spawn.count, spawn.near) == ("spawn", 3, 2, "main_1")
    assert (remove.at, dict(remove.inventory), remove.count) == (None, {"oak_log": 1}, 2)
    assert (move.cell, move.count) == ((3, 4), 1)
    assert (set_.property, set_.value, set_.count) == ("on_fire", True, None)
    assert move_all.count is None
    assert load_spec("pogostick").events == ()


@pytest.mark.parametrize("event, message", [
    ("  - spawn: {type: oak_log}\n", r"<string>:5:5: an event without a trigger"),
    ("  - at: 2\n", r"<string>:5:5: an event must do one thing .*expected exactly one of spawn"),
    ("  - {at: 2, spawn: {type: oak_log}, remove: {type: oak_log}}\n",
     r"<string>:5:5: an event must do one thing"),
    ("  - {at: 0, spawn: {type: oak_log}}\n", r"<string>:5:10: value out of range"),
    ("  - {at: 2, explode: {type: oak_log}}\n", r"<string>:5:13: unknown key 'explode'"),
    ("  - {at: 2, spawn: {type: oak_lg}}\n", r"<string>:5:27: unknown entity type 'oak_lg'"),
    ("  - {at: 2, spawn: {type: oak_log, at: [40, 1]}}\n",
     r"<string>:5:40: cell outside the map .*\[16, 16\]"),
    ("  - {at: 2, spawn: {type: oak_log, near: bob}}\n", r"<string>:5:42: unknown agent 'bob'"),
    ("  - {at: 2, spawn: {type: trader}}\n", r"<string>:5:27: cannot spawn 'trader': it is an "
                                            r"agent's type"),
    ("  - {at: 2, move: {type: trader}}\n", r"<string>:5:19: a move needs one destination"),
    ("  - {at: 2, set: {type: crafting_table, property: burning, value: true}}\n",
     r"<string>:5:51: 'crafting_table' has no property 'burning'.*\(on_fire\)"),
    ("  - {at: 2, set: {type: crafting_table, property: on_fire, value: 3}}\n",
     r"<string>:5:67: wrong type .*a value like the property's default \(False\)"),
    ("  - {when: {inventory: {stick: 0}}, spawn: {type: oak_log}}\n",
     r"<string>:5:32: value out of range"),
    ("  - {at: 2, remove: {type: oak_log, count: some}}\n", r"<string>:5:44: wrong type"),
])
def test_bad_events_are_located(event: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        load_spec(spec_with(event))


def test_events_must_be_a_list() -> None:
    with pytest.raises(SpecError, match=r"<string>:5:3: wrong type .*a list of events"):
        load_spec(EVENTS.split("events:")[0] + "events:\n  at: 3\n")


def test_a_spawn_fires_at_its_step_near_the_agent() -> None:
    world = World(load_spec(EVENTS), seed=0)
    logs = count(world, "oak_log")
    nops(world, 2)
    assert count(world, "oak_log") == logs and world.state.fired == ()
    world.step("nop")
    assert count(world, "oak_log") == logs + 2 and world.state.fired == (0,)
    r, c = world.state.pos[world.main]
    new = [tuple(x) for x in np.argwhere(world.state.grid == world.types.id("oak_log"))
           if max(abs(x[0] - r), abs(x[1] - c)) == 1]
    assert len(new) >= 2  # next to the agent
    nops(world, 5)
    assert count(world, "oak_log") == logs + 2  # once per episode


def test_a_condition_fires_once_when_it_first_holds() -> None:
    world = World(load_spec(EVENTS), seed=0)
    platinum = count(world, "block_of_platinum")
    nops(world, 2)
    assert count(world, "block_of_platinum") == platinum
    assert world.step("approach_oak_log").ok and world.step("break").ok
    assert count(world, "block_of_platinum") == platinum - 2 and 1 in world.state.fired
    assert world.step("approach_oak_log").ok and world.step("break").ok
    assert count(world, "block_of_platinum") == platinum - 2


def test_move_and_set_change_the_map() -> None:
    world = World(load_spec(EVENTS), seed=1)
    trader = world.agent_names.index("trader_103")
    assert world.state.grid[3, 4] == 0 and tuple(world.state.pos[trader]) != (3, 4)
    nops(world, 4)
    assert tuple(world.state.pos[trader]) != (3, 4)
    world.step("nop")
    assert tuple(world.state.pos[trader]) == (3, 4)
    assert world.state.grid[3, 4] == world.types.id("trader")
    table = tuple(np.argwhere(world.state.grid == world.types.id("crafting_table"))[0])
    assert world.state.props[table]["on_fire"] is False
    world.step("nop")
    assert world.state.props[table]["on_fire"] is True
    ores = count(world, "diamond_ore")
    world.step("nop")
    assert count(world, "diamond_ore") == ores
    r, c = world.state.pos[world.main]
    near = [max(abs(x[0] - r), abs(x[1] - c))
            for x in np.argwhere(world.state.grid == world.types.id("diamond_ore"))]
    assert max(near) <= 2  # every ore moved to the nearest free cells around the agent


def test_a_move_keeps_damage_and_properties() -> None:
    text = spec_with("  - {at: 2, move: {type: crafting_table, to: [1, 1]}}\n")
    world = World(load_spec(text), seed=0)
    table = tuple(int(v) for v in np.argwhere(
        world.state.grid == world.types.id("crafting_table"))[0])
    world.state.props[table]["on_fire"] = True
    world.state.damage[table] = 1
    nops(world, 2)
    dest = tuple(int(v) for v in np.argwhere(
        world.state.grid == world.types.id("crafting_table"))[0])
    assert dest != table and world.state.props[dest] == {"on_fire": True}
    assert world.state.damage == {dest: 1}


def test_events_are_deterministic_by_seed_and_restore() -> None:
    def run(seed: int) -> World:
        world = World(load_spec(EVENTS), seed=seed)
        nops(world, 8)
        return world

    assert run(3).state.equals(run(3).state)
    world = World(load_spec(EVENTS), seed=4)
    nops(world, 2)
    snap = world.snapshot()
    nops(world, 6)
    after = world.state.copy()
    world.restore(snap)
    assert world.state.fired == ()
    nops(world, 6)
    assert world.state.equals(after)


def test_fired_events_survive_save_load_and_reset(tmp_path: Path) -> None:
    world = World(load_spec(EVENTS), seed=0)
    nops(world, 4)
    path = tmp_path / "state.json"
    world.save(path)
    back = World(load_spec(EVENTS))
    back.load_state(path)
    assert back.state.fired == (0,) and back.state.equals(world.state)
    world.reset()
    assert world.state.fired == ()


def test_a_transition_keeps_what_fired() -> None:
    world = World(load_spec(EVENTS), seed=0)
    nops(world, 3)
    world.transition_to(load_spec(EVENTS + "max_steps: 300\n"))
    assert world.state.fired == (0,)
    logs = count(world, "oak_log")
    nops(world, 2)
    assert count(world, "oak_log") == logs  # the spawn does not fire again


def test_the_batched_core_falls_back_to_worlds() -> None:
    batch = BatchWorld(load_spec(EVENTS), 2, seed=0)
    assert batch.engine == "worlds" and "events" in batch.why_not


# --- mid-episode novelties -----------------------------------------------------------------
MID = """\
novelty: late
category: nuisance
level: events
description: something happens at step 4
inject: {step: 4}
changes:
"""


@pytest.mark.parametrize("changes, message", [
    ("  map:\n    objects:\n      oak_log: {quantity: 9, room: main}\n",
     r"late.yaml:8:5: the map's layout \('map.objects'\) cannot change mid-episode"),
    ("  agents:\n    main_1: {inventory: {stick: 3}}\n",
     r"late.yaml:8:14: agent 'main_1''s body \('agents.main_1.inventory'\) cannot change"),
    ("  agents:\n    trader_103: null\n", r"late.yaml:8:5: removing agent 'trader_103'"),
    ("  lifelong: {step_reward: 1}\n", r"late.yaml:7:3: 'lifelong' cannot change mid-episode"),
])
def test_changes_a_running_world_cannot_take_are_located(tmp_path: Path, changes: str,
                                                         message: str) -> None:
    path = tmp_path / "late.yaml"
    path.write_text(MID + changes)
    with pytest.raises(SpecError, match=message) as info:
        load_novelty(path)
    assert "events: [...]" in str(info.value)


def test_a_map_transformation_mid_episode_is_located(tmp_path: Path) -> None:
    path = tmp_path / "late.yaml"
    path.write_text(MID.replace("changes:\n", "transforms:\n  - {kind: remove_objects, "
                                              "types: [oak_log]}\n"))
    with pytest.raises(SpecError, match=r"late.yaml:7:6: transformation 'remove_objects'"):
        load_novelty(path)
    path.write_text(MID.replace("changes:\n", "transforms:\n  - {kind: scale_costs, factor: 2}\n"))
    load_novelty(path)  # costs take effect mid-episode


def test_what_a_running_world_takes_still_loads(tmp_path: Path) -> None:
    load_novelty("lightning")
    path = tmp_path / "late.yaml"
    path.write_text(MID + "  map: {surround: []}\n  agents:\n    trader_103: {controller: "
                          "random_walk}\n  events:\n    - {at: 6, spawn: {type: oak_log}}\n")
    assert load_novelty(path).inject.step == 4
    path.write_text(MID.replace("{step: 4}", "{episode: 1}")
                    + "  map:\n    objects:\n      oak_log: {quantity: 9, room: main}\n")
    load_novelty(path)  # at a reset the whole map is rebuilt


def test_a_mid_episode_novelty_brings_its_events(tmp_path: Path) -> None:
    path = tmp_path / "late.yaml"
    path.write_text(MID + "  events:\n    - {at: 6, spawn: {type: oak_log, near: agent}}\n")
    env = NoveltyInjector(NesyGridEnv("pogostick"), [path])
    env.reset(seed=0)
    world = env.unwrapped.world
    logs = count(world, "oak_log")
    nop = env.unwrapped.action_names.index("nop")
    for _ in range(5):
        env.step(nop)
    assert count(env.unwrapped.world, "oak_log") == logs
    env.step(nop)
    assert count(env.unwrapped.world, "oak_log") == logs + 1
    assert apply_novelties("pogostick", [path]).events[0].at == 6
