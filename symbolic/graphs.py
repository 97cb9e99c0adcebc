"""networkx views of a task: the type hierarchy and the item/recipe graph, and a drawing.

The planner sees the task as operators; people (and tests) understand it faster as a graph:
which raw materials feed which process, which tool or station each step needs, and how far the
goal is from what the map provides. Both graphs are built from the same registries as
`derive`, so they cannot describe a different task from the one that is planned.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import networkx as nx

from nesyworld.symbolic.derivation.derive import Derivation, derive
from nesyworld.world import World, WorldSpec, load_spec

PROCESS_KINDS = ("recipe", "trade", "break", "collect", "use")
SpecLike = WorldSpec | World | str | Path


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


# ---------------------------------------------------------------------------------- drawing
STYLE = dict(
    raw="#d9ead3",
    item="#ffffff",
    entity="#eeeeee",
    property="#fff2cc",
    goal="#ffd966",
    recipe="#cfe2f3",
    trade="#f4cccc",
    collect="#d9d2e9",
    use="#d0e0e3",
)
STYLE["break"] = "#fce5cd"
CENTRED: dict[str, Any] = {"ha": "center", "va": "center"}
COUNT_BOX = {"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85}


def _layout(
    h: nx.DiGraph, depth: dict[str, int], sweeps: int = 6
) -> tuple[dict[Any, float], dict[tuple[str, str], list[Any]]]:
    """Vertical positions, Sugiyama style: a forward edge spanning several columns gets a
    virtual node in each column it crosses (so it is routed around the nodes there), then
    barycentre sweeps order every column so edges cross less. Returns the positions and, per
    edge, the virtual nodes it passes through."""
    lay: nx.DiGraph[Any] = nx.DiGraph()  # the nodes and the virtual nodes
    lay.add_nodes_from(h)
    col: dict[Any, int] = dict(depth)
    routes: dict[tuple[str, str], list[Any]] = {}
    for u, v in h.edges:
        chain = [("via", u, v, c) for c in range(depth[u] + 1, depth[v])]
        routes[(u, v)] = chain
        col.update({d: d[3] for d in chain})
        nx.add_path(lay, [u, *chain, v])
    columns: dict[int, list[Any]] = {}
    for n in lay:
        columns.setdefault(col[n], []).append(n)
    y = {n: float(i) for c in columns.values() for i, n in enumerate(sorted(c, key=str))}
    for sweep in range(sweeps):
        for c in sorted(columns, reverse=sweep % 2 == 1):

            def key(n: Any) -> float:
                near = [
                    y[m] for m in (*lay.predecessors(n), *lay.successors(n)) if col[m] != col[n]
                ]
                return sum(near) / len(near) if near else y[n]

            columns[c].sort(key=key)
            for i, n in enumerate(columns[c]):
                y[n] = i - (len(columns[c]) - 1) / 2
    return y, routes


def draw_recipe_graph(
    spec: SpecLike | Derivation | nx.DiGraph, path: str | Path, title: str | None = None
) -> Path:
    """Write a PNG of the recipe graph, laid out in columns from raw materials to the goal.

    Things are boxes (green: on the map or in hand at the start; gold: the goal; yellow:
    properties), processes are rounded, coloured by kind and labelled with the station, trader
    or tool they need. Stations and traders appear only in those labels: as nodes they would
    send edges across every column. Dashed arrows are needed but not consumed (tools,
    properties); dotted arcs lead back to an earlier column (breaking a tree gives a log);
    what does not lead to the goal is faded.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = spec if isinstance(spec, nx.DiGraph) else recipe_graph(spec)
    depth = layers(g)  # on the full graph: stations and traders are prerequisites too
    h: nx.DiGraph[str] = nx.DiGraph(
        g.edge_subgraph(
            (u, v) for u, v, a in g.edges(data=True) if a.get("role") not in ("station", "trader")
        )
    )
    goals = [n for n in g.graph.get("goal", {}) if n in g]
    h.add_nodes_from((n, g.nodes[n]) for n in goals)
    useful = set(goals).union(*(nx.ancestors(h, n) for n in goals))
    forward = nx.DiGraph((u, v) for u, v in h.edges if depth[v] > depth[u])
    forward.add_nodes_from(h)
    y, routes = _layout(forward, depth)
    tall = max(sum(1 for n in y if _col(n, depth) == c) for c in set(depth.values()))
    width = max(depth[n] for n in h) if len(h) else 0
    fig, ax = plt.subplots(figsize=(1.9 * (width + 1) + 1, 0.6 * tall + 1.6))
    boxes = {
        n: _node(ax, n, a, (depth[n] * 2.0, -y[n]), n in useful) for n, a in h.nodes(data=True)
    }
    for u, v, a in h.edges(data=True):
        back, light = depth[v] <= depth[u], a["role"] in ("tool", "condition", "sets")
        faded = back or u not in useful or v not in useful
        color = "#bbbbbb" if faded else "#999999" if light else "#333333"
        style = ":" if back else "--" if light else "-"
        via = [(d[3] * 2.0, -y[d]) for d in routes.get((u, v), [])]
        points, end = [(depth[u] * 2.0, -y[u]), *via], (depth[v] * 2.0, -y[v])
        if via:  # hidden under u's box where it starts; the arrow below draws the last leg
            ax.plot(*zip(*points, strict=True), color=color, lw=0.8, ls=style, zorder=1)
        arrow = {
            "arrowstyle": "-|>",
            "color": color,
            "lw": 0.8,
            "ls": style,
            "patchA": None if via else boxes[u].get_bbox_patch(),
            "shrinkA": 0 if via else 2,
            "patchB": boxes[v].get_bbox_patch(),
            "connectionstyle": f"arc3,rad={0.5 if back else 0}",
        }
        ax.annotate("", xy=end, xytext=points[-1], zorder=1, arrowprops=arrow)
        if a["count"] > 1:  # nearer the target, so labels of edges into one node stay apart
            (x0, y0), (x1, y1) = points[-1], end
            ax.text(
                0.4 * x0 + 0.6 * x1,
                0.4 * y0 + 0.6 * y1,
                f"×{a['count']}",
                fontsize=7.5,
                zorder=2,
                color="#1c4587",
                bbox=COUNT_BOX,
                **CENTRED,
            )
    goal = ", ".join(f"{k} ×{v}" for k, v in g.graph.get("goal", {}).items())
    ax.set_title(title or f"{g.graph.get('name', '')}: from raw materials to {goal}", fontsize=11)
    ax.set_xlim(-1.3, width * 2.0 + 1.3)
    ax.set_ylim(-(tall / 2) - 0.4, tall / 2 + 0.3)
    ax.axis("off")
    kinds = {a.get("kind") for _, a in h.nodes(data=True)}
    shown = ["start", "goal", *(k for k in ("property", *PROCESS_KINDS) if k in kinds)]
    _legend(ax, [(k, STYLE["raw" if k == "start" else k]) for k in shown])
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def _node(ax: Any, n: str, a: dict[str, Any], xy: tuple[float, float], useful: bool) -> Any:
    """One node as a text box: things square (gold and bold for the goal), processes rounded
    and coloured by kind, with what they need under the name."""
    alpha = 1.0 if useful else 0.35
    if a["bipartite"] == 0:
        face = STYLE["goal"] if a["goal"] else STYLE["raw"] if a["raw"] else STYLE[a["kind"]]
        text = n
        font: dict[str, Any] = {"fontsize": 9, "fontweight": "bold" if a["goal"] else "normal"}
        box = {
            "boxstyle": "square,pad=0.4",
            "fc": face,
            "lw": 2.5 if a["goal"] else 1,
            "ec": "#b45f06" if a["goal"] else "#444444",
        }
    else:
        needs = [
            f"at {a['station']}" if a["station"] else "",
            f"with {a['trader']}" if a["trader"] else "",
            f"holding {a['tool']}" if a["tool"] else "",
        ]
        text = f"{a['kind']} {a['label']}" + "".join(f"\n{s}" for s in needs if s)
        font = {"fontsize": 7.5, "style": "italic"}
        box = {"boxstyle": "round,pad=0.35", "fc": STYLE[a["kind"]], "ec": "#888888", "lw": 0.8}
    return ax.text(
        *xy, text, zorder=3, alpha=alpha, bbox={**box, "alpha": alpha}, **font, **CENTRED
    )


def _col(n: Any, depth: dict[str, int]) -> int:
    return n[3] if isinstance(n, tuple) else depth[n]


def _legend(ax: Any, entries: Iterable[tuple[str, str]]) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(fc=c, ec="#444444", label=n) for n, c in entries]
    ax.legend(
        handles=handles,
        loc="lower center",
        ncol=8,
        fontsize=7.5,
        frameon=False,
        bbox_to_anchor=(0.5, -0.06),
    )
