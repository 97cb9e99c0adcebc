"""networkx views of a task: the type hierarchy and the item/recipe graph.

The planner sees the task as operators; people (and tests) understand it faster as a graph:
which raw materials feed which process, which tool or station each step needs, and how far the
goal is from what the map provides. Both graphs are built from the same registries as
`derive`, so they cannot describe a different task from the one that is planned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx

from nesyworld.symbolic.derivation.derive import Derivation, derive
from nesyworld.world import World, WorldSpec, load_spec

PROCESS_KINDS = ("recipe", "trade", "break", "collect", "use")
SpecLike = WorldSpec | World | str | Path

__all__ = ["PROCESS_KINDS", "SpecLike", "layers", "recipe_graph", "type_graph"]


def _spec(source: SpecLike | Derivation) -> WorldSpec:
    if isinstance(source, Derivation):
        return load_spec(source.source)
    if isinstance(source, World):
        return source.spec
    return source if isinstance(source, WorldSpec) else load_spec(source)


# --------------------------------------------------------------------------- type hierarchy
def type_graph(source: Derivation | SpecLike) -> nx.DiGraph:
    """The entity type hierarchy as child -> parent edges, with every parent (planning types
    keep only the first; the edge attribute ``primary`` marks it). Nodes have ``kind``
    ``category`` or ``concrete`` and their registry ``provenance``."""
    d = source if isinstance(source, Derivation) else derive(_spec(source))
    g: nx.DiGraph[str] = nx.DiGraph(name=d.name)
    for t in d.types:
        g.add_node(t.name, kind="category", provenance=t.provenance)
    for o in d.objects:
        g.add_node(o.name, kind="concrete", provenance=o.provenance)
    for child, first, others in [(t.name, t.parent, t.other_parents) for t in d.types] + [
        (o.name, o.type, o.other_parents) for o in d.objects
    ]:
        if first is not None:
            g.add_edge(child, first, primary=True)
        for p in others:
            g.add_edge(child, p, primary=False)
    return g


# ----------------------------------------------------------------------------- recipe graph
def recipe_graph(spec: SpecLike | Derivation) -> nx.DiGraph:
    """Items and processes as a bipartite graph: thing -> process -> thing.

    Thing nodes (``bipartite=0``) have ``kind`` ``item`` (can be in an inventory; named by its
    type) or ``entity`` (a thing on the map: a tree, an ore, a station, a trader; named by its
    type, or ``<type> (map)`` when the type is also an item, as a log is both a tree and what
    breaking it gives). ``type`` is the entity type, ``raw`` marks what the start provides
    (the map, the agents, the starting inventory) and ``goal`` the goal items. Process nodes
    (``bipartite=1``) are named ``<kind>:<name>`` with ``kind`` in PROCESS_KINDS and
    ``station``/``trader``/``tool`` (None when not needed). Edges carry ``count`` (how many are
    consumed or produced; 0 for what is only needed) and ``role``: input, output, source (the
    faced entity), tool, station, trader, spawn (an entity a break leaves on the map),
    condition or sets. Boolean entity properties are thing nodes of ``kind`` ``property``
    (``lit(oven)``, ``not on_fire(crafting_table)``): a `use` rule that lights an oven sets
    one, and the oven's recipes need it, so that step shows up as a prerequisite too.
    """
    ws = _spec(spec)
    g: nx.DiGraph[str] = nx.DiGraph(name=ws.name, goal=dict(ws.goal))
    main = ws.agents[ws.main_agent]
    on_map = {p.type for p in ws.map.objects if p.quantity > 0 or p.at}
    on_map |= {a.type for a in ws.agents.values()}
    if ws.map.ascii is not None:
        glyphs = {t.glyph: t.name for t in ws.entity_types.values() if t.glyph}
        on_map |= {
            ws.map.legend.get(ch, glyphs.get(ch, "air")) for row in ws.map.ascii for ch in row
        }
    items = set(_item_types(ws))

    def item(name: str) -> str:
        if name not in g:
            g.add_node(
                name,
                bipartite=0,
                kind="item",
                type=name,
                raw=name in main.inventory,
                goal=name in ws.goal,
            )
        return name

    def entity(name: str) -> str:
        node = f"{name} (map)" if name in items else name
        if node not in g:
            g.add_node(node, bipartite=0, kind="entity", type=name, raw=name in on_map, goal=False)
        return node

    def process(
        kind: str, name: str, inputs: dict[str, int], outputs: dict[str, int], **attrs: Any
    ) -> None:
        node = f"{kind}:{name}"
        g.add_node(
            node,
            bipartite=1,
            kind=kind,
            label=name,
            station=attrs.get("station"),
            trader=attrs.get("trader"),
            tool=attrs.get("tool"),
        )
        if attrs.get("source"):
            g.add_edge(entity(attrs["source"]), node, count=attrs["consumed"], role="source")
        for role in ("station", "trader"):
            if attrs.get(role):
                g.add_edge(entity(attrs[role]), node, count=0, role=role)
        if attrs.get("tool"):
            g.add_edge(item(attrs["tool"]), node, count=0, role="tool")
        for name_, k in inputs.items():
            g.add_edge(item(name_), node, count=k, role="input")
        for name_, k in outputs.items():
            g.add_edge(node, item(name_), count=k, role="output")
        if attrs.get("spawn"):
            g.add_edge(node, entity(attrs["spawn"]), count=1, role="spawn")
        needs, sets = attrs.get("needs", {}), attrs.get("sets", {})
        if not (needs or sets):
            return
        # a rule's condition or effect is on the entity the rule belongs to
        owner = attrs.get("source") or attrs.get("station") or attrs.get("trader")
        assert owner is not None, f"{node} sets or needs a property of no entity"
        for prop, value in needs.items():
            g.add_edge(prop_node(owner, prop, value), node, count=0, role="condition")
        for prop, value in sets.items():
            g.add_edge(node, prop_node(owner, prop, value), count=0, role="sets")

    def prop_node(owner: str, prop: str, value: bool) -> str:
        """A boolean property some entity of `owner`'s type must have (or not have)."""
        node = f"{prop}({owner})" if value else f"not {prop}({owner})"
        if node not in g:
            initial = bool(ws.entity_types[owner].properties.get(prop, False)) == value
            g.add_node(
                node,
                bipartite=0,
                kind="property",
                type=owner,
                goal=False,
                raw=initial and owner in on_map,
            )
        return node

    def enabled(type_name: str | None) -> dict[str, bool]:
        if type_name is None:
            return {}
        return {
            p: not v
            for p, v in ws.entity_types[type_name].disabled_when.items()
            if isinstance(v, bool)
        }

    for r in ws.recipes.values():
        process(
            "recipe",
            r.name,
            dict(r.inputs),
            dict(r.outputs),
            station=r.station,
            needs=enabled(r.station),
        )
    for t in ws.trades.values():
        process(
            "trade",
            t.name,
            dict(t.inputs),
            dict(t.outputs),
            trader=t.trader,
            needs=enabled(t.trader),
        )
    for name in ws.concrete_types:
        et = ws.entity_types[name]
        if et.breakable:
            process(
                "break",
                name,
                {},
                dict(et.drops),
                source=name,
                tool=et.break_tool,
                consumed=1,
                spawn=et.on_break.spawn if et.on_break else None,
            )
        for kind, rule in (("collect", et.collect), ("use", et.use)):
            if rule is not None:
                process(
                    kind,
                    name,
                    dict(rule.consumes),
                    dict(rule.gives),
                    source=name,
                    tool=rule.holding,
                    consumed=int(rule.removes),
                    needs={p: v for p, v in rule.when.items() if isinstance(v, bool)},
                    sets={p: v for p, v in rule.sets.items() if isinstance(v, bool)},
                )
    for name in ws.goal:
        item(name)
    return g


