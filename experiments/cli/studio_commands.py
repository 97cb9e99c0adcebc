"""`nesyworld studio`: the browser studio on 127.0.0.1."""

from __future__ import annotations

import argparse
import errno
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import UsageError, output_dir, port
from nesyworld.experiments.cli.output import LazyConsole

console = LazyConsole()


def add_commands(sub: Any) -> None:
    p = sub.add_parser("studio", help="watch recorded episodes and edit levels in the browser",
                       description="Serve the studio on 127.0.0.1: replay recordings made "
                                   "with `nesyworld run --record FILE` step by step (plan, "
                                   "PDDL, failures, learning) and paint levels into specs.")
    p.add_argument("recordings", nargs="*", default=["."], metavar="PATH",
                   help="recording files, or folders whose *.json files to list (default: .)")
    p.add_argument("--port", type=port, default=8765, help="0 picks a free port")
    p.add_argument("--levels", default=".", metavar="DIR",
                   help="where the level editor saves its specs (default: .)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.set_defaults(handler=cmd_studio)


def cmd_studio(args: argparse.Namespace) -> int:
    from nesyworld.experiments.studio import create_app
    from nesyworld.experiments.studio.server import serve

    for path in args.recordings:
        if not Path(path).exists():  # main prints it: nesyworld: error: <path>: <reason>
            raise FileNotFoundError(errno.ENOENT, "no such file or folder", path)
    output_dir(args.levels)  # the editor saves there: a bad folder fails now, not at a save
    app = create_app(args.recordings, args.levels)

    def announce(url: str) -> None:
        console.print(f"nesyworld studio at [bold]{url}[/bold] (Ctrl-C stops it)",
                      highlight=False)

    try:
        serve(app, args.port, open_browser=not args.no_browser, announce=announce)
    except OSError as err:
        if err.filename is not None:
            raise
        raise UsageError(f"--port: cannot serve on 127.0.0.1:{args.port} "
                         f"({err.strerror or err}); expected a free port, or 0 for any"
                         ) from err
    return 0
