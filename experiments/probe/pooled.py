"""How often one agent adapts to one novelty, pooled over every results file that ran it.

A single run's outcome can turn on small differences (docs/EXPERIMENTS.md, the RL baselines
on Fire), so a setting measured on two or four seeds cannot say much alone, and a file of ten
cannot say whether the paper's count of adapted seeds is within reach. Pooling the runs of
many files, each an ablation of one setting, asks the question the settings share: how often
does this agent adapt within a common budget, and how fast when it does?

Three rules keep the pooled count honest:

- a budget: a run counts as adapted only if it did within `within` env steps after the
  novelty, and a run whose budget after the novelty was shorter is left out (counted apart),
  so runs of 300,000 and of 1M steps are judged alike;
- settings: a file may hold several runs of one key, one per ablation setting
  (experiments/probe/ablation.py), so the unit is a run of a key and a setting (the last
  finished one, as a retried run's), and each setting of a file has its own row;
- replays: a run whose post-novelty curve within the budget equals an earlier one's,
  success and mean return at every point, for the same agent and seed, is the same run made
  again (an ablation's unchanged setting replays its experiment's runs), and is counted once,
  in the first file named. A curve without a single success cannot tell a replay from another
  failure, so such runs all count;
- the interval: the pooled rate comes with Wilson's 95% interval, and the chance of the
  paper's count (10 adapted of 10) at the interval's upper end says whether the pooled runs
  could be the paper's.

Runs of different settings are not exchangeable and runs fine-tuned from one checkpoint are
not independent, so the pooled rate is a summary of what was measured, not an estimate of one
setting's rate; the per-file rows keep each setting apart.

    python -m nesyworld.experiments.probe.pooled docs/results/table2/*.jsonl \\
        --agent transfer_rl_unmasked --novelty fire_floating --within 300000
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.experiments.protocol.metrics import MetricsError, metrics_of
from nesyworld.experiments.protocol.paper_table2 import load_paper_table2
from nesyworld.experiments.protocol.records import UNMASKED
from nesyworld.experiments.protocol.results_file import RecordLines
from nesyworld.world.errors import SpecError

__all__ = ["FileRow", "Pooled", "main", "markdown", "pool", "setting_of", "wilson_interval"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass
class FileRow:
    """One setting's runs of the agent and novelty in one results file."""

    file: str
    setting: str
    """The runs' `ablation` record, as `field=value` pairs; "" for an experiment's runs."""
    runs: int = 0
    adapted: int = 0
    t_adapt: list[int] = field(default_factory=list)
    """T_adapt (env steps) of the runs that adapted within the budget."""
    short: int = 0
    """Runs whose budget after the novelty was below the pooled budget: left out."""
    replays: int = 0
    """Runs whose post-novelty curve repeats an earlier run's: counted once, there."""


@dataclass
class Pooled:
    """Every file's row and their sum."""

    agent: str
    novelty: str
    within: int
    rows: list[FileRow]
    paper_t_adapt: tuple[float, float] | None
    """The paper's T_adapt, mean and sd over its 10 seeds, where table 2 has one."""

    @property
    def runs(self) -> int:
        return sum(r.runs for r in self.rows)

    @property
    def adapted(self) -> int:
        return sum(r.adapted for r in self.rows)

    @property
    def t_adapt(self) -> list[int]:
        return [t for r in self.rows for t in r.t_adapt]

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.adapted, self.runs)

    def chance_of_all(self, n: int = 10) -> float:
        """The chance that n runs all adapt at the interval's upper rate: how likely the
        paper's n of n would be if its runs were like the pooled ones."""
        return self.interval()[1] ** n

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        times = self.t_adapt
        return {"agent": self.agent, "novelty": self.novelty, "within": self.within,
                "runs": self.runs, "adapted": self.adapted,
                "rate": self.adapted / self.runs if self.runs else None,
                "interval95": [low, high], "chance_of_10_of_10": self.chance_of_all(),
                "t_adapt_mean": statistics.fmean(times) if times else None,
                "t_adapt_sd": statistics.stdev(times) if len(times) > 1 else None,
                "paper_t_adapt": list(self.paper_t_adapt) if self.paper_t_adapt else None,
                "files": [asdict(r) for r in self.rows]}


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a binomial rate; (0, 1) with no trials. Why Wilson: at
    rates near 0 or 1 and tens of runs the plain normal interval leaves [0, 1]."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _post_curve(record: Mapping[str, Any], within: int) -> tuple[tuple[Any, Any, Any], ...]:
    """The post-novelty points up to `within` env steps: a replay with another budget matches
    its original there, and differs only in its last evaluation."""
    start = int((record.get("novelty") or {}).get("env_steps", 0))
    return tuple((p.get("env_steps"), p.get("success_rate"), p.get("mean_reward"))
                 for p in record.get("curve") or []
                 if p.get("phase") == "post" and int(p.get("env_steps", 0)) - start <= within)


