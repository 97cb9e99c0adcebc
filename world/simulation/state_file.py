"""Saved states (`World.save`) read back with every field checked against the world's spec.

A state file is trusted by nothing that runs after it: the step loop indexes arrays with its
positions and type ids, numba kernels hash its key and step, and numpy casts its numbers to
int8/int16/int32. A value off the map or out of a dtype's range would surface steps later as
an IndexError or a silent wrap-around. So every field is checked here, before any of it is
used, and a bad one is a SpecError naming the file and the field path (`state.pos[1][0]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.json_input import Fields
from nesyworld.world.simulation.state import Scheduled, WorldState
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

FORMAT = "nesyworld.state/1"
WHAT = f"a saved state ({FORMAT}) from World.save"
MAX_BYTES = 64 * 2**20
"""A 500x500 map with its schedule and props is a few MB; more is not a state file."""
MAX_COUNT = 2**30
"""Inventory counts and hits: far above any game, far enough below int32 to never wrap."""
MAX_STEP = 2**31 - 1
MAX_VERSION = 2**62
MAX_NOVELTIES = 64
MAX_PROPERTY_TEXT = 200
REGROW = ("", "same", "random")
STATE_FIELDS = ("grid", "pos", "facing", "under", "inventory", "selected", "props",
                "schedule", "step", "gave_up", "static_version")
STATE_OPTIONAL = ("key", "damage", "fired")


def check_header(data: Any, file: str) -> dict[str, Any]:
    """The top level of a state file: format, spec reference and novelties."""
    f = Fields(file)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise f.fail("format", "not a nesyworld state file", f"'{FORMAT}'", found)
    doc = f.mapping(data, "", ("format", "state", "rng"),
                    ("spec", "novelties", "stream", "resets"))
    if doc.get("spec") is not None:
        f.string(doc["spec"], "spec", 4096, "the path of the spec file")
    novelties = f.listing(doc.get("novelties", []), "novelties", MAX_NOVELTIES,
                          "a list of novelty files or names")
    for i, n in enumerate(novelties):
        f.string(n, f"novelties[{i}]", 4096, "a novelty file or name")
    return doc


def saved_spec(doc: dict[str, Any], name: str) -> WorldSpec:
    """The spec a state file names, with its novelties applied."""
    source = doc.get("spec")
    if source is None:
        raise SpecError("saved from a spec that has no file (YAML text or a mapping)",
                        file=name, key_path="spec",
                        expected="the spec passed again: World.load(path, spec=...)")
    if "\n" in source:  # load_spec would read it as YAML text
        raise SpecError("not a file name", file=name, key_path="spec",
                        expected="the path or name of a spec file", found=source)
    try:
        if doc.get("novelties"):
            from nesyworld.world.novelty.transforms import apply_novelties

            return apply_novelties(source, doc["novelties"])
        return load_spec(source)
    except SpecError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SpecError(f"cannot build the saved spec ({type(exc).__name__})", file=name,
                        key_path="novelties" if doc.get("novelties") else "spec",
                        expected="a spec file and novelties that still load") from None


def check_state(doc: dict[str, Any], file: str, world: World) -> tuple[WorldState, Any, Any]:
    """The saved WorldState, the generator state and (stream, resets) or None, all checked
    against `world` (built from the spec the file names)."""
    f = Fields(file)
    state = _state(f, f.mapping(doc["state"], "state", STATE_FIELDS, STATE_OPTIONAL), world)
    rng = _rng(f, doc["rng"], world.rng.bit_generator.state)
    stream = None
    if "stream" in doc or "resets" in doc:  # files written before episode keys have none
        f.mapping(doc, "", ("stream", "resets"), tuple(doc))
        stream = (f.integer(doc["stream"], "stream", 0, 2**32 - 1),
                  f.integer(doc["resets"], "resets", 0, 2**62))
    return state, rng, stream


def _state(f: Fields, d: dict[str, Any], world: World) -> WorldState:
    spec, types = world.spec, world.types
    shape = world.state.grid.shape  # the spec's map: layouts never change its size
    h, w = int(shape[0]), int(shape[1])
    n, t = len(world.agent_names), len(types)
    last = t - 1
    f.int_rows(d["grid"], "state.grid", (h, w), 0, last, f"{h} rows of {w} type ids")
    pos = [f.cell(p, f"state.pos[{i}]", (h, w))
           for i, p in enumerate(f.listing(d["pos"], "state.pos", n, "one cell per agent",
                                           length=n))]
    f.int_rows(d["facing"], "state.facing", (n,), 0, 3, "a direction 0-3 per agent")
    f.int_rows(d["under"], "state.under", (n,), 0, last, "the floor type under each agent")
    f.int_rows(d["inventory"], "state.inventory", (n, t), 0, MAX_COUNT,
               f"{n} rows of {t} item counts")
    f.int_rows(d["selected"], "state.selected", (n,), 0, last, "a type id per agent")
    grid = np.array(d["grid"], dtype=np.int16).reshape(h, w)
    under = np.array(d["under"], dtype=np.int16).reshape(n)
    agent_ids = [types.id(spec.agents[name].type) for name in world.agent_names]
    seen: dict[tuple[int, int], int] = {}
    for i, cell in enumerate(pos):
        if cell in seen:
            raise f.fail(f"state.pos[{i}]", f"agent {i} stands on agent {seen[cell]}'s cell",
                         "one agent per cell")
        seen[cell] = i
        if grid[cell] != agent_ids[i]:
            raise f.fail(f"state.grid[{cell[0]}][{cell[1]}]", "not the agent standing there",
                         f"type id {agent_ids[i]} ({world.agent_names[i]})", int(grid[cell]))
    agent_types = np.array(sorted(set(agent_ids)), np.int16)
    if int(np.isin(grid, agent_types).sum()) != n:
        r, c = next((int(r), int(c)) for r, c in np.argwhere(np.isin(grid, agent_types))
                    if (int(r), int(c)) not in seen)
        raise f.fail(f"state.grid[{r}][{c}]", "an agent's type where no agent stands",
                     "agent types only at the agents' positions", int(grid[r, c]))
    for i, u in enumerate(under.tolist()):
        if u in agent_types:
            raise f.fail(f"state.under[{i}]", "an agent's type as floor",
                         "the floor type under the agent", u)
    return WorldState(
        grid=grid,
        pos=np.array(pos, dtype=np.int32).reshape(n, 2),
        facing=np.array(d["facing"], dtype=np.int8).reshape(n),
        under=under,
        inventory=np.array(d["inventory"], dtype=np.int32).reshape(n, t),
        selected=np.array(d["selected"], dtype=np.int16).reshape(n),
        props=_props(f, d["props"], (h, w), world.spec.property_names),
        schedule=_schedule(f, d["schedule"], (h, w), last),
        step=f.integer(d["step"], "state.step", 0, MAX_STEP),
        gave_up=f.boolean(d["gave_up"], "state.gave_up"),
        static_version=f.integer(d["static_version"], "state.static_version", 0, MAX_VERSION),
        key=f.integer(d.get("key", 0), "state.key", 0, 2**32 - 1),
        damage=_damage(f, d.get("damage", []), (h, w)),
        fired=_fired(f, d.get("fired", []), len(spec.events)),
    )


def _props(f: Fields, raw: Any, shape: tuple[int, int],
           names: frozenset[str]) -> dict[tuple[int, int], dict[str, Any]]:
    items = f.listing(raw, "state.props", shape[0] * shape[1], "[[row, column], {name: value}]")
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for i, item in enumerate(items):
        path = f"state.props[{i}]"
        pair = f.listing(item, path, 2, "[[row, column], {name: value}]", length=2)
        cell = f.cell(pair[0], f"{path}[0]", shape)
        if cell in out:
            raise f.fail(f"{path}[0]", "a cell listed twice", "each cell once")
        values = f.mapping(pair[1], f"{path}[1]", (), sorted(names))
        for k, v in values.items():
            if v is not None and type(v) not in (bool, int, float, str):
                raise f.fail(f"{path}[1].{k}", "not a plain value",
                             "true, false, a number, a string or null")
            if isinstance(v, str):
                f.string(v, f"{path}[1].{k}", MAX_PROPERTY_TEXT)
            if type(v) in (int, float):
                f.number(v, f"{path}[1].{k}")
        out[cell] = dict(values)
    return out


def _schedule(f: Fields, raw: Any, shape: tuple[int, int], last: int) -> list[Scheduled]:
    form = "[due step, [row, column], type id, expected type id(, regrow)]"
    items = f.listing(raw, "state.schedule", 8 * shape[0] * shape[1] + 1024, form)
    out = []
    for i, item in enumerate(items):
        path = f"state.schedule[{i}]"
        entry = f.listing(item, path, 5, form)
        if len(entry) < 4:
            raise f.fail(path, f"{len(entry)} items", f"4 or 5: {form}")
        regrow = f.one_of(entry[4], f"{path}[4]", REGROW) if len(entry) == 5 else ""
        out.append(Scheduled(f.integer(entry[0], f"{path}[0]", 0, 2 * MAX_STEP),
                             f.cell(entry[1], f"{path}[1]", shape),
                             f.integer(entry[2], f"{path}[2]", 0, last),
                             f.integer(entry[3], f"{path}[3]", 0, last), regrow))
    return out


def _damage(f: Fields, raw: Any, shape: tuple[int, int]) -> dict[tuple[int, int], int]:
    items = f.listing(raw, "state.damage", shape[0] * shape[1], "[[row, column], hits]")
    out = {}
    for i, item in enumerate(items):
        pair = f.listing(item, f"state.damage[{i}]", 2, "[[row, column], hits]", length=2)
        out[f.cell(pair[0], f"state.damage[{i}][0]", shape)] = f.integer(
            pair[1], f"state.damage[{i}][1]", 0, MAX_COUNT)
    return out


def _fired(f: Fields, raw: Any, n_events: int) -> tuple[int, ...]:
    expected = f"indices of the spec's {n_events} events"
    items = f.listing(raw, "state.fired", n_events, expected)
    if n_events == 0 and items:
        raise f.fail("state.fired", "the spec has no events", "an empty list")
    out = tuple(f.integer(v, f"state.fired[{i}]", 0, max(n_events - 1, 0))
                for i, v in enumerate(items))
    if len(set(out)) != len(out):
        raise f.fail("state.fired", "an event listed twice", expected)
    return out


def _rng(f: Fields, raw: Any, template: Mapping[str, Any]) -> dict[str, Any]:
    """A generator state of the same kind as the world's, every number in range: numpy
    checks little of it and raises several kinds of errors on the rest."""
    doc = f.mapping(raw, "rng", tuple(template))
    f.one_of(doc["bit_generator"], "rng.bit_generator", (template["bit_generator"],))

    def walk(value: Any, like: Any, path: str) -> None:
        if isinstance(like, dict):
            f.mapping(value, path, tuple(like))
            for k in like:
                walk(value[k], like[k], f"{path}.{k}")
        elif type(like) is int:
            f.integer(value, path, 0, 2**128 - 1)
        elif isinstance(like, str):
            f.string(value, path, 64)

    for key in template:
        if key != "bit_generator":
            walk(doc[key], template[key], f"rng.{key}")
    f.integer(doc.get("has_uint32", 0), "rng.has_uint32", 0, 1)
    f.integer(doc.get("uinteger", 0), "rng.uinteger", 0, 2**32 - 1)
    return doc
