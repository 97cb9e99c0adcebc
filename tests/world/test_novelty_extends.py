"""A novelty that extends another (world/novelty/reading.py): deep-merged onto its base as a
spec onto the spec it extends, with errors located in the file that holds the mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.reading import read_novelty
from nesyworld.world.novelty.transforms import apply_novelties, load_novelty
from nesyworld.world.spec.yaml_source import SourceMap

BASE = """novelty: base
category: detrimental
level: objects
description: the base
changes:
  entity_types:
    fence: {parents: [breakable], glyph: F, breakable: true, drops: {}}
  map:
    surround:
      - {target: oak_log, with: fence}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_fire_floating_is_fire_with_an_automatic_collect() -> None:
    fire, floating = load_novelty("fire"), load_novelty("fire_floating")
    assert floating.name == "fire_floating" and floating.category == fire.category
    bucket = floating.changes["entity_types"]["water_bucket"]
    assert bucket["collect"] == {**fire.changes["entity_types"]["water_bucket"]["collect"],
                                 "automatic": True}
    rest = {k: v for k, v in floating.changes["entity_types"].items() if k != "water_bucket"}
    assert rest == {k: v for k, v in fire.changes["entity_types"].items() if k != "water_bucket"}


def test_a_variant_states_only_what_differs(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", BASE)
    variant = write(tmp_path, "kept.yaml", "novelty: kept\nextends: base.yaml\nchanges:\n"
                    "  entity_types:\n    fence: {drops: {fence: 1}}\n")
    novelty = load_novelty(variant)
    assert (novelty.name, novelty.category, novelty.description) == ("kept", "detrimental",
                                                                     "the base")
    assert novelty.changes["entity_types"]["fence"]["drops"] == {"fence": 1}
    assert novelty.changes["map"] == load_novelty(tmp_path / "base.yaml").changes["map"]
    world = apply_novelties("pogostick", [variant])
    assert world.entity_types["fence"].drops == {"fence": 1}


def test_a_shipped_novelty_is_a_base_by_name(tmp_path: Path) -> None:
    variant = write(tmp_path, "v.yaml", "novelty: v\nextends: fence\nlevel: objects\n")
    novelty = load_novelty(variant)
    assert novelty.level == "objects" and novelty.changes == load_novelty("fence").changes


@pytest.mark.parametrize(("text", "where", "words"), [
    ("extends: fence\ncategory: nuisance\n", "1:1", "no name of its own"),
    ("novelty: v\nextends: nosuch\n", "2:10", "cannot find base novelty 'nosuch'"),
    ("novelty: v\nextends: [fence]\n", "2:10", "a novelty path or name"),
    ("novelty: v\nextends: v.yaml\n", "2:10", "too deep"),
])
def test_a_bad_extends_is_refused_where_it_is(text: str, where: str, words: str,
                                             tmp_path: Path) -> None:
    path = write(tmp_path, "v.yaml", text)
    with pytest.raises(SpecError) as info:
        load_novelty(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:{where}:"), message
    assert words in message, message


def test_a_mistake_in_the_base_is_located_in_the_base(tmp_path: Path) -> None:
    base = write(tmp_path, "base.yaml", BASE.replace("level: objects", "level: everywhere"))
    variant = write(tmp_path, "v.yaml", "novelty: v\nextends: base.yaml\n")
    with pytest.raises(SpecError) as info:
        load_novelty(variant)
    assert str(info.value).startswith(f"{base}:3:8:"), str(info.value)


def test_a_recorded_definition_cannot_extend_a_file() -> None:
    # a trajectory is input: the definitions it records are whole, never a path to read
    data = {"novelty": "v", "category": "nuisance", "level": "objects", "extends": "fence"}
    with pytest.raises(SpecError, match="extends"):
        read_novelty(data, SourceMap("run.json"))
