"""Spec loading refuses hostile or broken input with one located SpecError line, in bounded
time and memory, and a spec it accepts runs: issue 22's measured failures, one test each."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nesyworld.domains import shipped_specs
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.bounds import MAX_DEPTH, MAX_FILE_BYTES, MAX_MAP_SIDE, MAX_NODES
from nesyworld.world.spec.loader import load_spec, load_spec_text

BASE = """\
name: tiny
entity_types:
  air: {class: floor}
  bedrock: {class: block}
  stone: {breakable: true}
  agent: {class: actor}
  trader: {class: actor}
  pebble: {class: item}
actions:
  move_forward: {class: move}
  break: {class: break}
  craft: {class: craft}
  nop: {class: nop}
action_sets:
  main: [move_forward, break, craft, nop]
  npc: [move_forward, nop]
recipes:
  pebble: {inputs: {stone: 1}, outputs: {pebble: 2}}
map:
  size: [6, 8]
  objects:
    stone: {quantity: 3}
agents:
  hero: {type: agent, at: [1, 1], facing: east}
  seller: {type: trader, controller: random_walk, action_set: npc, params: {move_prob: 0.5}}
goal:
  inventory: {pebble: 1}
"""


def variant(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def refused(source: object) -> SpecError:
    """The SpecError `source` is refused with, checked to be one located line."""
    start = time.perf_counter()
    with pytest.raises(SpecError) as info:
        load_spec(source)  # type: ignore[arg-type]
    assert time.perf_counter() - start < 5.0
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    return info.value


def located(err: SpecError, line: int, column: int | None = None) -> None:
    assert err.location is not None, str(err)
    assert err.location.line == line, str(err)
    if column is not None:
        assert err.location.column == column, str(err)
    assert str(err).startswith(f"{err.location}: ")


def test_base_spec_loads_and_runs() -> None:
    world = World(load_spec(BASE), seed=0)
    world.reset(seed=0)
    world.step(0)


# ------------------------------------------------------------------ bytes and YAML kinds
def test_invalid_utf8_is_located_at_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(BASE.encode().replace(b"name: tiny", b"name: ti\xffny"))
    err = refused(path)
    located(err, 1, 9)
    assert "UTF-8" in str(err) and str(path) in str(err)


def test_a_nul_byte_is_located(tmp_path: Path) -> None:
    path = tmp_path / "nul.yaml"
    path.write_bytes(BASE.encode().replace(b"tiny", b"ti\x00ny"))
    located(refused(path), 1, 9)


@pytest.mark.parametrize("tag", ["!custom x", "!!python/object:os.system x",
                                 "!!python/name:os.system ''", "!!set {a, b}"])
def test_unknown_yaml_tags_are_refused(tag: str) -> None:
    err = refused(variant("name: tiny", f"name: {tag}"))
    located(err, 1, 7)
    assert "tag" in str(err)


@pytest.mark.parametrize("text, line, words", [
    ("a: [1, 2\n", 2, "YAML syntax error"),
    ("a: 1\n---\nb: 2\n", 2, "more than one YAML document"),
    ("a: &x [*x]\n", 1, "inside its own anchor"),
    ("a: *nothing\n", 1, "unknown alias"),
    ("a: &x {b: 1}\nc: {<<: *x}\n", 2, "merge keys"),
    ("a: 2001-13-45\n", 1, "invalid value"),
    ("a: " + "9" * 5000 + "\n", 1, "invalid value"),
    ("a: !!bool maybe\n", 1, "invalid value"),
    ("[a]: 1\n", 1, "plain names"),
    ("a: 1\na: 2\n", 2, "duplicate key"),
])
def test_every_yaml_error_kind_is_a_located_spec_error(text: str, line: int, words: str) -> None:
    err = refused(text)
    located(err, line)
    assert words in str(err)


def test_deep_nesting_is_refused_before_python_recurses() -> None:
    err = refused("a: " + "[" * 3000 + "]" * 3000 + "\n")
    located(err, 1)
    assert "nesting too deep" in str(err) and str(MAX_DEPTH) in str(err)


def test_nesting_within_the_limit_is_fine_as_yaml() -> None:
    depth = MAX_DEPTH - 2
    err = refused("a: " + "[" * depth + "]" * depth + "\n")
    assert "nesting" not in str(err)  # refused for being no spec, not for its depth


ALIAS_BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_an_alias_bomb_is_refused_quickly() -> None:
    assert len(ALIAS_BOMB) < 420
    err = refused(ALIAS_BOMB)
    assert "document too large" in str(err) and f"{MAX_NODES:,}" in str(err)
    located(err, 5)


def test_aliases_within_the_budget_still_work() -> None:
    spec = load_spec(variant("  stone: {breakable: true}", "  stone: &solid {breakable: true}\n"
                             "  granite: *solid"))
    assert spec.entity_types["granite"].breakable


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(BASE + "#" * MAX_FILE_BYTES + "\n")
    err = refused(path)
    assert "file too large" in str(err) and str(path) in str(err)


# ------------------------------------------------------------------ values of the wrong shape
SHAPES = [
    ("  pebble: {class: item}", "  pebble: 3.5", "entity_types.pebble", "a mapping"),
    ("  pebble: {class: item}", "  pebble: {class: item}\n  5: {class: item}",
     "entity_types.5", "a name"),
    ("action_set: npc", "action_set: {a: 1}", "agents.seller.action_set", "one of"),
    ("facing: east", "facing: [east]", "agents.hero.facing", "north"),
    ("move_prob: 0.5", "move_prob: fast", "agents.seller.params.move_prob", "a number"),
    ("move_prob: 0.5", "move_prob: 1.5", "agents.seller.params.move_prob", "from 0 to 1"),
    ("move_prob: 0.5", "speed: 2", "agents.seller.params.speed", "move_prob"),
    ("outputs: {pebble: 2}", "outputs: {pebble: 2147483648}", "recipes.pebble.outputs.pebble",
     "<= 1,000,000"),
    ("size: [6, 8]", "size: [6, 100000]", "map.size", f"at most [{MAX_MAP_SIDE}"),
    ("size: [6, 8]", "size: [6, true]", "map.size", "[row, column]"),
    ("quantity: 3", "quantity: 2147483648", "map.objects.stone.quantity", "<= 48"),
    ("  nop: {class: nop}", "  nop: {class: nop, cost: .nan}", "actions.nop.cost", "finite"),
    ("  nop: {class: nop}", "  nop: {class: nop, cost: 1.0e+999}", "actions.nop.cost", "finite"),
    ("main: [move_forward, break, craft, nop]", "main: move_forward",
     "action_sets.main", "a list of action names"),
    ("  stone: {quantity: 3}", "  stone: {quantity: 3, at: 5}", "map.objects.stone.at",
     "a list"),
    ("name: tiny", "name: tiny\ndescription: {a: 1}", "description", "text"),
    ("name: tiny", "name: tiny\nmax_steps: 9999999999", "max_steps", "<= 100,000,000"),
    ("  stone: {breakable: true}", "  stone: {breakable: true, properties: {hot: [1]}}",
     "entity_types.stone.properties.hot", "true, false"),
    ("  stone: {breakable: true}", "  stone: {breakable: true, hits: 2147483648}",
     "entity_types.stone.hits", "<= 1,000,000"),
    ("  stone: {breakable: true}", "  stone: {breakable: true, color: [true, 0, 0]}",
     "entity_types.stone.color", "[r, g, b]"),
    ("  air: {class: floor}", "  air: {class: floor, abstract: true}", "entity_types.air",
     "concrete"),
    ("  hero: {type: agent,", "  hero: {type: air,", "agents.hero.type", "empty cell"),
]


@pytest.mark.parametrize("old, new, key_path, expected", SHAPES)
def test_values_of_the_wrong_shape_or_range_are_refused(old: str, new: str, key_path: str,
                                                        expected: str) -> None:
    err = refused(variant(old, new))
    assert err.key_path == key_path, str(err)
    assert err.location is not None
    assert expected in str(err)


def test_a_type_used_before_it_is_checked_is_refused_not_crashed() -> None:
    """`drops` names a type declared as a number further down: the number is refused where
    it is written, not met as `'float' object has no attribute 'get'`."""
    text = variant("  stone: {breakable: true}", "  stone: {breakable: true, drops: {gem: 1}}")
    err = refused(variant("  pebble: {class: item}", "  pebble: {class: item}\n  gem: 7.5",
                          text))
    assert err.key_path == "entity_types.gem"


def test_a_category_type_cannot_be_dropped() -> None:
    """Abstract by its class's default, not by an `abstract:` key: still not an item."""
    text = variant("  pebble: {class: item}", "  pebble: {class: item}\n  rocks: {class: "
                   "category}")
    err = refused(variant("  stone: {breakable: true}",
                          "  stone: {breakable: true, drops: {rocks: 1}}", text))
    assert err.key_path == "entity_types.stone.drops.rocks" and "abstract" in str(err)