def _item_types(ws: WorldSpec) -> list[str]:
    """What can be in an inventory: the action classes' own definition (`item_types`)."""
    world = World(ws, seed=0)
    return next(iter(world.actions.values())).item_types() if world.actions else []


def layers(g: nx.DiGraph) -> dict[str, int]:
    """Column of every node, from raw materials (0) towards the goal: a process sits one
    column after its latest prerequisite, a thing one after its earliest producer. Computed
    as a fixed point rather than topological generations because the graph has cycles (a
    tree's log comes from breaking a tree). Unreachable nodes go after the last column."""
    depth: dict[str, int] = {
        n: 0 for n, a in g.nodes(data=True) if a["bipartite"] == 0 and a["raw"]
    }
    changed = True
    while changed:
        changed = False
        for p, a in g.nodes(data=True):
            if a["bipartite"] != 1 or not all(q in depth for q in g.predecessors(p)):
                continue
            col = 1 + max((depth[q] for q in g.predecessors(p)), default=-1)
            col += col % 2 == 0  # processes on odd columns
            if depth.get(p) != col:
                depth[p], changed = col, True
            for out in g.successors(p):
                if depth.get(out, col + 2) > col + 1:
                    depth[out], changed = col + 1, True
    last = max(depth.values(), default=0) + 2
    return {n: depth.get(n, last) for n in g}
