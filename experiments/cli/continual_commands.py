"""`nesyworld continual`: run a continual task sequence and report forgetting."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import output_dir
from nesyworld.experiments.cli.logdir_option import add_logdir_argument, training_logs


def add_commands(sub: Any) -> None:
    from nesyworld.experiments.config_files import shipped_of_kind

    p = sub.add_parser(
        "continual", help="train one agent on a sequence of tasks; accuracy matrix, forgetting",
        description="Train an RL agent on each task of a continual config in turn, evaluating "
        "it on every task after each one: the success-rate matrix R[i][j] (task j after "
        "training on task i), average final success, forgetting, backward and forward "
        "transfer. Writes continual.json and heatmap.png; rerun to resume a stopped run.")
    p.add_argument("config", help="a continual config file, or a shipped one: "
                   + ", ".join(shipped_of_kind("continual")))
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="results directory (default results/continual_<name>/)")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object, without progress lines")
    add_logdir_argument(p)
    p.set_defaults(handler=cmd_continual)


def cmd_continual(args: argparse.Namespace) -> int:
    """Exit status 0 on success, 2 when the run could not go on (another config's results:
    ContinualError, which `main` prints)."""
    from nesyworld.experiments.continual.config import load_continual
    from nesyworld.experiments.continual.report import print_summary, summarize, write_heatmap
    from nesyworld.experiments.continual.run import StageRecord, run_continual

    config = load_continual(args.config)
    out = output_dir(args.out or Path("results") / f"continual_{config.name}")
    from rich.console import Console

    console = Console(stderr=args.json)

    def progress(rec: StageRecord) -> None:
        if args.json:
            return
        after = "untrained" if rec.stage < 0 else f"after {rec.task}"
        rates = ", ".join(f"{t.name} {v:.2f}" for t, v in zip(config.tasks, rec.success,
                                                               strict=True))
        console.print(f"seed {rec.seed} {after}: {rates} ({rec.wall_seconds:.1f} s)",
                      highlight=False)

    with training_logs(args.logdir):
        records = run_continual(config, out, progress)
    summary = summarize(config, records)
    files = {"json": str(out / "continual.json")}
    if "mean_matrix" in summary:
        files["heatmap"] = str(write_heatmap(summary, out / "heatmap.png"))
    summary["files"] = files
    (out / "continual.json").write_text(json.dumps(summary, indent=1) + "\n",
                                        encoding="utf-8")
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    print_summary(summary, console)
    console.print("wrote " + ", ".join(files.values()), highlight=False)
    return 0