@pytest.mark.parametrize("old, new, key_path", [
    ("kind: phases", "kind: [cycle]", "lifelong.reward_schedule.1.kind"),
    ("where: random", "where: {a: 1}", "lifelong.regrow.mushroom.where"),
])
def test_lifelong_values_of_the_wrong_shape_are_refused(old: str, new: str,
                                                        key_path: str) -> None:
    path = shipped_specs()["orchard"]
    text = path.read_text()
    assert text.count(old) == 1, old
    with pytest.raises(SpecError) as info:
        load_spec_text(text.replace(old, new), path)
    assert info.value.key_path == key_path, str(info.value)


def test_random_walk_without_a_move_action_is_refused_at_load() -> None:
    err = refused(variant("  npc: [move_forward, nop]", "  npc: [nop]"))
    assert err.key_path == "agents.seller.action_set" and "move" in str(err)


def test_two_agents_on_one_cell_are_refused() -> None:
    err = refused(variant("  seller: {type: trader,", "  seller: {type: trader, at: [1, 1],"))
    assert err.key_path == "agents.seller.at"


def test_an_empty_main_action_set_is_refused() -> None:
    err = refused(variant("main: [move_forward, break, craft, nop]", "main: []"))
    assert "empty" in str(err)


# ------------------------------------------------------------------ sources
def test_a_mapping_source_with_objects_yaml_cannot_hold_is_refused() -> None:
    err = refused({"name": object()})
    assert "unsupported value" in str(err)


