"""Reading and validating world specs.

Every check reports file:line:column, what was found and what was expected, because a spec is
where most users start and a vague error there costs the most time.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.spec.model import (
    ActionSpec,
    AgentSpec,
    DoorSpec,
    EntityTypeSpec,
    InteractionRule,
    MapSpec,
    PlacementSpec,
    RecipeSpec,
    RewardSpec,
    RoomSpec,
    ScheduledSpawn,
    SurroundSpec,
    TradeSpec,
    WallSpec,
    WorldSpec,
    frozen_counts,
)
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.scent import parse_scent as _parse_scent
from nesyworld.world.spec.yaml_source import (
    KeyPath,
    SourceMap,
    load_yaml_file,
    load_yaml_text,
    merge_documents,
)

FACINGS = {"north": 0, "east": 1, "south": 2, "west": 3}

TOP_KEYS = {
    "extends": "a base spec this one modifies",
    "name": "the world's name",
    "description": "free text",
    "entity_types": "the entity type registry",
    "actions": "the action registry",
    "action_sets": "named lists of actions",
    "recipes": "crafting recipes",
    "trades": "trades offered by NPC traders",
    "map": "the layout",
    "agents": "the main agent and NPCs",
    "goal": "inventory counts that end the episode successfully",
    "max_steps": "episode length limit",
    "reward": "the Gymnasium env's reward scheme",
    "scent": "how scent spreads: {decay, diffusion, dims} (spec/scent.py)",
    "lifelong": "a world that never resets: regrowth and a reward schedule (spec/lifelong.py)",
    "observation": "how the world is perceived: {noise: 0..1} (spec/observation.py)",
    "multiagent": "learning agents' cooperative or competitive goal (spec/teams.py)",
}
ENTITY_KEYS = {
    "parents", "abstract", "class", "blocks_movement", "breakable", "break_tool", "drops",
    "leaves", "on_break", "placeable", "grows_into", "collect", "use", "properties",
    "disabled_when", "glyph", "color", "params",
    "scent",  # a vector the type gives off (spec/scent.py)
}
RULE_KEYS = {"holding", "when", "sets", "consumes", "gives", "removes", "becomes"}
AGENT_KEYS = {
    "type", "controller", "action_set", "inventory", "selected", "room", "at", "facing", "params",
}


def load_spec(source: str | Path | Mapping[str, Any]) -> WorldSpec:
    """Load a world spec from a YAML file path, YAML text, or an already-parsed mapping.

    Shipped specs can be named by their short id, e.g. ``load_spec("pogostick")``.
    """
    return build_spec(*load_document(source))


def load_document(source: str | Path | Mapping[str, Any]) -> tuple[Any, SourceMap]:
    """A spec's raw document (with `extends` resolved) and where each value came from: what
    novelties transform before the spec is validated."""
    if isinstance(source, Mapping):
        # Round-trip through YAML so a mapping gets the same checks and located errors.
        return load_yaml_text(yaml.safe_dump(dict(source), sort_keys=False), "<mapping>")
    path = resolve_spec_path(source)
    if path is not None:
        data, smap = load_yaml_file(path)
    else:
        data, smap = load_yaml_text(str(source), "<string>")
    return resolve_extends(data, smap)


def resolve_extends(data: Any, smap: SourceMap, depth: int = 0) -> tuple[Any, SourceMap]:
    """Apply `extends: <base spec>`: the document is deep-merged onto its base.

    A variant of a task (the full pogostick task, a novelty) states only what differs, and the
    base stays the single source of the rest.
    """
    if not isinstance(data, dict) or "extends" not in data:
        return data, smap
    if depth > 8:
        raise smap.error(("extends",), "extends chain too deep (a cycle?)",
                         expected="at most 8 levels")
    ref = data["extends"]
    if not isinstance(ref, str):
        raise smap.error(("extends",), "wrong type", found=ref, expected="a spec path or name")
    base_path = Path(smap.file).parent / ref
    if not base_path.is_file():
        found = resolve_spec_path(ref)
        if found is None:
            raise smap.error(("extends",), f"cannot find base spec '{ref}'", found=ref,
                             expected="a path relative to this file or a shipped spec name")
        base_path = found
    base, base_map = resolve_extends(*load_yaml_file(base_path), depth + 1)
    over = {k: v for k, v in data.items() if k != "extends"}
    return merge_documents(base, base_map, over, smap)


def resolve_spec_path(source: str | Path) -> Path | None:
    """A file path, or a shipped spec's short name (``pogostick`` -> domains/polycraft/...)."""
    from nesyworld.domains import find_spec

    return resolve_source(source, find_spec, "spec", "`nesyworld specs`")


