"""Reading and validating world specs.

Every check reports file:line:column, what was found and what was expected, because a spec is
where most users start and a vague error there costs the most time.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from nesyworld.world.errors import SpecError
from nesyworld.world.input_files import irregular_kind, is_regular_file
from nesyworld.world.spec.agents_section import parse_agents
from nesyworld.world.spec.bounds import MAX_COUNT, MAX_DEPTH, MAX_NODES, MAX_STEPS
from nesyworld.world.spec.costs_section import parse_action_costs
from nesyworld.world.spec.entity_types import normalise_types, parse_entity_types
from nesyworld.world.spec.events_section import parse_events
from nesyworld.world.spec.map_section import blocked_cells, parse_map
from nesyworld.world.spec.model import (
    ActionSpec,
    RecipeSpec,
    RewardSpec,
    TradeSpec,
    WorldSpec,
    frozen_counts,
)
from nesyworld.world.spec.reachability import check_goal_reachable
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.scent import parse_scent as _parse_scent
from nesyworld.world.spec.yaml_source import (
    SourceMap,
    load_yaml_file,
    load_yaml_text,
    merge_documents,
)

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
    "events": "things that happen mid-episode: spawn, remove, move, set (spec/events_section.py)",
}


def load_spec(source: str | Path | Mapping[str, Any]) -> WorldSpec:
    """Load a world spec from a YAML file path, YAML text, or an already-parsed mapping.

    Shipped specs can be named by their short id, e.g. ``load_spec("pogostick")``.
    """
    return build_spec(*load_document(source))


def load_spec_text(text: str, file: str | Path) -> WorldSpec:
    """A spec from YAML text as if read from `file`: errors name `file`, and a relative
    `extends:` resolves beside it; `file` itself is never read (an editor's unsaved buffer,
    a fuzzed variant of a shipped spec)."""
    data, smap = load_yaml_text(text, str(file))
    return build_spec(*resolve_extends(data, smap))


def load_document(source: str | Path | Mapping[str, Any]) -> tuple[Any, SourceMap]:
    """A spec's raw document (with `extends` resolved) and where each value came from: what
    novelties transform before the spec is validated."""
    if isinstance(source, Mapping):
        # Round-trip through YAML so a mapping gets the same checks and located errors.
        return load_yaml_text(mapping_yaml(source), "<mapping>")
    if not isinstance(source, str | Path):
        raise SpecError("not a spec", found=type(source).__name__,
                        expected="a YAML file path, a shipped spec name, YAML text or a mapping")
    path = resolve_spec_path(source)
    if path is not None:
        data, smap = load_yaml_file(path)
    else:
        data, smap = load_yaml_text(str(source), "<string>")
    return resolve_extends(data, smap)


def mapping_yaml(source: Mapping[str, Any]) -> str:
    """A parsed mapping as YAML text, after checking it holds only what YAML text could (so
    the dump neither recurses without end nor fails on an object it cannot write)."""
    todo: list[tuple[Any, int]] = [(source, 1)]
    seen = 0
    while todo:
        value, depth = todo.pop()
        seen += 1
        if depth > MAX_DEPTH or seen > MAX_NODES:
            raise SpecError("mapping too deep or too large", file="<mapping>",
                            expected=f"at most {MAX_DEPTH} levels and {MAX_NODES:,} values")
        if isinstance(value, Mapping):
            for k, v in value.items():
                if not isinstance(k, str | int | float | bool) and k is not None:
                    raise SpecError("unsupported key", file="<mapping>", found=k,
                                    expected="text, a number, true, false or null")
                todo.append((v, depth + 1))
        elif isinstance(value, list | tuple):
            todo.extend((v, depth + 1) for v in value)
        elif not isinstance(value, str | int | float | bool) and value is not None:
            raise SpecError("unsupported value", file="<mapping>", found=value,
                            expected="text, a number, true, false, null, a list or a mapping")
    plain = _plain(source)
    return yaml.safe_dump(plain, sort_keys=False)


def _plain(value: Any) -> Any:
    """Mappings as dicts and tuples as lists (what safe_dump writes); depth already bounded."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def resolve_extends(data: Any, smap: SourceMap, depth: int = 0,
                    find: Callable[[str], Path | None] | None = None,
                    kind: str = "spec") -> tuple[Any, SourceMap]:
    """Apply `extends: <base>`: the document is deep-merged onto its base.

    A variant of a task (the full pogostick task, a novelty) states only what differs, and the
    base stays the single source of the rest. The base is a path relative to the document's
    file or what `find` names (a shipped spec's name by default); novelties extend novelties
    the same way (world/novelty/reading.py).
    """
    if not isinstance(data, dict) or "extends" not in data:
        return data, smap
    if depth > 8:
        raise smap.error(("extends",), "extends chain too deep (a cycle?)",
                         expected="at most 8 levels")
    ref = data["extends"]
    if not isinstance(ref, str) or not ref or "\n" in ref:
        raise smap.error(("extends",), "wrong type", found=ref,
                         expected=f"a {kind} path or name")
    base_path = Path(smap.file).parent / ref
    if not _is_file(base_path):
        try:
            found = (find or resolve_spec_path)(ref)
        except SpecError:
            found = None
        if found is None:
            raise smap.error(("extends",), f"cannot find base {kind} '{_cut(ref)}'", found=ref,
                             expected=f"a path relative to this file or a shipped {kind} name")
        base_path = found
    base, base_map = resolve_extends(*load_yaml_file(base_path), depth + 1, find, kind)
    over = {k: v for k, v in data.items() if k != "extends"}
    return merge_documents(base, base_map, over, smap)


