"""`nesyworld matrix`: every novelty on every scenario, with NovPhy's row and column means."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import output_file
from nesyworld.experiments.cli.logdir_option import add_logdir_argument, training_logs


def add_commands(sub: Any) -> None:
    from nesyworld.experiments.config_files import shipped_of_kind

    p = sub.add_parser(
        "matrix", help="run every novelty on every scenario, resumably; success-rate tables",
        description="Run a matrix config: every scenario with every novelty (and without "
        "any) by each agent over the seeds, optionally with noisy observations. Cells are "
        "recorded in the results file as they finish (run again to resume). Prints one "
        "table per agent (rows scenarios, columns novelties, cells success rates, n/a where "
        "a novelty cannot apply) with the mean of each row and column, and writes a CSV and "
        "one PNG heatmap per agent beside the results.")
    p.add_argument("config", help="a matrix config file, or a shipped one: "
                   + ", ".join(shipped_of_kind("matrix")))
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="the JSON-lines results file (default results/<name>.jsonl); the "
                        "CSV and PNGs go beside it")
    p.add_argument("--json", action="store_true",
                   help="print the tables as one JSON object, without progress")
    add_logdir_argument(p)
    p.set_defaults(handler=cmd_matrix)


def cmd_matrix(args: argparse.Namespace) -> int:
    """Exit status 0 when every cell ran (or is n/a), 1 when some raised (their records hold
    the traceback and are retried on the next run)."""
    from nesyworld.experiments.matrix.config import load_matrix
    from nesyworld.experiments.matrix.report import rich_table, write_csv, write_heatmap
    from nesyworld.experiments.matrix.run import matrix_tables, na_reasons, run_matrix

    config = load_matrix(args.config)
    out = output_file(args.out or Path("results") / f"{config.name}.jsonl", makes_folders=True)
    from rich.console import Console

    console = Console(stderr=args.json)

    def progress(record: dict[str, Any], done: int, total: int) -> None:
        if args.json:
            return
        status = record["status"]
        shown = (f"{record['success_rate']:.2f}" if status == "ok" else status)
        console.print(f"[{done}/{total}] {record['key']}: {shown}", highlight=False)

    with training_logs(args.logdir):
        records = run_matrix(config, out, progress)
    tables = matrix_tables(config, records)
    na = na_reasons(records)
    csv_path = write_csv(tables, set(na), out.with_suffix(".csv"))
    pngs = [write_heatmap(t, set(na), out.with_name(f"{out.stem}_{t.agent}.png"), config.name)
            for t in tables]
    errors = sum(t.errors for t in tables)
    if args.json:
        summary = {"name": config.name, "noise": config.noise, "results": str(out),
                   "csv": str(csv_path), "png": [str(p) for p in pngs],
                   "tables": [t.as_dict() for t in tables],
                   "not_applicable": {f"{s}/{n}": why for (s, n), why in na.items()},
                   "errors": errors}
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 1 if errors else 0
    title = config.name + (f" (observation noise {config.noise:g})" if config.noise else "")
    for t in tables:
        console.print(rich_table(t, set(na), title))
    for (scenario, novelty), why in na.items():
        console.print(f"n/a {scenario} x {novelty}: {why}", highlight=False)
    console.print(f"results {out}, csv {csv_path}, heatmaps {', '.join(map(str, pngs))}")
    if errors:
        console.print(f"[red]{errors} cells raised; their tracebacks are in {out}; run again "
                      "to retry them[/red]")
    return 1 if errors else 0
