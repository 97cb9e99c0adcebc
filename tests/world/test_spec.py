"""Spec loading: every mistake a hand-written spec can make gives a located, useful SpecError."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec

DOMAINS = Path(__file__).resolve().parents[2] / "domains"

BASE = """\
name: tiny
entity_types:
  air: {class: floor}
  bedrock: {class: block}
  stone:
    breakable: true
  agent: {class: actor}
  trader: {class: actor}
  pebble: {class: item}
actions:
  move: {class: move}
  break: {class: break}
  craft: {class: craft}
  nop: {class: nop}
action_sets:
  main: [move, break, craft, nop]
  npc: [nop]
recipes:
  pebble: {inputs: {stone: 1}, outputs: {pebble: 2}}
map:
  size: [6, 8]
  rooms:
    main: {start: [1, 1], end: [4, 6]}
  objects:
    stone: {quantity: 3, room: main}
    bedrock: {at: [[2, 3]]}
agents:
  hero:
    type: agent
    at: [1, 1]
    facing: east
  seller:
    type: trader
    controller: stationary
    action_set: npc
    room: main
goal:
  inventory: {pebble: 1}
"""


def variant(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def where(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """1-based line and column of `needle` (unique in `text`) plus `offset` characters."""
    assert text.count(needle) == 1, needle
    i = text.index(needle) + offset
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def error_of(text: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        load_spec(text)
    return info.value


def test_base_spec_is_valid():
    spec = load_spec(BASE)
    assert spec.name == "tiny"
    assert spec.main_agent == "hero"
    assert spec.map.size == (6, 8)
    assert dict(spec.goal) == {"pebble": 1}
    World(spec, seed=0)  # and it builds


# Each case: (id, broken text, the token the error must point at, offset into it,
#             words the message must contain, key path).
CASES = [
    (
        "yaml_syntax",
        variant("  stone:\n    breakable: true\n", "  stone:\n    breakable: true: yes\n"),
        "true: yes",
        4,
        ["YAML syntax error", "mapping values are not allowed"],
        None,
    ),
    (
        "unknown_top_level_key",
        variant("name: tiny\n", "name: tiny\nsize_of_world: 3\n"),
        "size_of_world",
        0,
        ["unknown key 'size_of_world'", "entity_types"],
        "size_of_world",
    ),
    (
        "unknown_entity_key",
        variant("    breakable: true\n", "    breakable: true\n    hardness: 3\n"),
        "hardness",
        0,
        ["unknown key 'hardness'", "breakable", "drops"],
        "entity_types.stone.hardness",
    ),
    (
        "wrong_type_quantity",
        variant("{quantity: 3, room: main}", '{quantity: "five", room: main}'),
        '"five"',
        0,
        ["wrong type", "an integer", "'five'"],
        "map.objects.stone.quantity",
    ),
    (
        "unknown_action_class",
        variant("move: {class: move}", "move: {class: mvoe}"),
        "mvoe",
        0,
        ["unknown action class 'mvoe'", "move"],
        "actions.move.class",
    ),
    (
        "unknown_entity_class",
        variant("  stone:\n", "  stone:\n    class: rock\n"),
        "class: rock",
        7,
        ["unknown entity class 'rock'", "block", "floor"],
        "entity_types.stone.class",
    ),
    (
        "unknown_controller",
        variant("controller: stationary", "controller: sleepy"),
        "sleepy",
        0,
        ["unknown controller 'sleepy'", "stationary", "random_walk"],
        "agents.seller.controller",
    ),
    (
        "unknown_recipe_station",
        variant("outputs: {pebble: 2}}", "outputs: {pebble: 2}, station: anvil}"),
        "anvil",
        0,
        ["unknown entity type 'anvil'", "entity_types"],
        "recipes.pebble.station",
    ),
    (
        "object_at_outside",
        variant("at: [[2, 3]]", "at: [[2, 9]]"),
        "[2, 9]",
        0,
        ["outside the map", "[2, 9]", "0..7"],
        "map.objects.bedrock.at.0",
    ),
    (
        "room_end_outside",
        variant("end: [4, 6]", "end: [4, 8]"),
        "[4, 8]",
        0,
        ["outside the map", "[4, 8]"],
        "map.rooms.main.end",
    ),
    (
        "agent_at_outside",
        variant("at: [1, 1]", "at: [6, 1]"),
        "[6, 1]",
        0,
        ["outside the map", "6x8"],
        "agents.hero.at",
    ),
    (
        "unknown_action_in_set",
        variant("main: [move, break, craft, nop]", "main: [move, brake, craft, nop]"),
        "brake",
        0,
        ["unknown action 'brake'", "actions"],
        "action_sets.main.1",
    ),
    (
        "cyclic_hierarchy",
        variant(
            "  pebble: {class: item}\n",
            "  pebble: {class: item}\n"
            "  rock: {class: category, parents: [mineral]}\n"
            "  mineral: {class: category, parents: [rock]}\n",
        ),
        "[mineral]",
        0,
        ["'rock' is its own ancestor", "acyclic"],
        "entity_types.rock.parents",
    ),
    (
        "duplicate_key",
        variant(
            "  trader: {class: actor}\n", "  trader: {class: actor}\n  trader: {class: block}\n"
        ),
        "trader: {class: block}",
        0,
        ["duplicate key 'trader'"],
        None,
    ),
    (
        "unknown_rule_key",
        variant("    breakable: true\n", "    breakable: true\n    collect: {hold: pebble}\n"),
        "hold",
        0,
        ["unknown key 'hold'", "holding"],
        "entity_types.stone.collect.hold",
    ),
    (
        "automatic_use_rule",
        variant("    breakable: true\n",
                "    breakable: true\n    use: {gives: {pebble: 1}, automatic: true}\n"),
        "true}",
        0,
        ["only a collect rule can be automatic", "automatic under collect"],
        "entity_types.stone.use.automatic",
    ),
    (
        "automatic_rule_with_a_condition",
        variant("    breakable: true\n", "    breakable: true\n    collect: {holding: pebble, "
                "removes: true, automatic: true}\n"),
        "pebble, removes",
        0,
        ["an automatic collect rule has no holding"],
        "entity_types.stone.collect.holding",
    ),
    (
        "automatic_rule_that_keeps_the_entity",
        variant("    breakable: true\n",
                "    breakable: true\n    collect: {gives: {pebble: 1}, automatic: true}\n"),
        "{gives",
        0,
        ["must remove the entity", "removes: true"],
        "entity_types.stone.collect.removes",
    ),
    (
        "invalid_facing",
        variant("facing: east", "facing: up"),
        "up\n",
        0,
        ["invalid value", "north, east, south or west", "'up'"],
        "agents.hero.facing",
    ),
]


@pytest.mark.parametrize(
    ("text", "token", "offset", "words", "key_path"),
    [pytest.param(*c[1:], id=c[0]) for c in CASES],
)
def test_spec_error_is_located_and_explained(text, token, offset, words, key_path):
    err = error_of(text)
    assert err.location is not None
    assert err.location.file == "<string>"
    assert (err.location.line, err.location.column) == where(text, token, offset)
    message = str(err)
    assert message.startswith(f"<string>:{err.location.line}:{err.location.column}: ")
    for word in words:
        assert word in message, (word, message)
    if key_path is not None:
        assert err.key_path == key_path


def test_unobtainable_goal_item_is_reported_on_its_line():
    text = variant("  pebble: {class: item}\n", "  pebble: {class: item}\n  gem: {class: item}\n")
    text = variant("inventory: {pebble: 1}", "inventory: {gem: 1}", text)
    err = error_of(text)
    assert "goal item 'gem' can never be obtained" in str(err)
    assert err.found == "gem"
    assert err.key_path == "goal.inventory.gem"
    assert err.location.line == where(text, "inventory: {gem: 1}")[0]


def test_goal_obtainable_only_through_a_chain_is_accepted():
    # pebble needs stone, which only the map's breakable stones drop
    text = variant("  pebble: {class: item}\n", "  pebble: {class: item}\n  gem: {class: item}\n")
    text = variant(
        "recipes:\n", "recipes:\n  gem: {inputs: {pebble: 2}, outputs: {gem: 1}}\n", text
    )
    text = variant("inventory: {pebble: 1}", "inventory: {gem: 1}", text)
    assert dict(load_spec(text).goal) == {"gem": 1}
    # ... and without any stone on the map, the chain is broken
    broken = variant("    stone: {quantity: 3, room: main}\n", "", text)
    assert "can never be obtained" in str(error_of(broken))


GEM_ONLY_BEHIND = variant("  pebble: {class: item}\n", "  pebble: {class: item}\n"
                          "  gem: {class: item}\n  ore: {breakable: true, drops: {gem: 1}}\n")
GEM_ONLY_BEHIND = variant("inventory: {pebble: 1}", "inventory: {gem: 1}", GEM_ONLY_BEHIND)


@pytest.mark.parametrize("how", [
    "  stone:\n    breakable: true\n    leaves: ore\n",       # a broken stone leaves ore
    "  stone:\n    breakable: true\n    on_break: {spawn: ore, after: 3}\n",
])
def test_a_goal_behind_what_breaking_leaves_is_obtainable(how: str) -> None:
    """The ore appears only where a stone was broken; breaking it gives the goal's gem."""
    text = variant("  stone:\n    breakable: true\n", how, GEM_ONLY_BEHIND)
    assert dict(load_spec(text).goal) == {"gem": 1}
    assert "can never be obtained" in str(error_of(GEM_ONLY_BEHIND))


