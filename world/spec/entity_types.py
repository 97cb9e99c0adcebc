"""The `entity_types:` section: each type's class defaults merged with what the spec says,
its break, collect and use rules, and its scheduled spawns, every field checked in place."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from nesyworld.world.spec.bounds import MAX_COUNT, MAX_STEPS, MAX_TYPES
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


RULE_KEYS = {"holding", "when", "sets", "consumes", "gives", "removes", "becomes", "automatic"}
AUTOMATIC_EXCLUDES = ("holding", "when", "consumes")
"""Conditions an automatic collect rule cannot have: it fires without an action, so nothing
would tell the agent why it did not."""


def parse_rule(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any]
               ) -> InteractionRule:
    raw = rd.mapping(raw, path, RULE_KEYS, nullable=True)
    holding = raw.get("holding")
    if holding is not None:
        holding = rd.type_name(holding, (*path, "holding"), types)
    automatic = rd.boolean(raw.get("automatic", False), (*path, "automatic"))
    if automatic:
        _check_automatic(rd, raw, path)
    return InteractionRule(
        holding=holding,
        when=property_values(rd, raw.get("when"), (*path, "when")),
        sets=property_values(rd, raw.get("sets"), (*path, "sets")),
        consumes=frozen_counts(rd.counts(raw.get("consumes"), (*path, "consumes"), types)),
        gives=frozen_counts(rd.counts(raw.get("gives"), (*path, "gives"), types)),
        removes=rd.boolean(raw.get("removes", False), (*path, "removes")),
        becomes=rd.type_name(raw.get("becomes", "air"), (*path, "becomes"), types),
        automatic=automatic,
    )


def _check_automatic(rd: SpecReader, raw: Mapping[str, Any], path: KeyPath) -> None:
    """An automatic rule is a `collect` rule that removes what it takes, without conditions:
    kept otherwise, the entity would be taken again at every step."""
    if path[-1] != "collect":
        raise rd.fail((*path, "automatic"), "only a collect rule can be automatic",
                      found=True, expected="automatic under collect:, or no automatic key")
    for key in AUTOMATIC_EXCLUDES:
        if raw.get(key):
            raise rd.fail((*path, key), f"an automatic collect rule has no {key}",
                          expected=f"no {key} beside automatic: true")
    if not rd.boolean(raw.get("removes", False), (*path, "removes")):
        raise rd.fail((*path, "removes"), "an automatic collect rule must remove the entity",
                      found=raw.get("removes", False), expected="removes: true")


def parse_spawn(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any]
                ) -> ScheduledSpawn:
    raw = rd.mapping(raw, path, {"spawn", "after"})
    if "spawn" not in raw:
        raise rd.fail(path, "missing 'spawn'", expected="spawn: <entity type>")
    return ScheduledSpawn(rd.type_name(raw["spawn"], (*path, "spawn"), types),
                          rd.integer(raw.get("after", 1), (*path, "after"), minimum=1,
                                     maximum=MAX_STEPS))


def property_values(rd: SpecReader, raw: Any, path: KeyPath) -> Mapping[str, Any]:
    """A `properties`, `disabled_when`, `when` or `sets` table: names to plain values (true or
    false, a number, a name), which cells hold and compare; a list or mapping there would
    never compare equal to anything the world sets."""
    out = {}
    for key, value in rd.mapping(raw, path, nullable=True).items():
        if isinstance(value, float):
            rd.number(value, (*path, key))
        elif not isinstance(value, bool | int | str):
            raise rd.fail((*path, key), "wrong type", found=value,
                          expected="true, false, a number or a name")
        out[key] = value
    return MappingProxyType(out)


def normalise_types(rd: SpecReader, raw_types: dict[Any, Any], registry: Any
                    ) -> dict[str, dict[str, Any]]:
    """Every raw type checked for shape before any section looks at another type: a mapping
    with known keys under a name, a registered class, and `abstract` resolved (written in,
    or the class's default), since every reference check asks whether a type is abstract."""
    if len(raw_types) > MAX_TYPES:
        raise rd.fail(("entity_types",), "too many entity types", found=len(raw_types),
                      expected=f"at most {MAX_TYPES:,}")
    out: dict[str, dict[str, Any]] = {}
    for name, raw in raw_types.items():
        path = ("entity_types", name)
        raw, cls_name = _entity_class(rd, raw, path, registry)
        default = dict(registry.get(cls_name).DEFAULTS).get("abstract", False)
        abstract = rd.boolean(raw.get("abstract", default), (*path, "abstract"))
        out[name] = {**raw, "abstract": abstract}
    if out["air"]["abstract"]:
        raise rd.fail(("entity_types", "air"), "'air' is abstract", key=True,
                      expected="air concrete: it is the empty cell, type id 0")
    return out


def parse_entity_types(rd: SpecReader, raw_types: dict[str, Any], registry: Any
                       ) -> dict[str, EntityTypeSpec]:
    out: dict[str, EntityTypeSpec] = {}
    for name, raw in raw_types.items():
        path = ("entity_types", name)
        raw, cls_name = _entity_class(rd, raw, path, registry)
        defaults: dict[str, Any] = dict(registry.get(cls_name).DEFAULTS)
        merged = {**defaults, **raw}
        parents = merged.get("parents", [])
        if isinstance(parents, str):
            parents = [parents]
        parents = rd.sequence(parents, (*path, "parents"), "a list of type names")
        for i, p in enumerate(parents):
            rd.type_name(p, (*path, "parents", i), raw_types, concrete=False)
        breakable = rd.boolean(merged.get("breakable", False), (*path, "breakable"))
        drops = rd.counts(merged.get("drops"), (*path, "drops"), raw_types)
        if breakable and "drops" not in merged:
            drops = {name: 1}
        color = merged.get("color")
        if color is not None:
            if (not isinstance(color, list) or len(color) != 3
                    or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255
                               for c in color)):
                raise rd.fail((*path, "color"), "wrong type", found=color,
                              expected="[r, g, b] with values 0-255")
            color = tuple(color)
        glyph = merged.get("glyph")
        if glyph is not None and (not isinstance(glyph, str) or len(glyph) != 1):
            raise rd.fail((*path, "glyph"), "wrong type", found=glyph,
                          expected="a single character")
        tool = merged.get("break_tool")
        hits = rd.integer(merged.get("hits", 1), (*path, "hits"), minimum=1,
                          maximum=MAX_COUNT)
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
            properties=property_values(rd, merged.get("properties"), (*path, "properties")),
            disabled_when=property_values(rd, merged.get("disabled_when"),
                                          (*path, "disabled_when")),
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


def _entity_class(rd: SpecReader, raw: Any, path: tuple[str, ...], registry: Any
                  ) -> tuple[dict[str, Any], str]:
    """An entity type's mapping and its registered class name (default "block")."""
    raw = rd.mapping(raw, path, ENTITY_KEYS)
    cls_name = rd.string(raw.get("class", "block"), (*path, "class"))
    if cls_name not in registry:
        raise rd.fail((*path, "class"), f"unknown entity class '{cls_name}'", found=cls_name,
                      expected="one of " + ", ".join(registry.names()))
    return raw, cls_name
