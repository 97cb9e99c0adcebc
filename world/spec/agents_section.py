"""The `agents:` section: each body on the map, its controller, action set, inventory and
start, and which one the player (the main agent) is."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from nesyworld.world.spec.bounds import MAX_COUNT
from nesyworld.world.spec.map_section import in_map
from nesyworld.world.spec.model import AgentSpec, MapSpec, frozen_counts
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.yaml_source import KeyPath

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
        if action_set is not None:
            action_set = rd.choice(action_set, (*path, "action_set"), action_sets)
        if controller is None and action_set is None:
            action_set = "main" if "main" in action_sets else next(iter(action_sets))
        if controller is None and action_set is not None and not action_sets[action_set]:
            raise rd.fail((*path, "action_set") if "action_set" in araw else path,
                          f"the main agent's action set '{action_set}' is empty",
                          expected="at least one action for the agent that learns or plans")
        room = araw.get("room")
        if room is not None and not isinstance(room, str | int):
            raise rd.fail((*path, "room"), "wrong type", found=room, expected="a room name")
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
            taken = next((a.name for a in agents.values() if a.at == at), None)
            if taken is not None:
                raise rd.fail((*path, "at"), f"agent '{aname}' placed on agent '{taken}'",
                              found=list(at), expected="one agent per cell")
        facing = araw.get("facing")
        if facing is not None:
            if not isinstance(facing, str) or facing not in FACINGS:
                raise rd.fail((*path, "facing"), "invalid value", found=facing,
                              expected="north, east, south or west")
            facing = FACINGS[facing]
        selected = araw.get("selected")
        if selected is not None:
            selected = rd.type_name(selected, (*path, "selected"), types)
        agent_type = rd.type_name(araw.get("type", "agent"), (*path, "type"), types)
        if agent_type == "air":
            raise rd.fail((*path, "type"), "an agent cannot be air", found=agent_type,
                          expected="an entity type for the agent's body (air is the empty cell)")
        agents[str(aname)] = AgentSpec(
            name=str(aname),
            type=agent_type,
            controller=controller,
            action_set=action_set,
            inventory=frozen_counts(rd.counts(araw.get("inventory"), (*path, "inventory"),
                                              types)),
            selected=selected,
            room=None if room is None else str(room),
            at=at,
            facing=facing,
            params=_params(rd, araw.get("params"), (*path, "params"), controller, controllers),
        )
        _check_controller(rd, path, agents[str(aname)], action_sets, controllers)
    if main is None:
        raise rd.fail(("agents",), "no main agent", expected="one agent without a controller")
    return agents, main


def _params(rd: SpecReader, raw: Any, path: KeyPath, controller: str | None, controllers: Any
            ) -> Mapping[str, Any]:
    """A controller's `params:`, checked against the class's PARAMS (name -> "probability",
    "number", "count" or a tuple of allowed values). A class without PARAMS (a third-party
    one) takes any plain values; an agent without a controller takes none."""
    data = rd.mapping(raw, path, nullable=True)
    schema = getattr(controllers.get(controller), "PARAMS", None) if controller else {}
    out: dict[str, Any] = {}
    for key, value in data.items():
        where = (*path, key)
        if schema is None:
            if isinstance(value, dict | list):
                raise rd.fail(where, "wrong type", found=value,
                              expected="a plain value (true, false, a number or a name)")
            if isinstance(value, float):
                rd.number(value, where)
            out[key] = value
            continue
        if key not in schema:
            raise rd.fail(where, f"unknown parameter '{key}'"
                          + (f" for controller '{controller}'" if controller else ""),
                          key=True, expected="one of " + ", ".join(sorted(schema))
                          if schema else "no parameters")
        check = schema[key]
        if check == "probability":
            out[key] = rd.number(value, where, minimum=0.0, maximum=1.0)
        elif check == "number":
            out[key] = rd.number(value, where)
        elif check == "count":
            out[key] = rd.integer(value, where, minimum=0, maximum=MAX_COUNT)
        elif isinstance(check, tuple):
            out[key] = rd.choice(value, where, check)
        else:
            out[key] = value
    return MappingProxyType(out)


def _check_controller(rd: SpecReader, path: KeyPath, agent: AgentSpec,
                      action_sets: Mapping[str, tuple[str, ...]], controllers: Any) -> None:
    """A controller that picks its actions by name (`NEEDS_PREFIX`: random_walk's `move`)
    finds one in its agent's action set, or the spec is refused here rather than the World
    failing to start."""
    if agent.controller is None:
        return
    prefix = getattr(controllers.get(agent.controller), "NEEDS_PREFIX", "")
    if not prefix:
        return
    names = action_sets.get(agent.action_set or "", ())
    if not any(n.startswith(prefix) for n in names):
        raise rd.fail((*path, "action_set") if agent.action_set else path,
                      f"controller '{agent.controller}' needs a {prefix}* action",
                      found=agent.action_set,
                      expected=f"an action set with an action whose name starts with {prefix}")