def test_a_mapping_source_nested_too_deeply_is_refused() -> None:
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    assert "too deep" in str(refused(deep))


@pytest.mark.parametrize("name", ["x" * 5000, "no\x00such", "nosuch.yaml"])
def test_a_name_the_file_system_refuses_is_a_spec_error(name: str) -> None:
    assert "no such spec" in str(refused(name))


def test_load_spec_text_resolves_extends_beside_the_named_file() -> None:
    path = shipped_specs()["pogostick_tap"]
    spec = load_spec_text(path.read_text(), path)
    assert spec.source == str(path)
    assert spec == load_spec(path)


def test_load_spec_text_names_the_file_in_errors() -> None:
    path = shipped_specs()["pogostick_tap"]
    with pytest.raises(SpecError) as info:
        load_spec_text(path.read_text() + "\nmax_steps: -3\n", path)
    assert str(info.value).startswith(f"{path}:")


def test_an_unfindable_extends_is_located() -> None:
    err = refused("extends: " + "y" * 400 + "\nname: x\n")
    located(err, 1)
    assert "cannot find base spec" in str(err)


@pytest.mark.parametrize("path", sorted(shipped_specs().values()), ids=lambda p: p.stem)
def test_every_shipped_spec_still_loads(path: Path) -> None:
    load_spec(path)


def test_a_file_named_as_a_spec_that_is_no_spec_is_not_quoted(tmp_path: Path) -> None:
    """A spec, a trajectory or a knowledge base can name another file as its spec (extends,
    `spec`, `world`); when that file is not a mapping at all (/etc/passwd), the error says
    what it is, never how it starts."""
    secret = tmp_path / "notes.txt"
    secret.write_text("TOP-SECRET:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/:/bin/sh\n")
    secret.with_suffix(".yaml").write_text("- TOP-SECRET-ITEM\n")
    for target in (secret, secret.with_suffix(".yaml")):
        spec = tmp_path / "spec.yaml"
        spec.write_text(f"extends: {target}\n")
        for path in (target, spec):
            with pytest.raises(SpecError) as info:
                load_spec(path)
            assert "TOP-SECRET" not in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(SpecError, match=r"notes\.txt:1:1: wrong type: the document is text; "):
        load_spec(secret)
