"""`nesyworld experiment`: run an experiment config's grid of runs, resumably."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import UsageError, output_dir, output_file, whole
from nesyworld.experiments.cli.logdir_option import add_logdir_argument, training_logs
from nesyworld.hybrid.seeding.scheme import RUNS


def add_commands(sub: Any) -> None:
    from nesyworld.experiments.config_files import shipped_of_kind

    p = sub.add_parser(
        "experiment", help="run an experiment's agents x novelties x seeds, resumably",
        description="Run every (agent, novelty, seed) run of an experiment config. Each run is "
        "recorded in the results file as it finishes; run the same command again to resume "
        "a sweep that was stopped (runs that failed are retried).")
    p.add_argument("config", help="an experiment config file, or a shipped config: "
                   + ", ".join(shipped_of_kind("experiment")))
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="the JSON-lines results file (default results/<name>.jsonl)")
    p.add_argument("--backend", choices=["local", "ray"],
                   help="local: a process pool on this machine; ray: Ray tasks (needs "
                        "pip install nesyworld[ray]); default: the config's backend")
    p.add_argument("--address", metavar="ADDR",
                   help="Ray cluster address (implies --backend ray; default: start a local "
                        "Ray)")
    p.add_argument("--workers", type=whole(1, 1024, "a number of workers"), metavar="N",
                   help="runs at a time (default: the config's, else one per CPU)")
    p.add_argument("--seeds", type=whole(1, RUNS, "a number of seeds"), metavar="N",
                   help="run seeds 0..N-1 instead of the config's (a quicker first look)")
    p.add_argument("--agents", nargs="+", metavar="AGENT",
                   help="only these of the config's agents (a chunk of a long grid; the "
                        "same results file collects every chunk)")
    p.add_argument("--novelties", nargs="+", metavar="NOVELTY",
                   help="only these of the config's novelties")
    p.add_argument("--report", type=Path, metavar="DIR",
                   help="when the runs are done, write the report (as `nesyworld report "
                        "RESULTS --out DIR`) of the whole results file to DIR")
    p.add_argument("--run-fn", default=None, metavar="MODULE:FUNCTION",
                   help=argparse.SUPPRESS)  # for tests and alternative protocols
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object, without the progress display")
    add_logdir_argument(p)
    p.set_defaults(handler=cmd_experiment)

    r = sub.add_parser(
        "report", help="table 2, per-run metrics CSV and figure 4 plots from a results file",
        description="Compute the NovelGym metrics of every run in a results file and print "
        "the paper's table 2 layout (mean ± std over seeds) beside the paper's own figures; "
        "write metrics.csv, report.md and one figure4_<novelty>.png per novelty.")
    r.add_argument("results", type=Path, help="a JSON-lines results file of `experiment`")
    r.add_argument("--out", type=Path, metavar="DIR",
                   help="where to write the CSV, markdown and PNGs (default: beside the "
                        "results, in <results stem>_report/)")
    r.add_argument("--json", action="store_true",
                   help="print the table rows as JSON instead of tables")
    r.set_defaults(handler=cmd_report)


def cmd_experiment(args: argparse.Namespace) -> int:
    """Exit status 0 when every run is ok, 1 when some failed (their records hold the
    traceback), 2 when the sweep could not run."""
    from nesyworld.experiments.protocol.config import load_experiment
    from nesyworld.experiments.protocol.sweep import DEFAULT_RUN_FN, RunnerError, run_experiment

    config = load_experiment(args.config)
    if args.workers is not None:
        config = dataclasses.replace(config, workers=args.workers)
    if args.seeds is not None:
        config = dataclasses.replace(config, seeds=tuple(range(args.seeds)))
    for field in ("agents", "novelties"):
        chosen = getattr(args, field)
        if chosen is None:
            continue
        unknown = [c for c in chosen if c not in getattr(config, field)]
        if unknown:
            raise UsageError(f"--{field}: {', '.join(unknown)} not in the config's {field}; "
                             f"expected some of {', '.join(getattr(config, field))}")
        kept: dict[str, Any] = {field: tuple(c for c in getattr(config, field) if c in chosen)}
        config = dataclasses.replace(config, **kept)
    backend = args.backend or ("ray" if args.address else config.backend)
    if args.address and backend != "ray":
        raise UsageError("--address: is for --backend ray")
    out = output_file(args.out or Path("results") / f"{config.name}.jsonl", makes_folders=True)
    if args.report is not None:
        output_dir(args.report)
    try:
        with training_logs(args.logdir):  # the spawned workers inherit the log root
            records = run_experiment(config, out, run_fn=args.run_fn or DEFAULT_RUN_FN,
                                     backend=backend, address=args.address,
                                     progress=not args.json)
    except RunnerError as err:  # a sweep that cannot start or go on: the message says why
        raise UsageError(str(err)) from err
    errors = [r["key"] for r in records if r.get("status") != "ok"]
    summary = {"experiment": config.name, "out": str(out), "runs": len(records),
               "ok": len(records) - len(errors), "error": len(errors), "errors": errors}
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    else:
        from rich.console import Console

        console = Console()
        console.print(f"{config.name}: {summary['ok']} of {summary['runs']} runs ok, "
                      f"{summary['error']} with errors; records in {out}", highlight=False)
        if errors:
            console.print("failed (rerun the command to retry them): " + ", ".join(errors),
                          highlight=False)
    if args.report is not None:
        from nesyworld.experiments.protocol.report import read_records, write_report

        paths = write_report(read_records(out), args.report)
        if not args.json:
            print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 1 if errors else 0


def cmd_report(args: argparse.Namespace) -> int:
    from nesyworld.experiments.protocol.paper_table2 import comparison_table, paper_comparison
    from nesyworld.experiments.protocol.report import (
        print_table2,
        protocol_names,
        read_runs,
        table2_rows,
        write_report,
    )

    # a missing file, a FIFO, no runs, a line that is not a run: one located line, status 2
    read = read_runs(args.results)
    if read.torn_line is not None:
        print(f"nesyworld: note: {args.results}:{read.torn_line}: the last line is a record "
              "cut short (a sweep killed mid-write, or still writing); skipped",
              file=sys.stderr)
    out = output_dir(args.out or args.results.with_name(f"{args.results.stem}_report"))
    records = list(read.records.values())
    paths = write_report(records, out)
    rows = table2_rows(records)
    if args.json:
        sys.stdout.write(json.dumps({"rows": [dataclasses.asdict(r) for r in rows],
                                     "files": {k: str(v) for k, v in paths.items()}},
                                    indent=1, default=str) + "\n")
        return 0
    from rich.console import Console

    console = Console()
    names = protocol_names(records)
    console.print(f"protocol: {', '.join(names)} (docs/COUNTS.md)", highlight=False)
    print_table2(rows, console)
    comparisons = paper_comparison(rows)
    if comparisons and names == ["paper"]:
        console.print(comparison_table(comparisons))
    elif comparisons:
        console.print("not set beside the paper's figures: these runs did not use the "
                      "paper's protocol", highlight=False)
    console.print(f"wrote {', '.join(str(p) for p in paths.values())}", highlight=False)
    return 0
