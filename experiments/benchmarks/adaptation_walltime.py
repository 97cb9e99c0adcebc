"""Adaptation wall time: how long a RapidLearn+ agent takes to adapt to a novelty, and its T_adapt.

    python -m nesyworld.experiments.benchmarks.adaptation_walltime --seeds 6 \\
        --planner in-process --compare-bias 0

Each run adapts a fresh agent under the light protocol (the adaptation study's `run_one`,
experiments/adaptation/run.py) in this process, one run after another, and keeps its
adaptation seconds: the agent's episodes, repairs and recoveries, without the imports or the
frozen evaluation. Beside every run a reference is timed in the same process just before it
(`sum(range(10**6))`, best of five), and the table gives the median ratio, which is what
carries over to another machine. `--compare-bias B` runs every seed a second time with
`RecoveryConfig.novelty_bias` = B, alternating which setting goes first, so both see the
same machine load. T_adapt (env steps, docs/COUNTS.md) does not depend on the machine: a
run repeats it exactly.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nesyworld.experiments.adaptation.run import AdaptationRunSpec, run_one
from nesyworld.experiments.benchmarks.timing import best_time

NOVELTIES = ("axe", "fence", "fire")


def reference_seconds() -> float:
    """The same-run reference: a fixed pure-Python loop, best of five."""
    return best_time(lambda: sum(range(10**6)), 5)


@dataclass
class WallTimeRow:
    """One (novelty, setting) over its seeds."""

    novelty: str
    setting: str
    seconds: list[float] = field(default_factory=list)
    """Adaptation seconds of each run that adapted."""
    ratios: list[float] = field(default_factory=list)
    """Each of those divided by its reference."""
    t_adapt: list[int] = field(default_factory=list)
    runs: int = 0

    def summary(self) -> dict[str, Any]:
        def spread(values: list[float]) -> str:
            return f"{min(values):.1f}-{max(values):.1f}" if values else "-"

        return {"novelty": self.novelty, "setting": self.setting, "runs": self.runs,
                "adapted": len(self.t_adapt),
                "t_adapt_mean": round(statistics.mean(self.t_adapt)) if self.t_adapt else None,
                "t_adapt_median": statistics.median(self.t_adapt) if self.t_adapt else None,
                "seconds": spread(self.seconds),
                "seconds_median": round(statistics.median(self.seconds), 2)
                if self.seconds else None,
                "ratio_median": round(statistics.median(self.ratios), 1)
                if self.ratios else None}


def measure(novelties: Sequence[str], seeds: int, planner: str | None,
            compare_bias: float | None, budget: int = 60_000,
            progress: bool = True) -> list[WallTimeRow]:
    """Run every (novelty, seed, setting) in this process; one row per novelty and setting."""
    rows: dict[tuple[str, str], WallTimeRow] = {}
    biases: list[float | None] = [None] if compare_bias is None else [None, compare_bias]
    total = len(novelties) * seeds * len(biases)
    done, start = 0, time.perf_counter()
    for novelty in novelties:
        for seed in range(seeds):
            order = biases if seed % 2 == 0 else biases[::-1]
            for bias in order:
                spec = AdaptationRunSpec(novelty=novelty, seed=seed, step_budget=budget,
                                       novelty_bias=bias, planner=planner)
                reference = reference_seconds()
                record = run_one(spec)
                row = rows.setdefault((novelty, spec.setting),
                                      WallTimeRow(novelty, spec.setting))
                row.runs += 1
                if record["t_adapt"] is not None:
                    row.t_adapt.append(int(record["t_adapt"]))
                    row.seconds.append(float(record["adaptation_seconds"]))
                    row.ratios.append(float(record["adaptation_seconds"]) / reference)
                done += 1
                if progress:
                    elapsed = time.perf_counter() - start
                    eta = elapsed / done * (total - done)
                    print(f"[{done}/{total}] {spec.key}: T_adapt {record['t_adapt']}, "
                          f"{record['adaptation_seconds']:.1f} s (reference "
                          f"{reference * 1000:.1f} ms); ETA {eta:.0f} s", flush=True)
    return list(rows.values())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--novelties", nargs="+", default=list(NOVELTIES))
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--planner", default="in-process",
                        help="the agent's planner (default in-process, as `nesyworld run`)")
    parser.add_argument("--compare-bias", type=float, default=None,
                        help="also run every seed at this RecoveryConfig.novelty_bias")
    parser.add_argument("--budget", type=int, default=60_000,
                        help="training steps per recovery")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    rows = measure(args.novelties, args.seeds, args.planner, args.compare_bias, args.budget,
                   progress=not args.json)
    summaries = [r.summary() for r in rows]
    if args.json:
        print(json.dumps(summaries, indent=1))
        return 0
    print(f"{'novelty':<8} {'setting':<32} {'adapted':>8} {'mean T_adapt':>13} "
          f"{'seconds':>12} {'median s':>9} {'x reference':>12}")
    for s in summaries:
        mean = "-" if s["t_adapt_mean"] is None else f"{s['t_adapt_mean']:,}"
        print(f"{s['novelty']:<8} {s['setting']:<32} {s['adapted']:>3} of {s['runs']:<2} "
              f"{mean:>13} {s['seconds']:>12} {s['seconds_median'] or '-':>9} "
              f"{s['ratio_median'] or '-':>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
