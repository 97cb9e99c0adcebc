"""Showing a novelty x scenario matrix: a rich table, a CSV and a PNG heatmap per agent.

Rows are scenarios, columns the no-novelty baseline then each novelty; cells are success
rates (mean over seeds), "n/a" where the novelty cannot apply to the scenario, "-" where the
cell has no result yet. The last column and row are NovPhy's two summaries: a scenario's
mean over novelties and a novelty's mean over scenarios.
"""

from __future__ import annotations

import csv
from pathlib import Path

from rich.table import Table

from nesyworld.experiments.matrix.config import BASELINE
from nesyworld.experiments.matrix.run import MatrixTable

MEAN = "mean"
NA, MISSING = "n/a", "-"


def _fmt(value: float | None, na: bool) -> str:
    if value is None:
        return NA if na else MISSING
    return f"{value:.2f}"


def rich_table(table: MatrixTable, na: set[tuple[str, str]], title: str) -> Table:
    out = Table(title=f"{title}: {table.agent} agent, success rate",
                caption="mean: over novelties (last column) and over scenarios (last row); "
                        "n/a cells and the no-novelty column are left out")
    out.add_column("scenario \\ novelty", style="bold", no_wrap=True)
    for column in table.columns:
        out.add_column("no novelty" if column == BASELINE else column, justify="right")
    out.add_column(MEAN, justify="right", style="bold")
    for row in table.rows:
        out.add_row(row, *[_fmt(table.cell(row, c), (row, c) in na) for c in table.columns],
                    _fmt(table.row_mean(row), False))
    out.add_section()
    out.add_row("mean", *[_fmt(table.column_mean(c), False)
                                         for c in table.columns],
                _fmt(table.overall(), False), style="bold")
    return out


def write_csv(tables: list[MatrixTable], na: set[tuple[str, str]], path: Path) -> Path:
    """Long form (agent, scenario, novelty, success_rate, seeds) plus the means, so a
    spreadsheet can pivot it either way; n/a and missing cells are named, not left blank."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["agent", "scenario", "novelty", "success_rate", "seeds"])
        for t in tables:
            for row in t.rows:
                for column in t.columns:
                    w.writerow([t.agent, row, column,
                                _fmt(t.cell(row, column), (row, column) in na),
                                t.seeds.get((row, column), 0)])
                w.writerow([t.agent, row, MEAN, _fmt(t.row_mean(row), False), ""])
            for column in t.columns:
                w.writerow([t.agent, MEAN, column,
                            _fmt(t.column_mean(column), False), ""])
    return path


def write_heatmap(table: MatrixTable, na: set[tuple[str, str]], path: Path,
                  title: str) -> Path:
    """Success rates as colours (n/a hatched grey), with the margins' means as an extra
    row and column so the two NovPhy summaries sit beside the cells they average."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows, cols = [*table.rows, "mean"], [*table.columns, "mean"]
    grid = np.full((len(rows), len(cols)), np.nan)
    for i, r in enumerate(table.rows):
        for j, c in enumerate(table.columns):
            v = table.cell(r, c)
            grid[i, j] = np.nan if v is None else v
        grid[i, -1] = np.nan if table.row_mean(r) is None else table.row_mean(r)
    for j, c in enumerate(table.columns):
        v = table.column_mean(c)
        grid[-1, j] = np.nan if v is None else v
    grid[-1, -1] = np.nan if table.overall() is None else table.overall()
    fig, ax = plt.subplots(figsize=(1.1 * len(cols) + 2.5, 0.55 * len(rows) + 1.8))
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#d0d0d0")
    ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            text = NA if (r, c) in na else (MISSING if np.isnan(grid[i, j])
                                             else f"{grid[i, j]:.2f}")
            ax.text(j, i, text, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(cols)), ["no novelty" if c == BASELINE else c for c in cols],
                  rotation=40, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.axhline(len(rows) - 1.5, color="black", lw=1)
    ax.axvline(len(cols) - 1.5, color="black", lw=1)
    ax.set_title(f"{title}: {table.agent} agent, success rate")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
