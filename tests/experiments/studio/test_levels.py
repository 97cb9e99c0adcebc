"""The level editor's model: a painted level saves as a spec that lays out exactly the
painted map, and a level that cannot load says where in its YAML."""

from __future__ import annotations

import numpy as np
import pytest

from nesyworld.experiments.studio.levels import (
    Level,
    LevelError,
    agent_glyphs,
    derive_level,
    level_of,
    level_yaml,
    palette,
)
from nesyworld.world import World


def test_the_saved_level_lays_out_the_painted_map() -> None:
    base = World("pogostick")
    base.reset(5)
    level = level_of("pogostick", seed=5)
    world = World(level_yaml(level))
    for seed in (0, 1):  # pinned: the seed no longer matters
        world.reset(seed)
        assert np.array_equal(world.state.grid, base.state.grid)
        assert np.array_equal(world.state.pos, base.state.pos)


def test_painting_changes_the_derived_problem() -> None:
    level = level_of("pogostick")
    before = derive_level(level)["problem"]
    assert "(= (world diamond_ore) 4)" in before
    free = [(r, c) for r, row in enumerate(level.cells) for c, t in enumerate(row)
            if t == "air" and [r, c] not in level.agents.values()]
    for r, c in free[:3]:
        level.cells[r][c] = "diamond_ore"
    derived = derive_level(level)
    assert "(= (world diamond_ore) 7)" in derived["problem"]
    assert "(:action break_diamond_ore_with_iron_pickaxe" in derived["domain"]
    assert "ascii: |" in derived["yaml"]


def test_an_agent_on_a_wall_is_located_in_the_yaml() -> None:
    level = level_of("pogostick")
    level.agents["main_1"] = [0, 0]  # bedrock
    with pytest.raises(LevelError) as info:
        derive_level(level)
    where = info.value.where
    assert where.startswith("level.yaml:")
    line = int(where.split(":")[1])
    assert "at:" in level_yaml(level).splitlines()[line - 1]
    assert "blocked" in info.value.message and info.value.expected


@pytest.mark.parametrize(("change", "words"), [
    (lambda lv: setattr(lv, "name", "9 bad"), "bad level name"),
    (lambda lv: lv.cells[3].__setitem__(3, "unobtainium"), "unknown entity type"),
    (lambda lv: lv.cells[3].pop(), "differ in length"),
])
def test_bad_levels_say_what_is_wrong(change: object, words: str) -> None:
    level = level_of("pogostick")
    change(level)  # type: ignore[operator]
    with pytest.raises(LevelError, match=words):
        level_yaml(level)


def test_from_json_checks_its_input() -> None:
    with pytest.raises(LevelError, match="no 'cells'"):
        Level.from_json({"base": "pogostick", "name": "x"})
    with pytest.raises(LevelError, match="rows of type names"):
        Level.from_json({"base": "pogostick", "name": "x", "cells": [[1, 2]]})


def test_palette_and_glyphs() -> None:
    names = [t["name"] for t in palette("pogostick")]
    assert "oak_log" in names and "crafting_table" in names
    assert "agent" not in names and "pogo_stick" not in names  # actors and inventory items
    assert agent_glyphs("pogostick")["main_1"] == "A"
