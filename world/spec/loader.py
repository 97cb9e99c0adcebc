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

from nesyworld.world.errors import SpecError
from nesyworld.world.spec.agents_section import parse_agents
from nesyworld.world.spec.costs_section import parse_action_costs
from nesyworld.world.spec.entity_types import parse_entity_types
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
        max_steps=rd.integer(top.get("max_steps", 400), ("max_steps",), minimum=1),
        reward=reward,
        observation_noise=_spec_observation.parse_observation(rd, top.get("observation")).noise,
        multiagent=_spec_teams.parse_multiagent(rd, top.get("multiagent"), raw_types, agents,
                                                goal),
        description=str(top.get("description", "")),
        scent=_parse_scent(rd, top.get("scent"), raw_types),
        source=smap.file,
        lifelong=lifelong,
        events=parse_events(rd, top.get("events"), raw_types, entity_types, world_map, agents,
                            main_agent),
    )
    check_goal_reachable(rd, spec)
    return spec


