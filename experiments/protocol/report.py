"""Reports over run records: the paper's table 2 (mean ± std over seeds), a CSV of every metric
of every run, the figure 4 success-rate curves, and our table beside the paper's.

Everything here reads records only (see `records.py`), through `metrics.metrics_of`, so a
report can be redone from a results file at any time, and a sweep still running can be
reported on from the runs that have finished.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from nesyworld.experiments.protocol.figures import mean_curve, plot_curves
from nesyworld.experiments.protocol.metrics import Adaptation, MetricsError, RunMetrics, metrics_of
from nesyworld.experiments.protocol.record_check import check_record
from nesyworld.experiments.protocol.records import ProtocolConfig
from nesyworld.experiments.protocol.results_file import WHAT, LatestRecords, read_latest
from nesyworld.experiments.protocol.terminal_tables import FittedTable
from nesyworld.world.errors import SpecError

__all__ = ["AGENT_ORDER", "METRIC_DIGITS", "METRIC_LABELS", "NOVELTY_ORDER", "PAPER_METRICS",
           "PAPER_SOURCE", "Stat", "Table2Row", "format_stat", "markdown_table", "mean_curve",
           "plot_curves", "print_table2", "protocol_names", "read_records", "read_runs",
           "table2_markdown", "table2_rows", "table2_table", "write_csv", "write_report"]

NOVELTY_ORDER = ("axe", "chest", "distance", "fence", "fire_floating", "fire")
"""Table 2's order (the paper's "Trader" novelty is our "distance", its "Fire" our
"fire_floating"; our "fire", whose bucket must be collected, comes after)."""
AGENT_ORDER = ("repair+rapidlearn+", "repair+rapidlearn", "rapidlearn+", "rapidlearn",
               "transfer_rl+icm", "transfer_rl+icm_unmasked", "transfer_rl",
               "transfer_rl_unmasked", "rl+icm", "rl+icm_unmasked", "rl", "rl_unmasked",
               "planning")
PAPER_SOURCE = "Goel et al., NovelGym (AAMAS 2024), table 2"
PAPER_METRICS = ("s_pre", "i_novelty", "t_adapt", "s_post", "delta_t")
"""The five metrics of table 2, by their column prefix in data/novelgym_table2.csv."""
METRIC_LABELS = {"s_pre": "S_pre ↑", "i_novelty": "I_novelty ↓", "t_adapt": "T_adapt ↓",
           "s_post": "S_post ↑", "delta_t": "Δt ↓"}
"""Δt is t_post − t_pre, as the paper's table 2 computes it (see `metrics.py`)."""
METRIC_DIGITS = {"s_pre": 2, "i_novelty": 2, "t_adapt": 0, "s_post": 2, "delta_t": 1}


def order_key(value: str, order: Sequence[str]) -> tuple[int, str]:
    """Sort key: the place of `value` in `order`, unknown values after, by name."""
    return (order.index(value) if value in order else len(order), value)


@dataclass(frozen=True)
class Stat:
    """Mean and population standard deviation (ddof=0, so one seed gives ± 0) of n values."""

    mean: float
    std: float
    n: int

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Stat | None:
        data = [float(v) for v in values if v is not None]
        if not data:
            return None
        return cls(float(np.mean(data)), float(np.std(data)), len(data))

    def format(self, digits: int | None = None) -> str:
        """Fixed digits for ours; None keeps a figure's own digits (the paper's, as printed)."""
        if digits is None:
            return f"{self.mean:g} ± {self.std:g}"
        return f"{self.mean:.{digits}f} ± {self.std:.{digits}f}"