def test_a_goal_behind_what_a_rule_turns_its_cell_into_is_obtainable() -> None:
    text = variant("  stone:\n    breakable: true\n",
                   "  stone:\n    collect: {gives: {pebble: 1}, removes: true, becomes: ore}\n",
                   GEM_ONLY_BEHIND)
    text = variant("  break: {class: break}\n", "  break: {class: break}\n"
                   "  collect: {class: collect}\n", text)
    text = variant("main: [move, break, craft, nop]", "main: [move, break, collect, craft, nop]",
                   text)
    assert dict(load_spec(text).goal) == {"gem": 1}


def test_a_goal_from_a_door_or_an_event_spawn_is_obtainable() -> None:
    """A type only the layout's doors put on the map, or only an event spawns, counts."""
    door = variant("  stone:\n    breakable: true\n",
                   "  stone:\n    breakable: true\n  vault:\n    breakable: true\n"
                   "    drops: {gem: 1}\n", GEM_ONLY_BEHIND)
    assert "can never be obtained" in str(error_of(door))
    door = variant("    bedrock: {at: [[2, 3]]}\n",
                   "    bedrock: {at: [[2, 3]]}\n  walls:\n    - {from: [1, 5], to: [4, 5]}\n"
                   "  doors:\n    - {at: [2, 5], type: vault}\n", door)
    assert dict(load_spec(door).goal) == {"gem": 1}
    event = GEM_ONLY_BEHIND + "events:\n  - {at: 3, spawn: {type: ore, near: agent}}\n"
    assert dict(load_spec(event).goal) == {"gem": 1}


