"""The recipe graph drawn as a PNG, in columns from raw materials to the goal.

Why apart from the graphs (building.py): drawing needs matplotlib, which only this imports,
and only when called, so building a graph stays light.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import networkx as nx

from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.graphs.building import PROCESS_KINDS, SpecLike, layers, recipe_graph

__all__ = ["COUNT_BOX", "STYLE", "draw_recipe_graph"]

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
