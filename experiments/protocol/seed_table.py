"""Table 2 run by run: each seed's T_adapt and S_post.

A mean ± sd over ten seeds hides what the RL baselines' runs look like: on some novelties
they either adapt quickly or not within the budget at all, and the mean of the runs that
adapted says nothing of the others. This table gives each run its own cell, so the report
shows the spread the comparison with the paper rests on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from nesyworld.experiments.protocol.metrics import Adaptation, MetricsError, metrics_of
from nesyworld.experiments.protocol.report import (
    AGENT_ORDER,
    NOVELTY_ORDER,
    markdown_table,
    order_key,
)


def seed_cell(record: Mapping[str, Any]) -> str:
    """One run: T_adapt in env steps and S_post in brackets; a run that did not adapt gives
    its best post-novelty success rate instead."""
    m = metrics_of(record)
    if m.adaptation is Adaptation.ADAPTED:
        return f"{m.t_adapt_env_steps:,} ({m.s_post:.2f})"
    if m.adaptation is Adaptation.NOT_NEEDED:
        return f"not needed ({m.s_post:.2f})"
    best = max(float(p["success_rate"]) for p in record["curve"] if p["phase"] == "post")
    return f"not adapted (best {best:.2f})"


def seed_table_markdown(records: Iterable[Mapping[str, Any]]) -> str:
    """One row per (novelty, agent), one column per seed; runs that did not finish (or whose
    curve lacks a phase) are left out, as they are from the means."""
    cells: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for record in records:
        try:
            cell = seed_cell(record)
        except MetricsError:
            continue
        spec = record["spec"]
        cells[(str(spec["novelty"]), str(spec["agent"]))][int(spec["seed"])] = cell
    if not cells:
        return "No finished runs.\n"
    seeds = sorted({s for row in cells.values() for s in row})
    keys = sorted(cells, key=lambda k: (order_key(k[0], NOVELTY_ORDER),
                                      order_key(k[1], AGENT_ORDER)))
    rows = [[novelty, agent, *(cells[(novelty, agent)].get(s, "") for s in seeds)]
            for novelty, agent in keys]
    return markdown_table(["Novelty", "Agent", *(f"seed {s}" for s in seeds)], rows)
