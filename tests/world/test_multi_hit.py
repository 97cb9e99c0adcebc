"""Blocks that take several hits (`hits:`): parsing with located errors, damage kept per cell
in the state (snapshot, restore, save, load, transition), and the batched core's fallback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.state import WorldState
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec

HARD = """\
extends: pogostick
entity_types:
  diamond_ore: {hits: 3}
"""


def facing_ore(seed: int = 0) -> World:
    world = World(load_spec(HARD), seed=seed)
    assert world.step("approach_diamond_ore").ok and world.step("select_iron_pickaxe").ok
    return world


def test_hits_default_to_one_and_are_read() -> None:
    spec = load_spec(HARD)
    assert spec.entity_types["diamond_ore"].hits == 3
    assert spec.entity_types["oak_log"].hits == 1


@pytest.mark.parametrize("value, message", [
    ("0", r"<string>:3:23: value out of range .*expected an integer >= 1 and <= 1,000,000, "
           r"found 0"),
    ("two", r"<string>:3:23: wrong type .*expected an integer, found 'two'"),
])
def test_bad_hits_are_located(value: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        load_spec(HARD.replace("hits: 3", f"hits: {value}"))


def test_hits_on_an_unbreakable_type_are_an_error() -> None:
    text = HARD.replace("diamond_ore: {hits: 3}", "crafting_table: {hits: 2}")
    with pytest.raises(SpecError, match=r"<string>:3:26: 'crafting_table' takes 2 hits but "
                                        r"cannot be broken .*expected breakable: true"):
        load_spec(text)


def test_the_block_breaks_on_the_last_hit_only() -> None:
    world = facing_ore()
    cell = world.front(world.main)
    for taken in (1, 2):
        out = world.step("break")
        assert out.ok and world.state.damage == {cell: taken}
        assert world.front_type(world.main) == world.types.id("diamond_ore")
        assert "diamond" not in world.inventory_dict()
    assert world.step("break").ok
    assert world.front_type(world.main) == 0 and world.inventory_dict()["diamond"] == 9
    assert world.state.damage == {}  # the new content of the cell starts undamaged


def test_damage_is_per_cell() -> None:
    world = facing_ore()
    first = world.front(world.main)
    world.step("break")
    other = next(tuple(map(int, c)) for c in np.argwhere(
        world.state.grid == world.types.id("diamond_ore")) if tuple(c) != first)
    world.state.damage[other] = 2
    world.step("break")
    assert world.state.damage == {first: 2, other: 2}


def test_snapshot_restore_and_copy_keep_damage() -> None:
    world = facing_ore()
    world.step("break")
    snap = world.snapshot()
    world.step("break")
    world.step("break")
    assert world.state.damage == {}
    world.restore(snap)
    assert world.state.damage == {world.front(world.main): 1}
    assert world.state.copy().equals(world.state)
    other = world.state.copy()
    other.damage.clear()
    assert not other.equals(world.state)
    world.step("break")
    assert world.step("break").ok and "diamond" in world.inventory_dict()


def test_save_and_load_keep_damage(tmp_path: Path) -> None:
    world = facing_ore()
    world.step("break")
    path = tmp_path / "state.json"
    world.save(path)
    back = World(load_spec(HARD))
    back.load_state(path)
    assert back.state.equals(world.state) and back.state.damage == world.state.damage


def test_states_without_damage_write_no_damage_key() -> None:
    world = World("pogostick", seed=0)
    data = world.state.to_dict()
    assert "damage" not in data and "fired" not in data
    assert WorldState.from_dict(data).equals(world.state)


def test_transition_keeps_damage() -> None:
    world = facing_ore()
    world.step("break")
    world.transition_to(load_spec(HARD.replace("hits: 3", "hits: 4")))
    assert world.state.damage == {world.front(world.main): 1}


def test_the_batched_core_falls_back_to_worlds_and_says_why() -> None:
    batch = BatchWorld(load_spec(HARD), 2, seed=0)
    assert batch.engine == "worlds" and "hits" in batch.why_not
    world = facing_ore()
    batch.load(0, world.state)
    assert batch.export(0).damage == {}
    costs = batch.step(np.array([0]), np.array([world.action_index("break")]))
    assert costs[0] == 1.0 and batch.export(0).damage == {world.front(world.main): 1}
