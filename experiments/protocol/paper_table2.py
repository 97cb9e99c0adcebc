"""The paper's table 2, shipped as data, and our results set beside it."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from nesyworld.experiments.protocol.records import UNMASKED
from nesyworld.experiments.protocol.report import (
    METRIC_DIGITS,
    METRIC_LABELS,
    PAPER_METRICS,
    PAPER_SOURCE,
    Stat,
    Table2Row,
    format_stat,
    markdown_table,
)
from nesyworld.experiments.protocol.terminal_tables import FittedTable


@dataclass(frozen=True)
class PaperRow:
    """One line of the paper's table 2; None where the paper prints "–" (not a novelty for
    that agent). T_adapt is in env steps."""

    novelty: str
    agent: str
    paper_novelty: str
    paper_agent: str
    s_pre: Stat | None
    i_novelty: Stat | None
    t_adapt: Stat | None
    s_post: Stat | None
    delta_t: Stat | None
    source: str


def load_paper_table2(path: str | Path | None = None) -> list[PaperRow]:
    """The paper's table 2 as shipped in experiments/data (10 seeds a line)."""
    resource = (Path(path) if path is not None
                else files("nesyworld.experiments") / "data" / "novelgym_table2.csv")
    rows = []
    for line in csv.DictReader(resource.read_text().splitlines()):
        stats = {m: None if line[f"{m}_mean"] == "" else
                 Stat(float(line[f"{m}_mean"]), float(line[f"{m}_std"]), 10)
                 for m in PAPER_METRICS}
        rows.append(PaperRow(line["novelty"], line["agent"], line["paper_novelty"],
                             line["paper_agent"], source=line["source"], **stats))
    return rows


@dataclass(frozen=True)
class Comparison:
    """One metric of one (novelty, agent), ours beside the paper's."""

    novelty: str
    agent: str
    metric: str
    ours: str
    paper: str
    ratio: float | None
    """ours / paper, for T_adapt only: how much more (or less) adaptation we needed."""
    note: str


def spread_side(ours: float, paper: Stat, digits: int) -> str:
    """'above the paper's spread', 'below ...' or '': where our mean lies against the paper's
    mean ± its sd. Why: a difference within that band is what reseeding the paper's own
    runs gives, one outside it needs an explanation. A band of sd 0 is widened to the
    rounding of the printed figure, so 0.998 is not called outside 1 ± 0."""
    band = max(paper.std, 0.5 * 10.0 ** -digits)
    if ours > paper.mean + band:
        return "above the paper's spread"
    if ours < paper.mean - band:
        return "below the paper's spread"
    return ""


def paper_comparison(rows: Sequence[Table2Row], paper: Sequence[PaperRow] | None = None
                     ) -> list[Comparison]:
    """Our table 2 rows beside the paper's, metric by metric, for the (novelty, agent) pairs
    that the paper has; pairs it lacks (the planning agent, other novelties) are left out."""
    lookup = {(p.novelty, p.agent): p for p in (load_paper_table2() if paper is None else paper)}
    out = []
    for r in rows:
        # an unmasked variant is the paper's agent itself (records.UNMASKED; its RL agents
        # had no action masks), so it is compared with the paper's row of that name
        p = lookup.get((r.novelty, r.agent)) or lookup.get((r.novelty, r.agent.removesuffix(
            UNMASKED)))
        if p is None:
            continue
        ours = {"s_pre": r.s_pre, "i_novelty": r.i_novelty, "t_adapt": r.t_adapt_env_steps,
                "s_post": r.s_post, "delta_t": r.delta_t}
        for metric in PAPER_METRICS:
            mine, theirs = ours[metric], getattr(p, metric)
            text, ratio, note = format_stat(mine, METRIC_DIGITS[metric]), None, ""
            if metric == "t_adapt":
                text = r.t_adapt_text
                note = "" if r.adapted_text == "–" else f"adapted {r.adapted_text}"
                if mine is not None and theirs is not None and theirs.mean:
                    ratio = mine.mean / theirs.mean
            if mine is not None and theirs is not None:
                side = spread_side(mine.mean, theirs, METRIC_DIGITS[metric])
                if side:
                    note = f"{note}; {side}" if note else side
            out.append(Comparison(r.novelty, r.agent, METRIC_LABELS[metric], text,
                                  "–" if theirs is None else theirs.format(),
                                  ratio, note))
    return out


def _comparison_cells(comparisons: Sequence[Comparison]) -> tuple[list[str], list[list[str]]]:
    headers = ["Novelty", "Agent", "Metric", "Ours", "Paper", "Ours/paper", "Note"]
    cells = [[c.novelty, c.agent, c.metric, c.ours, c.paper,
              "" if c.ratio is None else f"{c.ratio:.2f}", c.note] for c in comparisons]
    return headers, cells


def comparison_table(comparisons: Sequence[Comparison]) -> FittedTable:
    """Ours beside the paper, in full where it fits and compact in narrower terminals."""
    headers, cells = _comparison_cells(comparisons)
    return FittedTable(headers, cells, f"Ours beside the paper ({PAPER_SOURCE})",
                       ["Novelty", "Agent", "Metric", "Ours", "Paper", "Ratio", "Note"])


def comparison_markdown(comparisons: Sequence[Comparison]) -> str:
    return markdown_table(*_comparison_cells(comparisons))
