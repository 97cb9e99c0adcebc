"""The level editor's model: a map the user paints, turned into a spec and its PDDL.

A level starts from a shipped (or given) spec, laid out once with a seed, so the user edits a
concrete map rather than the spec's random placement rules. Saving writes a standalone spec:
the base's registries as they are, the painted map as `map.ascii`, and every agent pinned to
its cell, so the file needs nothing else to load and the derived PDDL shows what the planner
will see.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.pddl.writer import write_pddl
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World
from nesyworld.world.errors import SpecError
from nesyworld.world.observations.rgb_view import type_colors
from nesyworld.world.simulation.pathfinding import dilate4, reachable
from nesyworld.world.spec.loader import load_document, load_spec

LEVEL_FILE = "level.yaml"
"""The name errors in an unsaved level point into."""
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
MAX_SIDE = 128
"""The most rows, and cells per row, a level may have: 8x the shipped maps' side, and small
enough that deriving its PDDL answers in about a second."""
MAX_AGENTS = 64
PLANNER = "in-process"
"""The planner behind the editor's Plan button: the fast one, in this process."""
PLAN_NODES = 200_000
"""The most states the Plan button's search expands: a painted level answers in seconds."""
APPROACH = "approach_"


class LevelError(ValueError):
    """A level that does not make a valid spec; `where` is level.yaml:line:column."""

    def __init__(self, message: str, where: str = "", expected: str = "") -> None:
        self.message, self.where, self.expected = message, where, expected
        super().__init__(f"{where}: {message}" if where else message)


@dataclass
class Level:
    """A painted map: cell type names row by row, and where each agent stands."""

    base: str
    name: str
    cells: list[list[str]]
    agents: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Any) -> Level:
        if not isinstance(data, dict):
            raise LevelError("a level must be an object", expected="base, name, cells, agents")
        missing = [k for k in ("base", "name", "cells") if k not in data]
        if missing:
            raise LevelError(f"the level has no '{missing[0]}'",
                             expected="base, name, cells, agents")
        cells = data["cells"]
        if not (isinstance(cells, list) and cells and all(
                isinstance(row, list) and row and all(isinstance(c, str) for c in row)
                for row in cells)):
            raise LevelError("'cells' must be rows of type names", expected="a non-empty grid")
        if len(cells) > MAX_SIDE or any(len(row) > MAX_SIDE for row in cells):
            raise LevelError("the map is too large", "cells",
                             f"at most {MAX_SIDE} rows of at most {MAX_SIDE} cells")
        agents = data.get("agents") or {}
        if not isinstance(agents, dict) or len(agents) > MAX_AGENTS or not all(
                isinstance(v, list) and len(v) == 2 and all(
                    isinstance(x, int) and not isinstance(x, bool) and 0 <= x < MAX_SIDE
                    for x in v) for v in agents.values()):
            raise LevelError("'agents' must map agent names to [row, column]", "agents",
                             f"at most {MAX_AGENTS} agents on cells of the map")
        if not all(isinstance(data[k], str) for k in ("base", "name")):
            raise LevelError("'base' and 'name' must be text", expected="a spec and a level name")
        return cls(data["base"], data["name"], cells, dict(agents))


def palette(base: str) -> list[dict[str, Any]]:
    """The types a user can paint: everything that can stand on the map (not actors, not
    inventory-only items)."""
    spec = load_spec(base)
    world = World(spec)
    rgb = type_colors(world.types.names, world.types.colors)
    out = []
    for i, name in enumerate(world.types.names):
        t = spec.entity_types[name]
        if t.cls in ("actor", "category") or (t.cls == "item" and not t.placeable):
            continue
        out.append({"name": name, "glyph": world.types.glyphs[i],
                    "color": list(t.color) if t.color else None, "rgb": list(rgb[i]),
                    "class": t.cls})
    return out


def with_tile_colors(types: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A recording's type table with each type's tile colour (`rgb`) from the RGB renderer's
    palette, so the page draws no colour of its own."""
    rgb = type_colors([t["name"] for t in types], [t.get("color") for t in types])
    return [{**t, "rgb": list(c)} for t, c in zip(types, rgb, strict=True)]


def agent_glyphs(base: str) -> dict[str, str]:
    """Each agent's glyph (its type's), for drawing agents apart from the map."""
    world = World(base)
    spec = world.spec
    return {name: world.types.glyphs[world.types.id(spec.agents[name].type)]
            for name in world.agent_names}


def level_of(base: str, seed: int = 0) -> Level:
    """The base spec's map as laid out by `seed`, with the agents lifted off it."""
    world = World(base)
    world.reset(seed)
    st, names = world.state, world.types.names
    grid = st.grid.copy()
    agents = {}
    for a, agent in enumerate(world.agent_names):
        r, c = int(st.pos[a, 0]), int(st.pos[a, 1])
        grid[r, c] = st.under[a]
        agents[agent] = [r, c]
    cells = [[names[int(v)] for v in row] for row in grid]
    return Level(base, f"{world.spec.name}_edited", cells, agents)