def resolve_spec_path(source: str | Path) -> Path | None:
    """A file path, or a shipped spec's short name (``pogostick`` -> domains/polycraft/...)."""
    from nesyworld.domains import find_spec, shipped_specs

    return resolve_source(source, find_spec, "spec", "`nesyworld specs`", shipped_specs())


def _cut(text: str, limit: int = 200) -> str:
    """A path or name for a message: whole unless absurdly long."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _is_file(path: Path) -> bool:
    """Whether `path` is a regular file, False for a name the system refuses (too long, a NUL
    byte): a FIFO or a device is never taken for a spec file (input_files.py)."""
    return is_regular_file(path)


def resolve_source(source: str | Path, find: Any, kind: str, listing: str,
                   names: Iterable[str] = ()) -> Path | None:
    """Where a spec or novelty argument points: an existing file, a shipped name (`find`), or
    None for YAML text. A missing .yaml path or an unknown bare name is an error that says
    what was expected, rather than text that fails to parse, and names the closest of the
    shipped `names` when one is close."""
    text = str(source)
    if "\n" in text:
        return None
    path = Path(text)
    if _is_file(path):
        return path
    try:
        found = find(text)
    except (OSError, ValueError):  # a name the file system refuses is no shipped name
        found = None
    if found is not None:
        return found
    other = irregular_kind(path)
    if other is not None:
        raise SpecError(f"'{_cut(text)}' is {other}, not a regular file",
                        expected=f"a regular YAML file or a name listed by {listing}")
    if text.endswith((".yaml", ".yml")) or not any(ch in text for ch in ":{}[]"):
        close = difflib.get_close_matches(text, list(names), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise SpecError(f"no such {kind} file or shipped {kind}: '{_cut(text)}'{hint}",
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
    raw_types = normalise_types(rd, raw_types, ENTITIES)
    entity_types = parse_entity_types(rd, raw_types, ENTITIES)

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
        params = {k: v for k, v in raw.items() if k not in ("class", "cost", "costs")}
        for key, value in params.items():
            allowed = getattr(cls, "PARAMS", {})
            if key not in allowed:
                raise rd.fail((*path, key), f"unknown parameter '{key}' for action class "
                              f"'{cls_name}'", key=True,
                              expected="one of " + (", ".join(sorted(allowed)) or "no parameters"))
            check = allowed[key]
            if isinstance(check, tuple) and (isinstance(value, bool) or value not in check):
                raise rd.fail((*path, key), "invalid value", found=value,
                              expected="one of " + ", ".join(map(str, check)))
            if check == "types":  # a list of concrete entity types
                for i, item in enumerate(rd.sequence(value, (*path, key),
                                                     "a list of entity types", nullable=False)):
                    rd.type_name(item, (*path, key, i), raw_types)
            elif check == "type":
                rd.type_name(value, (*path, key), raw_types)
            elif check == "probability":
                rd.number(value, (*path, key), minimum=0.0, maximum=1.0)
            elif check == "count":
                rd.integer(value, (*path, key), minimum=1, maximum=MAX_COUNT)
        cost = rd.number(raw.get("cost", 1), (*path, "cost"))
        actions[name] = ActionSpec(name, cls_name, cost, MappingProxyType(params))

    action_sets: dict[str, tuple[str, ...]] = {}
    raw_sets = rd.mapping(top.get("action_sets") or {"main": list(actions)}, ("action_sets",))
    for set_name, items in raw_sets.items():
        path = ("action_sets", set_name)
        names: list[str] = []
        for i, item in enumerate(rd.sequence(items, path, "a list of action names",
                                             nullable=False)):
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

    actions = parse_action_costs(rd, top["actions"], actions, ACTIONS, raw_types,
                                 {"recipes": recipes, "trades": trades})
    world_map = parse_map(rd, top["map"], raw_types)
    agents, main_agent = parse_agents(rd, top["agents"], raw_types, world_map, action_sets,
                                      CONTROLLERS, blocked_cells(world_map, entity_types))
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
        max_steps=rd.integer(top.get("max_steps", 400), ("max_steps",), minimum=1,
                             maximum=MAX_STEPS),
        reward=reward,
        observation_noise=_spec_observation.parse_observation(rd, top.get("observation")).noise,
        multiagent=_spec_teams.parse_multiagent(rd, top.get("multiagent"), raw_types, agents,
                                                goal),
        description=_description(rd, top.get("description")),
        scent=_parse_scent(rd, top.get("scent"), raw_types),
        source=smap.file,
        lifelong=lifelong,
        events=parse_events(rd, top.get("events"), raw_types, entity_types, world_map, agents,
                            main_agent),
    )
    check_goal_reachable(rd, spec)
    return spec


def _description(rd: SpecReader, raw: Any) -> str:
    """Free text; a number or a date is shown as written, a mapping or a list is a mistake."""
    if raw is None:
        return ""
    if isinstance(raw, dict | list):
        raise rd.fail(("description",), "wrong type", found=raw, expected="text")
    return str(raw)


