"""How often one agent adapts to one novelty, pooled over every results file that ran it.

A single run's outcome can turn on small differences (docs/EXPERIMENTS.md, the RL baselines
on Fire), so a setting measured on two or four seeds cannot say much alone, and a file of ten
cannot say whether the paper's count of adapted seeds is within reach. Pooling the runs of
many files, each an ablation of one setting, asks the question the settings share: how often
does this agent adapt within a common budget, and how fast when it does?

Four rules keep the pooled count honest:

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

`--by-start S` splits every row by the success at the injection, below S or not: whether
the runs that began with something to keep kept it, apart from those that had to find it.

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

from nesyworld.experiments.protocol.metrics import MetricsError, RunMetrics, metrics_of
from nesyworld.experiments.protocol.paper_table2 import load_paper_table2
from nesyworld.experiments.protocol.record_check import check_record
from nesyworld.experiments.protocol.records import UNMASKED
from nesyworld.experiments.protocol.results_file import RecordLines
from nesyworld.world.errors import Location, SpecError

__all__ = ["FileRow", "Pooled", "main", "markdown", "pool", "setting_of", "wilson_interval"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass
class FileRow:
    """One setting's runs of the agent and novelty in one results file."""

    file: str
    setting: str
    """The runs' `ablation` record, as `field=value` pairs; "" for an experiment's runs."""
    start: str = ""
    """With `by_start`, which side of it the runs' success at the injection fell on."""
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

    def by_start(self) -> dict[str, tuple[int, int]]:
        """(runs, adapted) for each side of the split at the injection's success."""
        out: dict[str, tuple[int, int]] = {}
        for r in self.rows:
            runs, adapted = out.get(r.start, (0, 0))
            out[r.start] = (runs + r.runs, adapted + r.adapted)
        return out

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
                "by_start": {k: list(v) for k, v in self.by_start().items()},
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
    start = record["novelty"]["env_steps"]
    return tuple((p["env_steps"], p["success_rate"], p.get("mean_reward"))
                 for p in record["curve"]
                 if p["phase"] == "post" and p["env_steps"] - start <= within)


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


def _finished_runs(path: str | Path) -> list[tuple[dict[str, Any], int]]:
    """Per (key, setting), the last finished record of the file and its budget after the
    novelty, in the order of the file; a record a report could not read is refused at its
    line (record_check.py), as is one without a budget."""
    latest: dict[tuple[str, str], tuple[dict[str, Any], int]] = {}
    for line, record in RecordLines(path, missing_ok=False):
        check_record(record, str(path), line)
        if record.get("status", "ok") != "ok":
            continue
        budget = record["spec"].get("protocol", {}).get("post_steps")
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise SpecError("no budget after the novelty", location=Location(str(path), line, 1),
                            key_path="spec.protocol.post_steps",
                            expected="a whole number of env steps", found=budget)
        latest[(record["key"], setting_of(record))] = (record, budget)
    return list(latest.values())


def _paper_t_adapt(agent: str, novelty: str) -> tuple[float, float] | None:
    base = agent.removesuffix(UNMASKED)
    for row in load_paper_table2():
        if row.agent == base and row.novelty == novelty and row.t_adapt is not None:
            return row.t_adapt.mean, row.t_adapt.std
    return None


def pool(paths: Iterable[str | Path], agent: str, novelty: str, within: int,
         by_start: float | None = None) -> Pooled:
    """Every `ok` run of `agent` on `novelty` in `paths`, counted as the module docstring
    says; `by_start` splits each row at that success at the injection. A file that is not a
    results file, or a record a report could not read, is refused (SpecError at its
    file:line)."""
    if within <= 0:
        raise ValueError(f"within must be a positive number of env steps, got {within}")
    if by_start is not None and not 0 < by_start <= 1:
        raise ValueError(f"by_start must be a success rate in (0, 1], got {by_start}")
    seen: set[tuple[str, Any, tuple[tuple[Any, Any, Any], ...]]] = set()
    rows: dict[tuple[str, str, str], FileRow] = {}
    for path in paths:
        for record, budget in _finished_runs(path):
            spec = record["spec"]
            if spec["agent"] != agent or spec["novelty"] != novelty:
                continue
            try:
                metrics: RunMetrics | None = metrics_of(record)
            except MetricsError:
                metrics = None  # no post-novelty curve: nothing to count
            setting, start = setting_of(record), ""
            if by_start is not None and metrics is not None:
                begun = metrics.s_immediate_post
                start = f">= {by_start:g}" if begun >= by_start else f"< {by_start:g}"
            row = rows.setdefault((str(path), setting, start),
                                  FileRow(Path(path).name, setting, start))
            if metrics is None or budget < within:
                row.short += 1
                continue
            curve = _post_curve(record, within)
            identity = (agent, spec["seed"], curve)
            if any(point[1] for point in curve):
                if identity in seen:
                    row.replays += 1
                    continue
                seen.add(identity)
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
             "| file | setting | success at the injection | runs | adapted "
             "| T_adapt of those (env steps) | left out: shorter budget | replays |",
             "|---|---|---|---|---|---|---|---|"]
    for r in pooled.rows:
        lines.append(f"| {r.file} | {r.setting or '–'} | {r.start or 'any'} | {r.runs} "
                     f"| {r.adapted} | {_mean_sd(r.t_adapt)} | {r.short} | {r.replays} |")
    low, high = pooled.interval()
    rate = pooled.adapted / pooled.runs if pooled.runs else float("nan")
    lines.append(f"| **pooled** | | | **{pooled.runs}** | **{pooled.adapted}** "
                 f"| **{_mean_sd(pooled.t_adapt)}** | {sum(r.short for r in pooled.rows)} "
                 f"| {sum(r.replays for r in pooled.rows)} |")
    lines += ["", f"Rate {rate:.2f}, Wilson 95% interval {low:.2f}-{high:.2f}; ten runs all "
              f"adapting at {high:.2f} has chance {pooled.chance_of_all():.2g}."]
    for start, (runs, adapted) in sorted(pooled.by_start().items()):
        if start:
            lines.append(f"Success at the injection {start}: {adapted} adapted of {runs}.")
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
    parser.add_argument("--by-start", type=float, default=None, metavar="S",
                        help="split the rows at this success at the injection (e.g. 0.05)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        pooled = pool(args.files, args.agent, args.novelty, args.within, args.by_start)
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
