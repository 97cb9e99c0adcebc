"""`nesyworld run --protocol paper`: one hybrid agent through NovelGym's own protocol.

The same run as one cell of the table 2 experiment (experiments/protocol/run.py): η
pre-novelty evaluation epochs, the injection, then 4,800-step epochs of task episodes with
learning on, each followed by 100 evaluation episodes, until appendix A's convergence
test holds; then the paper's five metrics, beside the paper's own figures when the task and
novelty are in its table 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from nesyworld.experiments.cli.output import LazyConsole

console = LazyConsole()


def cmd_run_paper(args: argparse.Namespace) -> int:
    from nesyworld.experiments.protocol.metrics import metrics_of
    from nesyworld.experiments.protocol.paper_table2 import load_paper_table2
    from nesyworld.experiments.protocol.records import PAPER_PROTOCOL, CurvePoint, RunSpec
    from nesyworld.experiments.protocol.run import run_protocol

    novelty = args.novelty[0]
    spec = RunSpec(args.agent, args.spec, novelty, args.seed, PAPER_PROTOCOL)
    start = time.perf_counter()

    def on_point(point: CurvePoint) -> None:
        if not args.json:
            console.print(f"{point.phase:4s} epoch {point.epoch:3d}  env steps "
                          f"{point.env_steps:9,d}  success {point.success_rate:.2f}  "
                          f"reward {point.mean_reward:7.1f}  "
                          f"({time.perf_counter() - start:.0f} s)", highlight=False)

    record = run_protocol(spec, on_point)
    if record["status"] != "ok":
        print(f"nesyworld: error: the run failed: {record['error'].strip().splitlines()[-1]}",
              file=sys.stderr)
        return 1
    m = metrics_of(record)
    paper = {r.agent: r for r in load_paper_table2()
             if r.novelty == novelty and args.spec == "pogostick"}.get(
        args.agent.removeprefix("repair+"))
    summary: dict[str, Any] = {
        "spec": args.spec, "agent": args.agent, "novelties": [novelty], "protocol": "paper",
        "knowledge": record.get("knowledge", "closed"), "refusals": "explained",
        "seed": args.seed, "adapted": m.adapted, "verdict": m.adaptation.value,
        "t_adapt": m.t_adapt_env_steps, "s_pre": m.s_pre, "i_novelty": m.i_novelty,
        "s_post": m.s_post, "delta_t": m.delta_t, "wall_seconds": record["wall_seconds"],
        "record": record}
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    from rich.table import Table

    table = Table(title=f"{args.agent} on {args.spec} + {novelty} (paper protocol, run seed "
                  f"{args.seed}, {summary['knowledge']} knowledge)")
    for col in ("metric", "ours", "paper (mean ± sd, 10 seeds)"):
        table.add_column(col)

    def cell(stat: Any) -> str:
        return "–" if stat is None else f"{stat.mean:g} ± {stat.std:g}"

    def num(v: float | int | None, fmt: str) -> str:
        return "none" if v is None else format(v, fmt)

    rows = [("S_pre", num(m.s_pre, ".2f"), paper and cell(paper.s_pre)),
            ("I_novelty", num(m.i_novelty, ".2f"), paper and cell(paper.i_novelty)),
            ("T_adapt (env steps)", num(m.t_adapt_env_steps, ",d") + (
                "" if m.adapted else f" ({m.adaptation.value})"),
             paper and cell(paper.t_adapt)),
            ("S_post", num(m.s_post, ".2f"), paper and cell(paper.s_post)),
            ("Δt (steps)", num(m.delta_t, ".1f"), paper and cell(paper.delta_t))]
    for name, ours, theirs in rows:
        table.add_row(name, ours, theirs or "–")
    console.print(table)
    return 0