@dataclass(frozen=True)
class Table2Row:
    """One (domain, novelty, agent) line of table 2 over the seeds that finished.

    T_adapt is averaged over the adapted seeds only; `adapted`, `not_adapted` and
    `not_needed` say how many seeds that is, so a mean over 2 of 10 seeds cannot pass for
    a mean over 10.
    """

    domain: str
    novelty: str
    agent: str
    seeds: int
    s_pre: Stat
    i_novelty: Stat
    t_adapt_env_steps: Stat | None
    t_adapt_actions: Stat | None
    t_adapt_cpu_seconds: Stat | None
    s_post: Stat
    delta_t: Stat | None
    adapted: int
    not_adapted: int
    not_needed: int
    detected: int
    correctly_detected: int
    false_positives: int
    detection_delay_env_steps: Stat | None

    @property
    def t_adapt_text(self) -> str:
        if self.not_needed == self.seeds:
            return str(Adaptation.NOT_NEEDED)
        if self.t_adapt_env_steps is None:
            return str(Adaptation.NOT_ADAPTED)
        return self.t_adapt_env_steps.format(0)

    @property
    def adapted_text(self) -> str:
        if self.not_needed == self.seeds:
            return "–"
        text = f"{self.adapted}/{self.adapted + self.not_adapted}"
        return text + (f" ({self.not_needed} not needed)" if self.not_needed else "")


def _metrics(records: Iterable[Mapping[str, Any]], impact_tolerance: float) -> list[RunMetrics]:
    out = []
    for record in records:
        try:
            out.append(metrics_of(record, impact_tolerance))
        except MetricsError:
            continue  # failed or partial runs are in the CSV, not in the means
    return out


def _every_run(values: Iterable[float]) -> Stat:
    """The Stat of a metric every run has, over a group of at least one run."""
    stat = Stat.of(values)
    assert stat is not None, "a group has at least one run"
    return stat


def table2_rows(records: Iterable[Mapping[str, Any]], impact_tolerance: float = 0.0
                ) -> list[Table2Row]:
    """Mean ± std over seeds per (domain, novelty, agent), from the `ok` records only."""
    groups: dict[tuple[str, str, str], list[RunMetrics]] = defaultdict(list)
    for m in _metrics(records, impact_tolerance):
        groups[(m.domain, m.novelty, m.agent)].append(m)
    rows = []
    for (domain, novelty, agent), ms in groups.items():
        count = {a: sum(m.adaptation is a for m in ms) for a in Adaptation}
        rows.append(Table2Row(
            domain, novelty, agent, len(ms),
            s_pre=_every_run(m.s_pre for m in ms), i_novelty=_every_run(m.i_novelty for m in ms),
            t_adapt_env_steps=Stat.of(m.t_adapt_env_steps for m in ms),
            t_adapt_actions=Stat.of(m.t_adapt_actions for m in ms),
            t_adapt_cpu_seconds=Stat.of(m.t_adapt_cpu_seconds for m in ms),
            s_post=_every_run(m.s_post for m in ms), delta_t=Stat.of(m.delta_t for m in ms),
            adapted=count[Adaptation.ADAPTED], not_adapted=count[Adaptation.NOT_ADAPTED],
            not_needed=count[Adaptation.NOT_NEEDED],
            detected=sum(m.detected for m in ms),
            correctly_detected=sum(m.correctly_detected_trial for m in ms),
            false_positives=sum(m.false_positives for m in ms),
            detection_delay_env_steps=Stat.of(m.detection_delay_env_steps for m in ms)))
    return sorted(rows, key=lambda r: (r.domain, order_key(r.novelty, NOVELTY_ORDER),
                                       order_key(r.agent, AGENT_ORDER)))


def format_stat(stat: Stat | None, digits: int) -> str:
    return "–" if stat is None else stat.format(digits)


DETECTION_HEADERS = ("Detected (CDT)", "Delay (env steps)", "False pos.")
"""Table 2's detection columns, shown when any run detected anything."""


def _table2_cells(rows: Sequence[Table2Row]) -> tuple[list[str], list[list[str]]]:
    """Headers and cells shared by the terminal and markdown tables; the domain column and
    the detection columns appear only when they say something."""
    domains = len({r.domain for r in rows}) > 1
    detection = any(r.detected or r.false_positives for r in rows)
    headers = (["Domain"] if domains else []) + [
        "Novelty", "Agent", "Seeds", METRIC_LABELS["s_pre"], METRIC_LABELS["i_novelty"],
        "T_adapt ↓ (env steps)", "Adapted", METRIC_LABELS["s_post"], METRIC_LABELS["delta_t"]]
    if detection:
        headers += list(DETECTION_HEADERS)
    cells, last = [], None
    for r in rows:
        group = (r.domain, r.novelty)
        row = [r.domain] if domains else []
        row += [r.novelty if group != last else "", r.agent, str(r.seeds),
                format_stat(r.s_pre, 2), format_stat(r.i_novelty, 2), r.t_adapt_text,
                r.adapted_text,
                format_stat(r.s_post, 2), format_stat(r.delta_t, 1)]
        if detection:
            row += [f"{r.detected}/{r.seeds} ({r.correctly_detected})",
                    format_stat(r.detection_delay_env_steps, 0), str(r.false_positives)]
        cells.append(row)
        last = group
    return headers, cells


