"""`nesyworld studio`: the browser studio on 127.0.0.1."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.output import LazyConsole

console = LazyConsole()


def add_commands(sub: Any) -> None:
    p = sub.add_parser("studio", help="watch recorded episodes and edit levels in the browser",
                       description="Serve the studio on 127.0.0.1: replay recordings made "
                                   "with `nesyworld run --record FILE` step by step (plan, "
                                   "PDDL, failures, learning) and paint levels into specs.")
    p.add_argument("recordings", nargs="*", default=["."], metavar="PATH",
                   help="recording files, or folders whose *.json files to list (default: .)")
    p.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    p.add_argument("--levels", default=".", metavar="DIR",
                   help="where the level editor saves its specs (default: .)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.set_defaults(handler=cmd_studio)


def cmd_studio(args: argparse.Namespace) -> int:
    from nesyworld.experiments.studio import create_app
    from nesyworld.experiments.studio.server import serve

    missing = [p for p in args.recordings if not Path(p).exists()]
    if missing:
        console.print(f"[red]error:[/red] no such file or folder: {missing[0]}",
                      highlight=False)
        return 2
    app = create_app(args.recordings, args.levels)

    def announce(url: str) -> None:
        console.print(f"nesyworld studio at [bold]{url}[/bold] (Ctrl-C stops it)",
                      highlight=False)

    serve(app, args.port, open_browser=not args.no_browser, announce=announce)
    return 0
