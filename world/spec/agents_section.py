"""The `agents:` section: each body on the map, its controller, action set, inventory and
start, and which one the player (the main agent) is."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from nesyworld.world.spec.map_section import in_map
from nesyworld.world.spec.model import AgentSpec, MapSpec, frozen_counts
from nesyworld.world.spec.reader import SpecReader

FACINGS = {"north": 0, "east": 1, "south": 2, "west": 3}
AGENT_KEYS = {
    "type", "controller", "action_set", "inventory", "selected", "room", "at", "facing", "params",
}


def parse_agents(rd: SpecReader, raw: Any, types: Mapping[str, Any], world_map: MapSpec,
                 action_sets: Mapping[str, tuple[str, ...]], controllers: Any,
                 blocked: set[tuple[int, int]]) -> tuple[dict[str, AgentSpec], str]:
    raw = rd.mapping(raw, ("agents",))
    agents: dict[str, AgentSpec] = {}
    main = None
    room_names = {r.name for r in world_map.rooms}
    for aname, araw in raw.items():
        path = ("agents", aname)
        araw = rd.mapping(araw, path, AGENT_KEYS)
        controller = araw.get("controller")
        if controller is not None:
            controller = rd.string(controller, (*path, "controller"))
            if controller not in controllers:
                raise rd.fail((*path, "controller"), f"unknown controller '{controller}'",
                              found=controller,
                              expected="one of " + ", ".join(controllers.names()))
        elif main is None:
            main = aname
        else:
            raise rd.fail(path, "two agents without a controller", found=aname, key=True,
                          expected=f"only the main agent ('{main}') without a controller")
        action_set = araw.get("action_set")
        if action_set is not None and action_set not in action_sets:
            raise rd.fail((*path, "action_set"), f"unknown action set '{action_set}'",
                          found=action_set, expected="one of " + ", ".join(action_sets))
        if controller is None and action_set is None:
            action_set = "main" if "main" in action_sets else next(iter(action_sets))
        room = araw.get("room")
        if room is not None and str(room) not in room_names:
            raise rd.fail((*path, "room"), f"unknown room '{room}'", found=room,
                          expected="one of " + ", ".join(sorted(room_names)))
        at = None
        if "at" in araw:
            at = rd.cell(araw["at"], (*path, "at"))
            if not in_map(world_map.size, at):
                raise rd.fail((*path, "at"), "placement outside the map", found=list(at),
                              expected=f"a cell within the {world_map.size[0]}x"
                                       f"{world_map.size[1]} map")
            if at in blocked:
                raise rd.fail((*path, "at"), f"agent '{aname}' placed on a blocked cell",
                              found=list(at), expected="a walkable cell")
        facing = araw.get("facing")
        if facing is not None:
            if facing not in FACINGS:
                raise rd.fail((*path, "facing"), "invalid value", found=facing,
                              expected="north, east, south or west")
            facing = FACINGS[facing]
        selected = araw.get("selected")
        if selected is not None:
            selected = rd.type_name(selected, (*path, "selected"), types)
        agents[str(aname)] = AgentSpec(
            name=str(aname),
            type=rd.type_name(araw.get("type", "agent"), (*path, "type"), types),
            controller=controller,
            action_set=action_set,
            inventory=frozen_counts(rd.counts(araw.get("inventory"), (*path, "inventory"),
                                              types)),
            selected=selected,
            room=None if room is None else str(room),
            at=at,
            facing=facing,
            params=MappingProxyType(dict(rd.mapping(araw.get("params"), (*path, "params"),
                                                    nullable=True))),
        )
    if main is None:
        raise rd.fail(("agents",), "no main agent", expected="one agent without a controller")
    return agents, main
