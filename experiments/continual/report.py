"""Reporting a continual run: the accuracy matrix R (mean over seeds) as a rich table and a
heatmap PNG, the metrics per seed and their mean ± std, all of it as JSON.

Metrics are computed per seed and then averaged, not computed on the mean matrix: forgetting
takes a max over stages, and the max of a mean hides a seed that forgot.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from nesyworld.experiments.continual.config import ContinualConfig
from nesyworld.experiments.continual.metrics import continual_metrics
from nesyworld.experiments.continual.run import INITIAL, StageRecord

METRICS = ("average_final", "forgetting", "backward_transfer", "forward_transfer")
LABELS = {"average_final": "average final success", "forgetting": "forgetting",
          "backward_transfer": "backward transfer", "forward_transfer": "forward transfer"}


def summarize(config: ContinualConfig, records: list[StageRecord]) -> dict[str, Any]:
    """Matrices per seed, their mean, and the metrics (per seed, mean, std), JSON-ready.
    Seeds with unfinished sequences are left out of the matrices (listed as incomplete)."""
    n = len(config.tasks)
    per_seed: dict[str, Any] = {}
    incomplete = []
    for seed in config.seeds:
        rows = {r.stage: r for r in records if r.seed == seed}
        if any(i not in rows for i in [INITIAL, *range(n)]):
            incomplete.append(seed)
            continue
        matrix = [list(rows[i].success) for i in range(n)]
        initial = list(rows[INITIAL].success)
        per_seed[str(seed)] = {
            "matrix": matrix, "initial": initial,
            "env_steps": [rows[i].env_steps for i in range(n)],
            "metrics": continual_metrics(matrix, initial).as_dict(),
        }
    summary: dict[str, Any] = {
        "name": config.name, "agent": config.agent,
        "tasks": [t.name for t in config.tasks], "budgets": [t.budget for t in config.tasks],
        "eval_episodes": config.eval_episodes, "seeds": per_seed, "incomplete": incomplete,
    }
    if per_seed:
        stack = np.array([s["matrix"] for s in per_seed.values()])
        summary["mean_matrix"] = stack.mean(axis=0).tolist()
        summary["mean_initial"] = np.mean([s["initial"] for s in per_seed.values()],
                                          axis=0).tolist()
        summary["metrics"] = {k: _mean_std([s["metrics"][k] for s in per_seed.values()])
                              for k in METRICS}
    return summary


def _mean_std(values: list[float]) -> dict[str, float | None]:
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return {"mean": None, "std": None}
    return {"mean": float(np.mean(finite)), "std": float(np.std(finite))}


def print_summary(summary: dict[str, Any], console: Console) -> None:
    """R as a table (rows: after training on; columns: evaluated on), then the metrics."""
    if "mean_matrix" not in summary:
        console.print("no seed has finished its sequence yet", highlight=False)
        return
    tasks = summary["tasks"]
    seeds = len(summary["seeds"])
    table = Table(title=f"{summary['name']}: success rate R[i][j] ({summary['agent']}, "
                  f"mean of {seeds} seed{'s' * (seeds != 1)})")
    table.add_column("after training on", style="bold")
    for t in tasks:
        table.add_column(t, justify="right")
    table.add_row("(untrained)", *(f"{v:.2f}" for v in summary["mean_initial"]),
                  style="dim")
    for i, row in enumerate(summary["mean_matrix"]):
        table.add_row(tasks[i], *(f"[bold]{v:.2f}[/]" if i == j else f"{v:.2f}"
                                  for j, v in enumerate(row)))
    console.print(table)
    metrics = Table(title="continual metrics (mean ± std over seeds)")
    metrics.add_column("metric")
    metrics.add_column("value", justify="right")
    for key in METRICS:
        m = summary["metrics"][key]
        metrics.add_row(LABELS[key], "n/a" if m["mean"] is None
                        else f"{m['mean']:+.3f} ± {m['std']:.3f}")
    console.print(metrics)
    if summary["incomplete"]:
        console.print("unfinished seeds (rerun to resume): "
                      + ", ".join(map(str, summary["incomplete"])), highlight=False)


def write_heatmap(summary: dict[str, Any], path: Path) -> Path:
    """The mean R as an annotated heatmap PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = np.array(summary["mean_matrix"])
    tasks = summary["tasks"]
    size = 1.2 + 0.9 * len(tasks)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    image = ax.imshow(r, vmin=0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(len(tasks)), tasks, rotation=30, ha="right")
    ax.set_yticks(range(len(tasks)), tasks)
    ax.set_xlabel("evaluated on task j")
    ax.set_ylabel("after training on task i")
    for i in range(r.shape[0]):
        for j in range(r.shape[1]):
            ax.text(j, i, f"{r[i, j]:.2f}", ha="center", va="center",
                    color="black" if r[i, j] > 0.6 else "white")
    forgetting = summary["metrics"]["forgetting"]["mean"]
    title = f"{summary['name']} ({summary['agent']})"
    if forgetting is not None:
        title += f": forgetting {forgetting:.2f}"
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="success rate")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


__all__ = ["METRICS", "print_summary", "summarize", "write_heatmap"]