# Errors about a mapping key (a type name used as the key of a count mapping, or a whole
# entry such as an agent) are located at the key's value instead of at the key; in block
# style that is the next line, not the line with the offending name.
KEY_CASES = [
    pytest.param(
        variant("{inputs: {stone: 1}", "{inputs: {flint: 1}"),
        "flint",
        "unknown entity type 'flint'",
        id="recipe_input",
    ),
    pytest.param(
        variant("    stone: {quantity: 3, room: main}\n", "    stonee:\n      quantity: 3\n"),
        "stonee",
        "unknown entity type 'stonee'",
        id="map_object_block_style",
    ),
    pytest.param(
        variant("    facing: east\n", "    facing: east\n    inventory:\n      pebbel: 1\n"),
        "pebbel",
        "unknown entity type 'pebbel'",
        id="agent_inventory",
    ),
    pytest.param(
        variant("    controller: stationary\n", ""),
        "seller:",
        "two agents without a controller",
        id="second_main_agent",
    ),
    pytest.param(
        variant("  move: {class: move}\n", "  move:\n    cost: 2\n"),
        "move:\n",
        "action 'move' has no class",
        id="action_without_class",
    ),
]


@pytest.mark.parametrize(("text", "token", "message"), KEY_CASES)
def test_error_about_a_key_is_located_at_the_key(text, token, message):
    err = error_of(text)
    assert message in str(err)
    assert (err.location.line, err.location.column) == where(text, token)


@pytest.mark.parametrize(("text", "token", "message"), KEY_CASES)
def test_error_about_a_key_is_reported_near_it(text, token, message):
    err = error_of(text)
    assert message in str(err)
    line = where(text, token)[0]
    assert err.location.line in (line, line + 1)


ASCII = variant(
    """  size: [6, 8]
  rooms:
    main: {start: [1, 1], end: [4, 6]}
  objects:
    stone: {quantity: 3, room: main}
    bedrock: {at: [[2, 3]]}
""",
    """  ascii: |
    ########
    #..s...#
    #......#
    #....s.#
    #......#
    ########
  legend: {"#": bedrock, ".": air, s: stone}
  rooms:
    main: {start: [1, 1], end: [4, 6]}
""",
)


def test_ascii_variant_is_valid():
    world = World(load_spec(ASCII), seed=0)
    assert world.state.grid.shape == (6, 8)
    assert world.counts()[world.types.id("stone")] == 2