def resolve_source(source: str | Path, find: Any, kind: str, listing: str) -> Path | None:
    """Where a spec or novelty argument points: an existing file, a shipped name (`find`), or
    None for YAML text. A missing .yaml path or an unknown bare name is an error that says
    what was expected, rather than text that fails to parse."""
    text = str(source)
    if "\n" in text:
        return None
    path = Path(text)
    if path.is_file():
        return path
    found = find(text)
    if found is not None:
        return found
    if text.endswith((".yaml", ".yml")) or not any(ch in text for ch in ":{}[]"):
        raise SpecError(f"no such {kind} file or shipped {kind}: '{text}'",
                        expected=f"an existing YAML file or a name listed by {listing}")
    return None


def build_spec(data: Any, smap: SourceMap) -> WorldSpec:
    from nesyworld.world import builtins  # noqa: F401  (fills the registries)
    from nesyworld.world.registry import ACTIONS, CONTROLLERS, ENTITIES
    from nesyworld.world.spec import lifelong as _spec_lifelong
    from nesyworld.world.spec import observation as _spec_observation
    from nesyworld.world.spec import teams as _spec_teams

    rd = SpecReader(smap)
    top = rd.mapping(data, (), TOP_KEYS)
    for required in ("entity_types", "actions", "map", "agents", "goal"):
        if required not in top:
            raise rd.fail((), f"missing section '{required}'", expected=TOP_KEYS[required])

    raw_types = rd.mapping(top["entity_types"], ("entity_types",))
    if "air" not in raw_types:
        raw_types = {"air": {"class": "floor"}, **raw_types}
    elif next(iter(raw_types)) != "air":
        raw_types = {"air": raw_types["air"], **{k: v for k, v in raw_types.items()
                                                  if k != "air"}}
    raw_types = {k: (v if v is not None else {}) for k, v in raw_types.items()}
    entity_types = _entity_types(rd, raw_types, ENTITIES)

    actions = {}
    for name, raw in rd.mapping(top["actions"], ("actions",)).items():
        path = ("actions", name)
        raw = rd.mapping(raw, path)
        if "class" not in raw:
            raise rd.fail(path, f"action '{name}' has no class", key=True,
                          expected="class: <a registered action class>")
        cls_name = rd.string(raw["class"], (*path, "class"))
        if cls_name not in ACTIONS:
            raise rd.fail((*path, "class"), f"unknown action class '{cls_name}'",
                          found=cls_name,
                          expected="one of " + ", ".join(ACTIONS.names()))
        cls = ACTIONS.get(cls_name)
        params = {k: v for k, v in raw.items() if k not in ("class", "cost")}
        for key, value in params.items():
            allowed = getattr(cls, "PARAMS", {})
            if key not in allowed:
                raise rd.fail((*path, key), f"unknown parameter '{key}' for action class "
                              f"'{cls_name}'", key=True,
                              expected="one of " + (", ".join(sorted(allowed)) or "no parameters"))
            check = allowed[key]
            if isinstance(check, tuple) and value not in check:
                raise rd.fail((*path, key), "invalid value", found=value,
                              expected="one of " + ", ".join(map(str, check)))
            if check == "types":  # a list of concrete entity types
                if not isinstance(value, list):
                    raise rd.fail((*path, key), "wrong type", found=value,
                                  expected="a list of entity types")
                for i, item in enumerate(value):
                    rd.type_name(item, (*path, key, i), raw_types)
            elif check == "type":
                rd.type_name(value, (*path, key), raw_types)
            elif check == "probability":
                if rd.number(value, (*path, key)) > 1 or value < 0:
                    raise rd.fail((*path, key), "value out of range", found=value,
                                  expected="a probability between 0 and 1")
            elif check == "count":
                rd.integer(value, (*path, key), minimum=1)
        cost = rd.number(raw.get("cost", 1), (*path, "cost"))
        actions[name] = ActionSpec(name, cls_name, cost, MappingProxyType(params))

    action_sets: dict[str, tuple[str, ...]] = {}
    raw_sets = rd.mapping(top.get("action_sets") or {"main": list(actions)}, ("action_sets",))
    for set_name, items in raw_sets.items():
        path = ("action_sets", set_name)
        if not isinstance(items, list):
            raise rd.fail(path, "wrong type", found=items, expected="a list of action names")
        names: list[str] = []
        for i, item in enumerate(items):
            pattern = rd.string(item, (*path, i))
            matched = [a for a in actions if fnmatch.fnmatchcase(a, pattern)]
            if not matched:
                raise rd.fail((*path, i), f"unknown action '{pattern}'", found=pattern,
                              expected="an action declared under actions")
            names.extend(m for m in matched if m not in names)
        action_sets[set_name] = tuple(names)

    recipes = {}
    for name, raw in rd.mapping(top.get("recipes") or {}, ("recipes",)).items():
        path = ("recipes", name)
        raw = rd.mapping(raw, path, {"inputs", "outputs", "station"})
        station = raw.get("station")
        if station is not None:
            station = rd.type_name(station, (*path, "station"), raw_types)
        recipes[name] = RecipeSpec(
            name,
            frozen_counts(rd.counts(raw.get("inputs"), (*path, "inputs"), raw_types)),
            frozen_counts(rd.counts(raw.get("outputs"), (*path, "outputs"), raw_types)),
            station,
        )
        if not recipes[name].outputs:
            raise rd.fail(path, f"recipe '{name}' produces nothing", key=True,
                          expected="outputs: {...}")

    trades = {}
    for name, raw in rd.mapping(top.get("trades") or {}, ("trades",)).items():
        path = ("trades", name)
        raw = rd.mapping(raw, path, {"trader", "inputs", "outputs"})
        if "trader" not in raw:
            raise rd.fail(path, "trade without trader", key=True,
                          expected="trader: <an entity type>")
        trades[name] = TradeSpec(
            name,
            rd.type_name(raw["trader"], (*path, "trader"), raw_types),
            frozen_counts(rd.counts(raw.get("inputs"), (*path, "inputs"), raw_types)),
            frozen_counts(rd.counts(raw.get("outputs"), (*path, "outputs"), raw_types)),
        )

    world_map = _map(rd, top["map"], raw_types)
    agents, main_agent = _agents(rd, top["agents"], raw_types, world_map, action_sets,
                                 CONTROLLERS, _blocked_cells(world_map, entity_types))
    goal = rd.counts(top["goal"].get("inventory") if isinstance(top["goal"], dict) else None,
                     ("goal", "inventory"), raw_types)
    rd.mapping(top["goal"], ("goal",), {"inventory"})
    if not goal:
        raise rd.fail(("goal",), "empty goal", expected="goal: {inventory: {item: count}}")

    reward = RewardSpec()
    if "reward" in top:
        raw = rd.mapping(top["reward"], ("reward",), {"goal", "step", "give_up"})
        reward = RewardSpec(**{k: rd.number(v, ("reward", k)) for k, v in raw.items()})

    lifelong = _spec_lifelong.parse(rd, top.get("lifelong"), entity_types)
    spec = WorldSpec(
        name=rd.string(top.get("name", Path(smap.file).stem), ("name",)),
        entity_types=MappingProxyType(entity_types),
        actions=MappingProxyType(actions),
        action_sets=MappingProxyType(action_sets),
        recipes=MappingProxyType(recipes),
        trades=MappingProxyType(trades),
        map=world_map,
        agents=MappingProxyType(agents),
        goal=frozen_counts(goal),
        main_agent=main_agent,
        max_steps=rd.integer(top.get("max_steps", 400), ("max_steps",), minimum=1),
        reward=reward,
        observation_noise=_spec_observation.parse_observation(rd, top.get("observation")).noise,
        multiagent=_spec_teams.parse_multiagent(rd, top.get("multiagent"), raw_types, agents,
                                                goal),
        description=str(top.get("description", "")),
        scent=_parse_scent(rd, top.get("scent"), raw_types),
        source=smap.file,
        lifelong=lifelong,
    )
    _check_goal_reachable(rd, spec)
    return spec


