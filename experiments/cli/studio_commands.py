"""`nesyworld studio`: the browser studio on 127.0.0.1; and `nesyworld run ... --studio`, the
same studio serving a run's Live tab from a thread of the run's own process."""

from __future__ import annotations

import argparse
import errno
from collections.abc import Callable
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


# --- `nesyworld run ... --studio`: a run streamed to the studio's Live tab ------------------
def add_live_arguments(p: Any) -> None:
    """`--studio`, `--studio-port`, `--studio-exit` on `nesyworld run`."""
    p.add_argument("--studio", action="store_true",
                   help="hybrid agent: serve the studio on 127.0.0.1 during the run (its URL "
                        "is printed first); its Live tab streams the run: the map of the "
                        "episode being played, the events, the learning curve and progress, "
                        "the learned operator beside the failed one. After the run it keeps "
                        "serving the finished run until Ctrl-C")
    p.add_argument("--studio-port", type=port, default=None, metavar="N",
                   help="with --studio: serve on port N (default: any free port)")
    p.add_argument("--studio-exit", action="store_true",
                   help="with --studio: stop serving when the run ends (after the open "
                        "pages have had its end, 2 s at most)")


def check_live(args: argparse.Namespace, hybrid: tuple[str, ...]) -> None:
    """Before anything runs: --studio's options make sense together."""
    if not args.studio:
        if args.studio_port is not None or args.studio_exit:
            raise UsageError("--studio-port and --studio-exit: only with --studio")
        return
    if args.agent not in hybrid:
        raise UsageError("--studio: streams a hybrid agent's run; expected a hybrid --agent "
                         f"({', '.join(hybrid)})")
    if args.protocol != "light":
        raise UsageError("--studio: streams a light-protocol run; --protocol paper runs "
                         "elsewhere (use --protocol light)")


LIVE_GRACE = 2.0
"""Seconds --studio-exit waits for open pages to receive the run's end."""


def run_with_studio(args: argparse.Namespace, env: Any, recorder: Any,
                    run: Callable[..., int]) -> int:
    """`run(args, env, recorder, live)` with the studio serving its Live tab meanwhile; then
    keep serving until Ctrl-C (or stop at once with --studio-exit)."""
    import socket
    import sys
    import time

    from nesyworld.experiments.studio import create_app, start
    from nesyworld.experiments.studio.live import LiveHub
    from nesyworld.experiments.studio.live_run import LiveRun

    def say(text: str) -> None:  # stdout is the JSON summary's with --json
        if args.json:
            print(text, file=sys.stderr, flush=True)
        else:
            console.print(text, highlight=False, markup=False)

    hub = LiveHub()
    try:
        if args.studio_port:  # werkzeug would exit with two lines of its own
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(("127.0.0.1", args.studio_port))
        studio = start(create_app([], ".", live=hub), args.studio_port or 0)
    except OSError as err:
        raise UsageError(f"--studio-port: cannot serve on 127.0.0.1:{args.studio_port} "
                         f"({err.strerror or err}); expected a free port, or none for any"
                         ) from err
    say(f"nesyworld studio: this run live at {studio.url}")
    live = LiveRun(hub, env, {"spec": args.spec, "agent": args.agent,
                              "novelties": list(args.novelty), "seed": args.seed,
                              "budget": args.budget, "protocol": args.protocol,
                              "knowledge": getattr(args, "knowledge", None),
                              "refusals": getattr(args, "refusals", "explained")})
    try:
        status = run(args, live.env, recorder, live)
    except BaseException as exc:
        live.finish("failed", f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
                    if str(exc) else type(exc).__name__)
        hub.wait_delivered(LIVE_GRACE / 4)
        hub.close()
        studio.stop()
        raise
    live.finish()
    if args.studio_exit:
        hub.wait_delivered(LIVE_GRACE)
        hub.close()
        studio.stop()
        return status
    say(f"nesyworld studio: the run is over; {studio.url} shows it until Ctrl-C")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        hub.close()
        studio.stop()
    return status