def level_yaml(level: Level) -> str:
    """The standalone spec a level saves as."""
    if not NAME.match(level.name):
        raise LevelError(f"bad level name '{level.name}'",
                         expected="a letter, then letters, digits, _ or - (64 at most)")
    try:
        doc, _ = load_document(level.base)
    except SpecError as exc:
        raise LevelError(f"the base spec does not load: {exc}", expected="a valid spec"
                         ) from exc
    doc = copy.deepcopy(doc)
    world = World(level.base)
    glyph = dict(zip(world.types.names, world.types.glyphs, strict=True))
    widths = {len(row) for row in level.cells}
    if len(widths) != 1:
        raise LevelError("the rows of the map differ in length", expected="a rectangle")
    unknown = sorted({c for row in level.cells for c in row} - set(glyph))
    if unknown:
        raise LevelError(f"unknown entity type '{unknown[0]}'",
                         expected=f"one of {sorted(glyph)}")
    doc["name"] = level.name
    doc["description"] = f"{level.name}: a level painted in the studio from {level.base}."
    old_map = doc.get("map") or {}
    new_map: dict[str, Any] = {
        "ascii": "\n".join("".join(glyph[c] for c in row) for row in level.cells) + "\n",
        "legend": {glyph[t]: t for t in sorted({c for row in level.cells for c in row})},
    }
    if "surround" in old_map:
        new_map["surround"] = old_map["surround"]
    doc["map"] = new_map
    for name, agent in (doc.get("agents") or {}).items():
        if not isinstance(agent, dict):
            continue
        agent.pop("room", None)
        if name in level.agents:
            agent["at"] = list(level.agents[name])
    return yaml.dump(doc, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True)


def derive_level(level: Level) -> dict[str, str]:
    """The level's spec as YAML and its derived PDDL; errors point into that YAML."""
    text = level_yaml(level)
    try:
        spec = load_spec(text)
        domain, problem = write_pddl(derive(spec))
    except SpecError as exc:
        where = ""
        if exc.location is not None:
            where = f"{LEVEL_FILE}:{exc.location.line}:{exc.location.column}"
        raise LevelError(exc.message + (f" (at '{exc.key_path}')" if exc.key_path else ""),
                         where, exc.expected) from exc
    return {"yaml": text, "domain": domain, "problem": problem}


def plan_level(level: Level) -> dict[str, Any]:
    """The level checked as the agent will meet it: its PDDL, a plan from the project's
    planner, and whether the agent can walk to what that plan approaches. The abstraction
    does not model the map's walls, so a walled-in agent still has a symbolic plan; the walk
    check on the laid-out map is what tells the user the goal is out of reach."""
    derived = derive_level(level)
    spec = load_spec(derived["yaml"])
    with Planner(PLANNER, max_nodes=PLAN_NODES) as planner:
        result = planner.plan(derive(spec))
    steps = [str(s) for s in result.steps]
    out: dict[str, Any] = {**derived, "status": result.status, "plan": steps,
                           "seconds": round(result.seconds, 3), "reachable": result.ok,
                           "why": ""}
    if not result.ok:
        out["why"] = (f"the planner ({PLANNER}) finds no plan: " + (
            "the goal cannot be reached with the operators the spec derives"
            if result.status == "unsolvable" else
            f"it gave up ({result.message or 'search limit'})"))
        return out
    blocked = unreachable_target(spec, steps)
    if blocked:
        out["reachable"], out["why"] = False, blocked
    return out


def unreachable_target(spec: Any, steps: list[str]) -> str:
    """Why the main agent cannot walk to a type the plan approaches, or "" when it can."""
    world = World(spec)
    world.reset(0)
    st = world.state
    start = (int(st.pos[world.main, 0]), int(st.pos[world.main, 1]))
    near = dilate4(reachable(world.passable_mask(), start))
    names = world.types.names
    for k, step in enumerate(steps):
        op = step.split("(")[0]
        target = op[len(APPROACH):] if op.startswith(APPROACH) else ""
        if target not in names:
            continue
        cells = st.grid == names.index(target)
        if not (cells & near).any():
            return (f"the goal is unreachable: the agent at row {start[0]}, column "
                    f"{start[1]} cannot walk to any {target} (plan step {k + 1}, {step})")
    return ""


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings (the ASCII map) as readable `|` blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True  # the spec is read by people: repeat a value rather than alias it


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    """Cells (`at: [3, 4]`) and other lists of numbers stay on one line."""
    flow = all(isinstance(v, int | float) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_BlockDumper.add_representer(str, _str)
_BlockDumper.add_representer(list, _list)