def markdown_table(headers: Sequence[str], cells: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines) + "\n"


SHORT_HEADERS = {"Novelty": "Novelty", "Agent": "Agent", "Seeds": "n",
                 METRIC_LABELS["s_pre"]: "S_pre", METRIC_LABELS["i_novelty"]: "I_nov",
                 "T_adapt ↓ (env steps)": "T_adapt", "Adapted": "Adapted",
                 METRIC_LABELS["s_post"]: "S_post", METRIC_LABELS["delta_t"]: "Δt",
                 "Domain": "Domain"}
"""The compact layout's headers, for terminals narrower than the full table (80 columns)."""


def table2_table(rows: Sequence[Table2Row], title: str = "Table 2: mean ± std over seeds"
                 ) -> FittedTable:
    """The rows in the paper's layout (novelty blocks, one agent a line), drawn in full where
    it fits and compact, never cut, in narrower terminals."""
    headers, cells = _table2_cells(rows)
    return FittedTable(headers, cells, title, [SHORT_HEADERS.get(h, h) for h in headers],
                       section_column="Novelty", compact_drops=DETECTION_HEADERS)


def print_table2(rows: Sequence[Table2Row], console: Console | None = None) -> None:
    (console or Console()).print(table2_table(rows))


def table2_markdown(rows: Sequence[Table2Row]) -> str:
    return markdown_table(*_table2_cells(rows))


def _spec_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    spec = record.get("spec") or {}
    return {"key": record.get("key", ""), "agent": spec.get("agent", ""),
            "domain": spec.get("domain", ""), "novelty": spec.get("novelty", ""),
            "seed": spec.get("seed", "")}


CSV_COLUMNS = ("status", "error", *(f.name for f in fields(RunMetrics)),
               "correctly_detected_trial", "wall_seconds")


def write_csv(records: Iterable[Mapping[str, Any]], path: str | Path,
              impact_tolerance: float = 0.0) -> Path:
    """One row a run, every metric; undefined metrics are empty cells and `adaptation` says
    why T_adapt is empty. Failed runs are rows too, so the CSV shows what is missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, CSV_COLUMNS)
        writer.writeheader()
        for record in records:
            row: dict[str, Any] = {**_spec_fields(record), "status": record.get("status", "ok"),
                                   "wall_seconds": record.get("wall_seconds", "")}
            try:
                row.update(metrics_of(record, impact_tolerance).as_row())
            except MetricsError as err:
                row["status"] = "error" if row["status"] == "ok" else row["status"]
                lines = (record.get("error") or str(err)).strip().splitlines()
                row["error"] = lines[-1] if lines else str(err)  # the exception, not the trace
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return path


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The records that count in a results file (the runner's rule: per run, the last ok
    record, else its last error), each checked first: a damaged record is a SpecError at its
    file:line naming the field (record_check.py). See `read_runs`."""
    return list(read_runs(path).records.values())


def read_runs(path: str | Path) -> LatestRecords:
    """`read_records` with what the reading met: the number of a last line cut short, which
    was skipped (results_file.py). The file streams through, so memory follows its runs, not
    its lines; a file without a single run (empty, or of something else) is a SpecError."""
    latest = read_latest(path, check_record, missing_ok=False)
    if not latest.records:
        raise SpecError("no runs found", file=str(path), expected=WHAT)
    return latest


def _budgets(records: Sequence[Mapping[str, Any]]) -> str:
    """The protocol budgets behind the numbers: a comparison means little without them."""
    seen = {json.dumps((r.get("spec") or {}).get("protocol", {}), sort_keys=True)
            for r in records}
    return "\n".join(f"- protocol: `{s}`" for s in sorted(seen))