def _rule(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any]) -> InteractionRule:
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


def _spawn(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, Any]) -> ScheduledSpawn:
    raw = rd.mapping(raw, path, {"spawn", "after"})
    if "spawn" not in raw:
        raise rd.fail(path, "missing 'spawn'", expected="spawn: <entity type>")
    return ScheduledSpawn(rd.type_name(raw["spawn"], (*path, "spawn"), types),
                          rd.integer(raw.get("after", 1), (*path, "after"), minimum=1))


def _entity_types(rd: SpecReader, raw_types: dict[str, Any], registry: Any
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
            drops=frozen_counts(drops),
            leaves=rd.type_name(merged.get("leaves", "air"), (*path, "leaves"), raw_types),
            on_break=None if merged.get("on_break") is None else
            _spawn(rd, merged["on_break"], (*path, "on_break"), raw_types),
            placeable=rd.boolean(merged.get("placeable", False), (*path, "placeable")),
            grows_into=None if merged.get("grows_into") is None else
            _spawn(rd, merged["grows_into"], (*path, "grows_into"), raw_types),
            collect=None if "collect" not in merged else
            _rule(rd, merged["collect"], (*path, "collect"), raw_types),
            use=None if "use" not in merged else _rule(rd, merged["use"], (*path, "use"),
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


def _in_map(size: tuple[int, int], cell: tuple[int, int]) -> bool:
    return 0 <= cell[0] < size[0] and 0 <= cell[1] < size[1]


def _map(rd: SpecReader, raw: Any, types: Mapping[str, Any]) -> MapSpec:
    raw = rd.mapping(raw, ("map",), {"size", "border", "rooms", "walls", "doors", "objects",
                                     "ascii", "legend", "surround", "generate"})
    if raw.get("generate") is not None:  # a procedural level (spec/generation.py)
        from nesyworld.world.spec.generation import generated_map
        return generated_map(rd, raw, types)
    legend: dict[str, str] = {}
    ascii_rows: tuple[str, ...] | None = None
    if "ascii" in raw:
        text = rd.string(raw["ascii"], ("map", "ascii"))
        ascii_rows = tuple(line for line in text.splitlines() if line.strip())
        widths = {len(r) for r in ascii_rows}
        if len(widths) != 1:
            raise rd.fail(("map", "ascii"), "ragged ASCII level", found=sorted(widths),
                          expected="all rows of the same width")
        for glyph, tname in rd.mapping(raw.get("legend"), ("map", "legend"),
                                       nullable=True).items():
            legend[str(glyph)] = rd.type_name(tname, ("map", "legend", glyph), types)
        known = set(legend) | {t.get("glyph") for t in types.values()}
        for r, row in enumerate(ascii_rows):
            for c, glyph in enumerate(row):
                if glyph not in known:
                    raise _glyph_error(rd, ascii_rows, r, c, glyph)
        size = (len(ascii_rows), len(ascii_rows[0]))
    else:
        if "size" not in raw:
            raise rd.fail(("map",), "missing 'size'", expected="size: [rows, columns]")
        size = rd.cell(raw["size"], ("map", "size"))
        if size[0] < 3 or size[1] < 3:
            raise rd.fail(("map", "size"), "map too small", found=list(size),
                          expected="at least [3, 3]")
    border = raw.get("border", "bedrock" if ascii_rows is None else None)
    if border is not None:
        border = rd.type_name(border, ("map", "border"), types)

    def check_cell(cell: tuple[int, int], path: KeyPath) -> tuple[int, int]:
        if not _in_map(size, cell):
            raise rd.fail(path, "placement outside the map", found=list(cell),
                          expected=f"a cell within [0..{size[0] - 1}, 0..{size[1] - 1}]")
        return cell

    rooms = []
    raw_rooms = rd.mapping(raw.get("rooms"), ("map", "rooms"), nullable=True)
    if not raw_rooms and ascii_rows is None:
        inset = 1 if border else 0
        raw_rooms = {"main": {"start": [inset, inset],
                              "end": [size[0] - 1 - inset, size[1] - 1 - inset]}}
    for rname, rraw in raw_rooms.items():
        path = ("map", "rooms", rname)
        rraw = rd.mapping(rraw, path, {"start", "end"})
        start = check_cell(rd.cell(rraw.get("start"), (*path, "start")), (*path, "start"))
        end = check_cell(rd.cell(rraw.get("end"), (*path, "end")), (*path, "end"))
        if start[0] > end[0] or start[1] > end[1]:
            raise rd.fail(path, "room start is after its end", found=[list(start), list(end)],
                          expected="start <= end in both coordinates")
        rooms.append(RoomSpec(str(rname), start, end))
    room_names = {r.name for r in rooms}

    walls = []
    for i, wraw in enumerate(raw.get("walls") or []):
        path = ("map", "walls", i)
        wraw = rd.mapping(wraw, path, {"from", "to", "type"})
        a = check_cell(rd.cell(wraw.get("from"), (*path, "from")), (*path, "from"))
        b = check_cell(rd.cell(wraw.get("to"), (*path, "to")), (*path, "to"))
        if a[0] != b[0] and a[1] != b[1]:
            raise rd.fail(path, "walls run along a row or a column", found=[list(a), list(b)],
                          expected="from and to sharing a row or a column")
        walls.append(WallSpec(a, b, rd.type_name(wraw.get("type", border or "bedrock"),
                                                 (*path, "type"), types)))
    doors = []
    for i, draw in enumerate(raw.get("doors") or []):
        path = ("map", "doors", i)
        draw = rd.mapping(draw, path, {"at", "type"})
        doors.append(DoorSpec(check_cell(rd.cell(draw.get("at"), (*path, "at")), (*path, "at")),
                              rd.type_name(draw.get("type", "door"), (*path, "type"), types)))
    objects = []
    for tname, oraw in rd.mapping(raw.get("objects"), ("map", "objects"), nullable=True).items():
        path = ("map", "objects", tname)
        if tname not in types or types[tname].get("abstract"):
            raise rd.fail(path, f"unknown entity type '{tname}'", found=tname, key=True,
                          expected="a concrete type declared under entity_types")
        if isinstance(oraw, int) and not isinstance(oraw, bool):
            oraw = {"quantity": oraw}
        oraw = rd.mapping(oraw, path, {"quantity", "room", "at"})
        at = tuple(check_cell(rd.cell(c, (*path, "at", i)), (*path, "at", i))
                   for i, c in enumerate(oraw.get("at") or []))
        quantity = rd.integer(oraw.get("quantity", len(at) or 1), (*path, "quantity"),
                              minimum=0)
        room = oraw.get("room")
        if room is not None and str(room) not in room_names:
            raise rd.fail((*path, "room"), f"unknown room '{room}'", found=room,
                          expected="one of " + ", ".join(sorted(room_names)))
        objects.append(PlacementSpec(tname, quantity, None if room is None else str(room), at))
    return MapSpec(size=size, border=border, rooms=tuple(rooms), walls=tuple(walls),
                   doors=tuple(doors), objects=tuple(objects), ascii=ascii_rows,
                   legend=MappingProxyType(legend), surround=parse_surround(rd, raw, types))


def parse_surround(rd: SpecReader, raw: Mapping[str, Any], types: Mapping[str, Any]
                   ) -> tuple[SurroundSpec, ...]:
    """`map.surround`: shared by drawn and generated maps (spec/generation.py)."""
    out = []
    for i, sraw in enumerate(raw.get("surround") or []):
        path = ("map", "surround", i)
        sraw = rd.mapping(sraw, path, {"target", "with"})
        for key in ("target", "with"):
            if key not in sraw:
                raise rd.fail(path, f"missing '{key}'", expected="{target: <type>, with: <type>}")
        out.append(SurroundSpec(rd.type_name(sraw["target"], (*path, "target"), types),
                                rd.type_name(sraw["with"], (*path, "with"), types)))
    return tuple(out)


def _glyph_error(rd: SpecReader, rows: tuple[str, ...], r: int, c: int, glyph: str
                 ) -> SpecError:
    """Locate a bad glyph at its own row and column in the source text (rows are matched in
    order below the `ascii` key), falling back to the key itself."""
    message = f"glyph '{glyph}' has no type"
    expected = "a legend entry, or an entity type declaring that glyph"
    start = rd.smap.locate(("map", "ascii"))
    k = 0
    for i in range(start.line - 1, len(rd.smap.lines)):
        line = rd.smap.lines[i]
        if rows[k] in line:
            if k == r:
                loc = Location(start.file, i + 1, line.index(rows[k]) + c + 1)
                return SpecError(message, location=loc, key_path="map.ascii", found=glyph,
                                 expected=expected)
            k += 1
    return rd.fail(("map", "ascii"), message, found=glyph, expected=expected)


def _blocked_cells(m: MapSpec, types: Mapping[str, EntityTypeSpec]) -> set[tuple[int, int]]:
    """Cells the fixed parts of the layout make solid (border, walls, ASCII, fixed objects)."""
    h, w = m.size
    blocked: set[tuple[int, int]] = set()
    if m.ascii is not None:
        by_glyph = {t.glyph: t for t in types.values() if t.glyph}
        by_glyph.update({g: types[n] for g, n in m.legend.items()})
        blocked |= {(r, c) for r, row in enumerate(m.ascii) for c, ch in enumerate(row)
                    if by_glyph[ch].blocks_movement}
    if m.border and types[m.border].blocks_movement:
        blocked |= {(r, c) for r in range(h) for c in range(w)
                    if r in (0, h - 1) or c in (0, w - 1)}
    for wall in m.walls:
        (r0, c0), (r1, c1) = wall.start, wall.end
        blocked |= {(r, c) for r in range(min(r0, r1), max(r0, r1) + 1)
                    for c in range(min(c0, c1), max(c0, c1) + 1)}
    for door in m.doors:
        blocked.discard(door.at)
    for p in m.objects:
        if types[p.type].blocks_movement:
            blocked |= set(p.at)
    return blocked


def _agents(rd: SpecReader, raw: Any, types: Mapping[str, Any], world_map: MapSpec,
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
            if not _in_map(world_map.size, at):
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


def _obtainable(spec: WorldSpec) -> set[str]:
    """Items the main agent could ever hold: a fixed point over drops, recipes, trades, rules."""
    have = set(spec.agents[spec.main_agent].inventory)
    in_world = {p.type for p in spec.map.objects if p.quantity > 0}
    if spec.map.ascii is not None:
        glyph_types = {t.glyph: t.name for t in spec.entity_types.values() if t.glyph}
        glyph_types.update(spec.map.legend)
        in_world |= {glyph_types[ch] for row in spec.map.ascii for ch in row}
    in_world |= {a.type for a in spec.agents.values()}
    changed = True
    while changed:
        before = len(have) + len(in_world)
        for t in list(in_world):
            et = spec.entity_types[t]
            if et.breakable and (et.break_tool is None or et.break_tool in have):
                have |= set(et.drops)
                if et.on_break:
                    in_world.add(et.on_break.spawn)
            for rule in (et.collect, et.use):
                if rule and (rule.holding is None or rule.holding in have) and set(
                        rule.consumes) <= have:
                    have |= set(rule.gives)
        for item in list(have):
            et = spec.entity_types[item]
            if et.placeable:
                in_world.add(item)
                if et.grows_into:
                    in_world.add(et.grows_into.spawn)
        for r in spec.recipes.values():
            if set(r.inputs) <= have and (r.station is None or r.station in in_world):
                have |= set(r.outputs)
        for t in spec.trades.values():
            if set(t.inputs) <= have and t.trader in in_world:
                have |= set(t.outputs)
        changed = len(have) + len(in_world) != before
    return have


def _check_goal_reachable(rd: SpecReader, spec: WorldSpec) -> None:
    have = _obtainable(spec)
    for item in spec.goal:
        if item not in have:
            raise rd.fail(("goal", "inventory", item), f"goal item '{item}' can never be "
                          "obtained", found=item, expected="an item that some drop, recipe, "
                          "trade or interaction can give the main agent")

