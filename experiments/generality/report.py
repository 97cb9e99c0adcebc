"""Showing a generality suite: one row per case, and recovered K/N at the foot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import JustifyMethod
from rich.table import Table

from nesyworld.experiments.generality.run import tally


def generality_table(records: Sequence[dict[str, Any]]) -> Table:
    """Per case: does it break the plan, where it is detected, how the agent coped, S_post
    and T_adapt (adaptation env steps, learning included; "-" when it did not adapt)."""
    counts = tally(records)
    caption = (f"recovered {counts['recovered']}/{counts['cases']}; of the cases that break "
               f"the plan {counts['breaking_recovered']}/{counts['breaking_cases']}")
    regimes = sorted({f"{r.get('knowledge', 'oracle')} knowledge, "
                      f"{r.get('refusals', 'explained')} refusals" for r in records})
    title = "generality: unprepared novelties" + (f" ({'; '.join(regimes)})" if regimes else "")
    table = Table(title=title, caption=caption)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("case", "left"), ("breaks plan", "center"), ("detected at", "left"), ("how", "left"),
        ("S_post", "right"), ("T_adapt", "right"))
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold")
    for r in records:
        detected = r["detected_at"] if r["breaks_plan"] else "-"
        t_adapt = "-" if r["t_adapt"] is None else f"{r['t_adapt']:,}"
        table.add_row(r["case"], "yes" if r["breaks_plan"] else "no", detected, r["how"],
                      f"{r['s_post']:.2f}", t_adapt)
    return table
