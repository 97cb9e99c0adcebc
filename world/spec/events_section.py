"""The `events:` section: things that happen to the map mid-episode, at a step or on a
condition, each checked in place.

    events:
      - at: 8                                  # when the episode's step reaches 8, and/or
        when: {inventory: {oak_log: 2}}        # once the main agent holds 2 logs (world: counts)
        spawn: {type: oak_log, near: agent}    # or at: [row, col]; neither: any free cell
      - at: 12
        remove: {type: tree_tap, count: 1}     # count: n or all (default 1)
      - at: 5
        move: {type: trader, to: [3, 4]}       # or near: agent (an agent's name or `agent`)
      - at: 9
        set: {type: crafting_table, property: on_fire, value: true}   # count (default all)

Each event fires once per episode, at the first end of a round at which both triggers hold
(world/simulation/events.py runs them). A novelty injected mid-episode moves, spawns or
removes things with events; its map and agent placements would not reach the running world.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nesyworld.world.spec.bounds import MAX_EVENT_COUNT, MAX_STEPS
from nesyworld.world.spec.map_section import in_map
from nesyworld.world.spec.model import AgentSpec, Counts, EntityTypeSpec, MapSpec, frozen_counts
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.yaml_source import KeyPath

TRIGGERS = {"at": "the episode's step at which it fires",
            "when": "{inventory: {item: n}, world: {type: n}}: counts that must be reached"}
KINDS = {
    "spawn": {"type", "at", "near", "count"},
    "remove": {"type", "count"},
    "move": {"type", "to", "near", "count"},
    "set": {"type", "property", "value", "count"},
}
EVENT_KEYS = {**TRIGGERS, **{k: f"what the event does ({k})" for k in KINDS}}
DEFAULT_COUNT = {"spawn": 1, "remove": 1, "move": 1, "set": None}  # None: every one
MAIN = "agent"  # `near: agent` is the main agent


@dataclass(frozen=True)
class EventSpec:
    """One scheduled change: `kind` (spawn, remove, move, set) applied to things of `type`."""

    kind: str
    type: str
    at: int | None = None  # fires once the episode's step has reached it
    inventory: Counts = field(default_factory=frozen_counts)  # the main agent holds >= these
    world: Counts = field(default_factory=frozen_counts)  # the map holds >= these
    count: int | None = 1  # things spawned, removed, moved or set; None: all
    cell: tuple[int, int] | None = None  # spawn at / move to (or the nearest free cell)
    near: str | None = None  # an agent's name: a nearest free cell around it
    property: str = ""
    value: Any = None


def parse_events(rd: SpecReader, raw: Any, types: Mapping[str, Any],
                 entity_types: Mapping[str, EntityTypeSpec], world_map: MapSpec,
                 agents: Mapping[str, AgentSpec], main: str) -> tuple[EventSpec, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise rd.fail(("events",), "wrong type", found=raw, expected="a list of events")
    return tuple(_event(rd, item, ("events", i), types, entity_types, world_map, agents, main)
                 for i, item in enumerate(raw))


def _event(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any],
           entity_types: Mapping[str, EntityTypeSpec], world_map: MapSpec,
           agents: Mapping[str, AgentSpec], main: str) -> EventSpec:
    raw = rd.mapping(raw, path, EVENT_KEYS)
    if "at" not in raw and "when" not in raw:
        raise rd.fail(path, "an event without a trigger", expected="at: <step> and/or when: "
                      "{inventory: {...}, world: {...}}")
    at = None if "at" not in raw else rd.integer(raw["at"], (*path, "at"), minimum=1,
                                                 maximum=MAX_STEPS)
    when = rd.mapping(raw.get("when"), (*path, "when"), {"inventory", "world"}, nullable=True)
    kinds = [k for k in KINDS if k in raw]
    if len(kinds) != 1:
        raise rd.fail(path, "an event must do one thing", found=kinds or None,
                      expected="exactly one of " + ", ".join(KINDS))
    kind = kinds[0]
    body_path = (*path, kind)
    body = rd.mapping(raw[kind], body_path, KINDS[kind])
    if "type" not in body:
        raise rd.fail(body_path, f"{kind} without a type", expected="type: <entity type>")
    type_name = rd.type_name(body["type"], (*body_path, "type"), types)
    agent_types = {a.type for a in agents.values()}
    if kind != "move" and type_name in agent_types:
        raise rd.fail((*body_path, "type"), f"cannot {kind} '{type_name}': it is an agent's type",
                      found=type_name, expected="a type that is not an agent's (agents can move)")
    cell = _cell(rd, body, body_path, "to" if kind == "move" else "at", world_map)
    near = _near(rd, body, body_path, agents, main)
    if kind == "move" and (cell is None) == (near is None):
        raise rd.fail(body_path, "a move needs one destination", expected="to: [row, col] or "
                      "near: agent")
    if cell is not None and near is not None:
        raise rd.fail((*body_path, "near"), "two places given", expected="at: or near:, not both")
    prop, value = "", None
    if kind == "set":
        prop, value = _property(rd, body, body_path, entity_types[type_name])
    return EventSpec(
        kind=kind, type=type_name, at=at,
        inventory=frozen_counts(rd.counts(when.get("inventory"), (*path, "when", "inventory"),
                                          types)),
        world=frozen_counts(rd.counts(when.get("world"), (*path, "when", "world"), types)),
        count=_count(rd, body, body_path, kind), cell=cell, near=near, property=prop,
        value=value)


def _cell(rd: SpecReader, body: dict[str, Any], path: KeyPath, key: str, world_map: MapSpec
          ) -> tuple[int, int] | None:
    if key not in body:
        return None
    cell = rd.cell(body[key], (*path, key))
    if not in_map(world_map.size, cell):
        raise rd.fail((*path, key), "cell outside the map", found=list(cell),
                      expected=f"a cell within the map's size {list(world_map.size)}")
    return cell


def _near(rd: SpecReader, body: dict[str, Any], path: KeyPath, agents: Mapping[str, AgentSpec],
          main: str) -> str | None:
    if "near" not in body:
        return None
    near = rd.string(body["near"], (*path, "near"))
    if near == MAIN:
        return main
    if near not in agents:
        raise rd.fail((*path, "near"), f"unknown agent '{near}'", found=near,
                      expected="agent (the main agent) or one of " + ", ".join(agents))
    return near


def _count(rd: SpecReader, body: dict[str, Any], path: KeyPath, kind: str) -> int | None:
    if "count" not in body:
        return DEFAULT_COUNT[kind]
    if body["count"] == "all" and kind != "spawn":
        return None
    return rd.integer(body["count"], (*path, "count"), minimum=1, maximum=MAX_EVENT_COUNT)


def _property(rd: SpecReader, body: dict[str, Any], path: KeyPath, et: EntityTypeSpec
              ) -> tuple[str, Any]:
    if "property" not in body or "value" not in body:
        raise rd.fail(path, "set needs a property and a value",
                      expected="set: {type: ..., property: <name>, value: <value>}")
    prop = rd.string(body["property"], (*path, "property"))
    if prop not in et.properties:
        raise rd.fail((*path, "property"), f"'{et.name}' has no property '{prop}'", found=prop,
                      expected="a property declared under entity_types."
                      f"{et.name}.properties" + (f" ({', '.join(et.properties)})"
                                                  if et.properties else ""))
    value, default = body["value"], et.properties[prop]
    if isinstance(value, bool) != isinstance(default, bool) or not isinstance(
            value, bool | int | float | str):
        raise rd.fail((*path, "value"), "wrong type", found=value,
                      expected=f"a value like the property's default ({default!r})")
    if isinstance(value, float):
        rd.number(value, (*path, "value"))
    return prop, value
