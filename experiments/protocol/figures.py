"""Figure 4 of the paper: success rate against env steps since the novelty, per agent.

Each evaluation is a marker, and the line between two evaluations is a step (the last measured
rate holds until the next one): a straight diagonal between two points 4,800 steps apart would
draw gradual learning that nobody measured. Agents differ in colour, marker and line style, so
overlapping curves stay apart in print and in grey. The band is ± one standard deviation over
seeds. Every figure is written as PNG, SVG and PDF, the last two without time stamps so that a
rerun on the same records gives the same files.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

FIGURE_FORMATS = ("png", "svg", "pdf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h")
LINESTYLES = ("-", "--", "-.", ":")
_NO_DATES = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None},
             "png": {"Software": None}}


def seed_curve(record: Mapping[str, Any], phase: str) -> tuple[np.ndarray, np.ndarray] | None:
    """x = env steps since the injection (duplicates averaged), y = success rate."""
    at = record["novelty"]["env_steps"]
    points = [(p["env_steps"] - at, p["success_rate"]) for p in record["curve"]
              if p["phase"] == phase]
    if not points:
        return None
    x, inverse = np.unique(np.array([p[0] for p in points], float), return_inverse=True)
    y = np.bincount(inverse, weights=[p[1] for p in points]) / np.bincount(inverse)
    return x, y


def mean_curve(runs: Sequence[Mapping[str, Any]], phase: str, lo: float, hi: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Mean and std over seeds on the union of their evaluation points. A seed counts from its
    first point on and holds its last measured value between points and after its end (an
    agent that stopped at convergence stays there), so early finishers do not drop out."""
    curves = [c for c in (seed_curve(r, phase) for r in runs) if c is not None]
    if not curves:
        return None
    grid = np.unique(np.concatenate([x for x, _ in curves]
                                    + [[lo] if any(x[0] < lo for x, _ in curves) else []]))
    grid = grid[(grid >= lo) & (grid <= hi)]
    ys = np.array([_held(grid, x, y) for x, y in curves])
    keep = (~np.isnan(ys)).any(axis=0)
    if not keep.any():
        return None
    ys, grid = ys[:, keep], grid[keep]
    return grid, np.nanmean(ys, axis=0), np.nanstd(ys, axis=0)


def _held(grid: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y's last measured value at each grid point (NaN before x's first point)."""
    at = np.searchsorted(x, grid, side="right") - 1
    return np.where(at >= 0, y[np.clip(at, 0, None)], np.nan)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text)


def plot_curves(records: Iterable[Mapping[str, Any]], out_dir: str | Path,
                agent_order: Sequence[str] = (), formats: Sequence[str] = FIGURE_FORMATS
                ) -> list[Path]:
    """Figure 4 per (domain, novelty), in every format of `formats`; returns the files,
    grouped by figure. The pre-novelty part is cut to the length of the post-novelty part,
    so 4M steps of RL pre-training do not squash the adaptation into a sliver. Drawn on an
    Agg canvas: no display and no pyplot state."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    groups: dict[tuple[str, str], dict[str, list[Mapping[str, Any]]]] = defaultdict(
        lambda: defaultdict(list))
    for r in records:
        if r.get("status", "ok") == "ok" and r.get("curve") and "novelty" in r:
            groups[(r["spec"]["domain"], r["spec"]["novelty"])][r["spec"]["agent"]].append(r)
    several_domains = len({domain for domain, _ in groups}) > 1
    rank = {a: i for i, a in enumerate(agent_order)}
    paths = []
    for (domain, novelty), agents in sorted(groups.items()):
        fig = _figure(agents, sorted(agents, key=lambda a: (rank.get(a, len(rank)), a)),
                      f"{domain}: {novelty}" if several_domains else f"novelty: {novelty}")
        name = _slug(f"{domain}_{novelty}" if several_domains else novelty)
        for fmt in formats:
            path = out_dir / f"figure4_{name}.{fmt}"
            with rc_context({"svg.hashsalt": name}):  # else SVG ids are random per save
                fig.savefig(path, dpi=150, format=fmt, metadata=_NO_DATES.get(fmt))
            paths.append(path)
    return paths


def _figure(agents: Mapping[str, Sequence[Mapping[str, Any]]], order: Sequence[str],
            title: str) -> Figure:
    runs = [r for rs in agents.values() for r in rs]
    span = max(max(p["env_steps"] for p in r["curve"]) - r["novelty"]["env_steps"]
               for r in runs) or 1
    fig = Figure(figsize=(8, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i, agent in enumerate(order):
        style: dict[str, Any] = {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)],
                 "linestyle": LINESTYLES[i % len(LINESTYLES)]}
        n = len(agents[agent])
        label: str | None = f"{agent} ({n} seed{'' if n == 1 else 's'})"
        for phase, lo, hi in (("pre", -span, 0), ("post", 0, span)):
            curve = mean_curve(agents[agent], phase, lo, hi)
            if curve is None:
                continue
            x, mean, std = curve
            # hold the last value to the phase's end, and (before the novelty) the first
            # one back to the figure's edge, without markers there: those were kept, not
            # measured (an agent stops evaluating once converged; a planning agent's
            # pre-novelty part is a few steps long)
            head = int(phase == "pre" and x[0] > lo)
            xs = np.r_[[lo] * head, x, hi]
            means = np.r_[mean[:head], mean, mean[-1]]
            stds = np.r_[std[:head], std, std[-1]]
            ax.plot(xs, means, drawstyle="steps-post", markevery=list(range(head, head + len(x))),
                    markersize=4, linewidth=1.4, alpha=0.9, label=label, zorder=3 + i,
                    **style)
            ax.fill_between(xs, np.clip(means - stds, 0, 1), np.clip(means + stds, 0, 1),
                            step="post", color=style["color"], alpha=0.15, linewidth=0)
            label = None
    ax.axvline(0, color="crimson", linestyle="--", linewidth=1, label="novelty injected")
    ax.set_xlim(-span, span)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("env steps since the novelty")
    ax.set_ylabel("success rate (mean ± sd over seeds)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", fontsize="small", framealpha=0.9)
    fig.tight_layout()
    return fig