def setting_of(record: Mapping[str, Any]) -> str:
    """A run's ablation as sorted `field=value` pairs, nested fields joined by dots."""
    pairs: list[str] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping) and value:
            for name in sorted(value):
                walk(f"{prefix}.{name}" if prefix else str(name), value[name])
        elif not isinstance(value, Mapping):
            pairs.append(f"{prefix}={json.dumps(value)}")

    walk("", record.get("ablation") or {})
    return ", ".join(pairs)


def _finished_runs(path: str | Path) -> list[dict[str, Any]]:
    """Per (key, setting), the last finished record of the file, in the order of the file."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for _, record in RecordLines(path, missing_ok=False):
        if record.get("status") == "ok":
            latest[(record["key"], setting_of(record))] = record
    return list(latest.values())


def _paper_t_adapt(agent: str, novelty: str) -> tuple[float, float] | None:
    base = agent.removesuffix(UNMASKED)
    for row in load_paper_table2():
        if row.agent == base and row.novelty == novelty and row.t_adapt is not None:
            return row.t_adapt.mean, row.t_adapt.std
    return None


def pool(paths: Iterable[str | Path], agent: str, novelty: str, within: int) -> Pooled:
    """Every `ok` run of `agent` on `novelty` in `paths`, counted as the module docstring
    says. A file that is not a results file is refused (SpecError at its file:line)."""
    if within <= 0:
        raise ValueError(f"within must be a positive number of env steps, got {within}")
    seen: set[tuple[str, Any, tuple[tuple[Any, Any, Any], ...]]] = set()
    rows: dict[tuple[str, str], FileRow] = {}
    for path in paths:
        for record in _finished_runs(path):
            spec = record.get("spec") or {}
            if spec.get("agent") != agent or spec.get("novelty") != novelty:
                continue
            setting = setting_of(record)
            row = rows.setdefault((str(path), setting), FileRow(Path(path).name, setting))
            if int((spec.get("protocol") or {}).get("post_steps", 0)) < within:
                row.short += 1
                continue
            curve = _post_curve(record, within)
            identity = (agent, spec.get("seed"), curve)
            if any(point[1] for point in curve):
                if identity in seen:
                    row.replays += 1
                    continue
                seen.add(identity)
            try:
                metrics = metrics_of(record)
            except MetricsError:
                row.short += 1  # no post-novelty curve: nothing to count
                continue
            row.runs += 1
            t = metrics.t_adapt_env_steps
            if metrics.adapted and t is not None and t <= within:
                row.adapted += 1
                row.t_adapt.append(t)
    return Pooled(agent, novelty, within, list(rows.values()), _paper_t_adapt(agent, novelty))


def _mean_sd(values: Sequence[int]) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:,}"
    return f"{statistics.fmean(values):,.0f} ± {statistics.stdev(values):,.0f}"


def markdown(pooled: Pooled) -> str:
    """Per file and pooled: runs, adapted within the budget, T_adapt of those that did."""
    lines = [f"{pooled.agent} on {pooled.novelty}, adapted within {pooled.within:,} env steps "
             "after the novelty",
             "",
             "| file | setting | runs | adapted | T_adapt of those (env steps) "
             "| left out: shorter budget | replays |",
             "|---|---|---|---|---|---|---|"]
    for r in pooled.rows:
        lines.append(f"| {r.file} | {r.setting or '–'} | {r.runs} | {r.adapted} "
                     f"| {_mean_sd(r.t_adapt)} | {r.short} | {r.replays} |")
    low, high = pooled.interval()
    rate = pooled.adapted / pooled.runs if pooled.runs else float("nan")
    lines.append(f"| **pooled** | | **{pooled.runs}** | **{pooled.adapted}** "
                 f"| **{_mean_sd(pooled.t_adapt)}** | {sum(r.short for r in pooled.rows)} "
                 f"| {sum(r.replays for r in pooled.rows)} |")
    lines += ["", f"Rate {rate:.2f}, Wilson 95% interval {low:.2f}-{high:.2f}; ten runs all "
              f"adapting at {high:.2f} has chance {pooled.chance_of_all():.2g}."]
    if pooled.paper_t_adapt is not None:
        mean, sd = pooled.paper_t_adapt
        lines.append(f"The paper's T_adapt: {mean:,.0f} ± {sd:,.0f} over 10 seeds, all adapted.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nesyworld.experiments.probe.pooled",
        description="How often an agent adapts to a novelty, pooled over results files.")
    parser.add_argument("files", nargs="+", help="JSON-lines results files")
    parser.add_argument("--agent", required=True, help="agent name, e.g. transfer_rl_unmasked")
    parser.add_argument("--novelty", required=True, help="novelty name, e.g. fire_floating")
    parser.add_argument("--within", type=int, default=300_000,
                        help="the budget after the novelty, env steps (default 300000)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        pooled = pool(args.files, args.agent, args.novelty, args.within)
    except (SpecError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not pooled.runs:
        print(f"error: no finished run of {args.agent} on {args.novelty} with a budget of at "
              f"least {args.within:,} env steps after the novelty", file=sys.stderr)
        return 1
    print(json.dumps(pooled.as_dict(), indent=1) if args.json else markdown(pooled))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
