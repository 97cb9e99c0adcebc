"""The `entity_types:` section: each type's class defaults merged with what the spec says,
its break, collect and use rules, and its scheduled spawns, every field checked in place."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from nesyworld.world.spec.model import (
    EntityTypeSpec,
    InteractionRule,
    ScheduledSpawn,
    frozen_counts,
)
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.yaml_source import KeyPath

ENTITY_KEYS = {
    "parents", "abstract", "class", "blocks_movement", "breakable", "break_tool", "hits", "drops",
    "leaves", "on_break", "placeable", "grows_into", "collect", "use", "properties",
    "disabled_when", "glyph", "color", "params",
    "scent",  # a vector the type gives off (spec/scent.py)
}


RULE_KEYS = {"holding", "when", "sets", "consumes", "gives", "removes", "becomes"}


def parse_rule(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any]
               ) -> InteractionRule:
    raw = rd.mapping(raw, path, RULE_KEYS, nullable=True)
    holding = raw.get("holding")
    if holding is not None:
        holding = rd.type_name(holding, (*path, "holding"), types)
    return InteractionRule(
        holding=holding,
        when=MappingProxyType(dict(rd.mapping(raw.get("when"), (*path, "when"), nullable=True))),
        sets=MappingProxyType(dict(rd.mapping(raw.get("sets"), (*path, "sets"), nullable=True))),
        consumes=frozen_counts(rd.counts(raw.get("consumes"), (*path, "consumes"), types)),
        gives=frozen_counts(rd.counts(raw.get("gives"), (*path, "gives"), types)),
        removes=rd.boolean(raw.get("removes", False), (*path, "removes")),
        becomes=rd.type_name(raw.get("becomes", "air"), (*path, "becomes"), types),
    )


def parse_spawn(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any]
                ) -> ScheduledSpawn:
    raw = rd.mapping(raw, path, {"spawn", "after"})
    if "spawn" not in raw:
        raise rd.fail(path, "missing 'spawn'", expected="spawn: <entity type>")
    return ScheduledSpawn(rd.type_name(raw["spawn"], (*path, "spawn"), types),
                          rd.integer(raw.get("after", 1), (*path, "after"), minimum=1))


def parse_entity_types(rd: SpecReader, raw_types: dict[str, Any], registry: Any
                       ) -> dict[str, EntityTypeSpec]:
    out: dict[str, EntityTypeSpec] = {}
    for name, raw in raw_types.items():
        path = ("entity_types", name)
        raw = rd.mapping(raw, path, ENTITY_KEYS)
        cls_name = rd.string(raw.get("class", "block"), (*path, "class"))
        if cls_name not in registry:
            raise rd.fail((*path, "class"), f"unknown entity class '{cls_name}'", found=cls_name,
                          expected="one of " + ", ".join(registry.names()))
        defaults: dict[str, Any] = dict(registry.get(cls_name).DEFAULTS)
        merged = {**defaults, **raw}
        parents = merged.get("parents", [])
        if isinstance(parents, str):
            parents = [parents]
        if not isinstance(parents, list):
            raise rd.fail((*path, "parents"), "wrong type", found=parents,
                          expected="a list of type names")
        for i, p in enumerate(parents):
            rd.type_name(p, (*path, "parents", i), raw_types, concrete=False)
        breakable = rd.boolean(merged.get("breakable", False), (*path, "breakable"))
        drops = rd.counts(merged.get("drops"), (*path, "drops"), raw_types)
        if breakable and "drops" not in merged:
            drops = {name: 1}
        color = merged.get("color")
        if color is not None:
            if (not isinstance(color, list) or len(color) != 3
                    or not all(isinstance(c, int) and 0 <= c <= 255 for c in color)):
                raise rd.fail((*path, "color"), "wrong type", found=color,
                              expected="[r, g, b] with values 0-255")
            color = tuple(color)
        glyph = merged.get("glyph")
        if glyph is not None and (not isinstance(glyph, str) or len(glyph) != 1):
            raise rd.fail((*path, "glyph"), "wrong type", found=glyph,
                          expected="a single character")
        tool = merged.get("break_tool")
        hits = rd.integer(merged.get("hits", 1), (*path, "hits"), minimum=1)
        if hits > 1 and not breakable:
            raise rd.fail((*path, "hits"), f"'{name}' takes {hits} hits but cannot be broken",
                          found=hits, expected="breakable: true beside hits, or hits: 1")
        out[name] = EntityTypeSpec(
            name=name,
            parents=tuple(parents),
            abstract=rd.boolean(merged.get("abstract", False), (*path, "abstract")),
            cls=cls_name,
            blocks_movement=rd.boolean(merged.get("blocks_movement", True),
                                       (*path, "blocks_movement")),
            breakable=breakable,
            break_tool=None if tool is None else rd.type_name(tool, (*path, "break_tool"),
                                                              raw_types),
            hits=hits,
            drops=frozen_counts(drops),
            leaves=rd.type_name(merged.get("leaves", "air"), (*path, "leaves"), raw_types),
            on_break=None if merged.get("on_break") is None else
            parse_spawn(rd, merged["on_break"], (*path, "on_break"), raw_types),
            placeable=rd.boolean(merged.get("placeable", False), (*path, "placeable")),
            grows_into=None if merged.get("grows_into") is None else
            parse_spawn(rd, merged["grows_into"], (*path, "grows_into"), raw_types),
            collect=None if "collect" not in merged else
            parse_rule(rd, merged["collect"], (*path, "collect"), raw_types),
            use=None if "use" not in merged else parse_rule(rd, merged["use"], (*path, "use"),
                                                      raw_types),
            properties=MappingProxyType(dict(rd.mapping(merged.get("properties"),
                                                        (*path, "properties"), nullable=True))),
            disabled_when=MappingProxyType(dict(rd.mapping(
                merged.get("disabled_when"), (*path, "disabled_when"), nullable=True))),
            glyph=glyph,
            color=color,
            params=MappingProxyType(dict(rd.mapping(merged.get("params"), (*path, "params"),
                                                    nullable=True))),
        )
    # the hierarchy must be acyclic
    for name in out:
        stack, seen = list(out[name].parents), set()
        while stack:
            p = stack.pop()
            if p == name:
                raise rd.fail(("entity_types", name, "parents"), f"type '{name}' is its own "
                              "ancestor", expected="an acyclic type hierarchy")
            if p not in seen:
                seen.add(p)
                stack.extend(out[p].parents)
    return out