def protocol_names(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The protocols the records were measured under (records.PROTOCOL_NAMES); a record
    from before protocols were named gets the name its values earn."""
    names = set()
    for r in records:
        protocol = dict((r.get("spec") or {}).get("protocol", {}))
        protocol.setdefault("name", "")
        try:
            names.add(ProtocolConfig(**protocol).name)
        except (TypeError, ValueError):
            names.add("custom")
    return sorted(names)


ORACLE_ERA = "oracle (recorded before the regimes were named)"
"""The regime of a hybrid agent's record that names none: it could read the post-novelty
world's model (docs/KNOWLEDGE.md)."""


def knowledge_regimes(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The knowledge regimes the hybrid agents' records ran in (docs/KNOWLEDGE.md), with
    their refusal setting when silent; empty when no hybrid agent ran (an RL agent never
    plans, so it has no regime)."""
    from nesyworld.hybrid.agents.names import HYBRID_AGENTS

    seen = set()
    for r in records:
        if (r.get("spec") or {}).get("agent") not in HYBRID_AGENTS:
            continue
        regime = str(r.get("knowledge") or ORACLE_ERA)
        if r.get("refusals", "explained") != "explained":
            regime += f", {r['refusals']} refusals"
        seen.add(regime)
    return sorted(seen)


def write_report(records: Sequence[Mapping[str, Any]], out_dir: str | Path,
                 impact_tolerance: float = 0.0) -> dict[str, Path]:
    """Write metrics.csv, report.md (table 2, comparison with the paper, each run, budgets)
    and figure 4 per novelty as PNG, SVG and PDF; return their paths by name ("csv",
    "markdown", "figure4_<novelty>" for the PNG, "figure4_<novelty>.svg" and ".pdf" for the
    others)."""
    from nesyworld.experiments.protocol.paper_table2 import comparison_markdown, paper_comparison
    from nesyworld.experiments.protocol.seed_table import seed_table_markdown

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = table2_rows(records, impact_tolerance)
    ok = sum(r.seeds for r in rows)
    names = protocol_names(records)
    regimes = knowledge_regimes(records)
    if names == ["paper"] and set(regimes) <= {"closed"}:
        beside = (f"## Beside the paper ({PAPER_SOURCE})\n\n"
                  f"{comparison_markdown(paper_comparison(rows))}\n")
    elif names != ["paper"]:
        beside = ("## Beside the paper\n\nNot compared: these runs used the "
                  f"{' and '.join(names)} protocol, not the paper's (docs/COUNTS.md).\n\n")
    else:
        beside = ("## Beside the paper\n\nNot compared: the hybrid agents ran in the "
                  f"{' and '.join(regimes)} knowledge regime, not the paper's closed one "
                  "(docs/KNOWLEDGE.md).\n\n")
    hours = sum(float(r.get("wall_seconds", 0.0)) for r in records) / 3600
    text = (f"# Results: {ok} of {len(records)} runs finished, in {hours:.1f} worker-hours "
            "(the sum of the runs' wall times)\n\n"
            f"Protocol: {', '.join(names)} (docs/COUNTS.md). Knowledge regime of the hybrid "
            f"agents: {'; '.join(regimes) or 'none ran'} (docs/KNOWLEDGE.md).\n\n"
            f"## Table 2 (mean ± std over seeds)\n\n{table2_markdown(rows)}\n"
            + beside +
            "## Run by run\n\nT_adapt in env steps, S_post in brackets; a run that did not "
            "adapt gives its best success rate after the novelty.\n\n"
            f"{seed_table_markdown(records)}\n"
            f"## Budgets\n\n{_budgets(records)}\n")
    paths = {"csv": write_csv(records, out_dir / "metrics.csv", impact_tolerance),
             "markdown": out_dir / "report.md"}
    paths["markdown"].write_text(text)
    for figure in plot_curves(records, out_dir, AGENT_ORDER):
        paths[figure.stem if figure.suffix == ".png" else figure.name] = figure
    return paths