def test_unknown_glyph_is_reported():
    text = variant("    #......#\n    ########", "    #......#\n    ###x####", ASCII)
    err = error_of(text)
    assert "glyph 'x' has no type" in str(err)
    assert err.key_path == "map.ascii"


def test_unknown_glyph_is_located_at_the_glyph():
    text = variant("    #......#\n    ########", "    #......#\n    ###x####", ASCII)
    err = error_of(text)
    assert (err.location.line, err.location.column) == where(text, "x")


def test_explicit_glyphs_win_over_derived_ones():
    # `tree_tap` has no glyph; a derived one must not steal the `T` declared by oak_log
    text = variant(
        "  pebble: {class: item}\n",
        "  pebble: {class: item}\n  oak_log: {glyph: T, breakable: true}\n"
        "  tree_tap: {class: item}\n  trellis: {class: block}\n",
        ASCII,
    )
    text = variant("    #..s...#\n", "    #..T...#\n", text)
    world = World(load_spec(text), seed=0)
    assert world.types.names[world.state.grid[1, 3]] == "oak_log"
    assert len(set(world.types.glyphs)) == len(world.types.glyphs)


def test_agent_placed_on_a_wall_is_a_located_spec_error():
    text = variant("at: [1, 1]", "at: [0, 1]", ASCII)
    with pytest.raises(SpecError) as info:
        World(load_spec(text), seed=0)
    assert "blocked cell" in str(info.value)
    assert info.value.location is not None
    assert (info.value.location.line, info.value.location.column) == where(text, "[0, 1]")


def test_agent_placed_on_a_wall_is_refused():
    text = variant("at: [1, 1]", "at: [0, 1]", ASCII)
    with pytest.raises(SpecError, match="blocked cell"):
        World(load_spec(text), seed=0)


def test_error_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    text = variant("move: {class: move}", "move: {class: mvoe}")
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    line, col = where(text, "mvoe")
    assert info.value.location.file == str(path)
    assert str(info.value).startswith(f"{path}:{line}:{col}: unknown action class 'mvoe'")
    with pytest.raises(SpecError):
        load_spec(str(path))


def test_valid_spec_file_loads_with_its_path_as_source(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(BASE)
    spec = load_spec(path)
    assert spec.source == str(path)
    assert spec.name == "tiny"


def shipped_world_specs() -> list[Path]:
    out = []
    for path in sorted(DOMAINS.glob("*/*.yaml")):
        data = yaml.safe_load(path.read_text())
        if isinstance(data, dict) and "entity_types" in data:
            out.append(path)
    return out


def test_there_are_shipped_specs():
    assert any(p.stem == "pogostick" for p in shipped_world_specs())


@pytest.mark.parametrize("path", shipped_world_specs(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_shipped_spec_loads_and_builds(path):
    spec = load_spec(path)
    assert spec.entity_types and spec.actions and spec.goal
    world = World(spec, seed=0)
    assert world.action_names()
    assert world.state.grid.shape == spec.map.size


def test_shipped_spec_by_short_name():
    spec = load_spec("pogostick")
    assert spec.name == "pogostick"
    assert Path(spec.source).resolve() == (DOMAINS / "polycraft" / "pogostick.yaml").resolve()
    assert dict(spec.goal) == {"pogo_stick": 1}
    assert World("pogostick", seed=1).spec.name == "pogostick"


@pytest.mark.parametrize("as_path", [False, True])
def test_missing_yaml_file_is_a_spec_error(tmp_path, as_path):
    missing = tmp_path / "does_not_exist.yaml"
    with pytest.raises(SpecError) as info:
        load_spec(missing if as_path else str(missing))
    assert "no such spec file" in str(info.value)
    assert "does_not_exist.yaml" in str(info.value)


def test_missing_yaml_path_with_a_colon_is_reported_as_missing(tmp_path):
    missing = tmp_path / "run:1" / "spec.yaml"
    with pytest.raises(SpecError, match="no such spec file"):
        load_spec(str(missing))


def test_mapping_source_gets_the_same_checks():
    data = yaml.safe_load(BASE)
    assert load_spec(data).name == "tiny"
    data["actions"]["move"]["class"] = "mvoe"
    with pytest.raises(SpecError, match="unknown action class 'mvoe'"):
        load_spec(data)


@pytest.mark.parametrize("targets", ["[stone, sapphire]", "stone"])
def test_approach_targets_are_validated(targets):
    text = variant(
        "  nop: {class: nop}\n",
        f"  nop: {{class: nop}}\n  go: {{class: approach, targets: {targets}}}\n",
    )
    err = error_of(text)
    assert "targets" in str(err)
