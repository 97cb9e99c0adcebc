"""Running the studio: a threaded server on the loopback address, stopped with Ctrl-C."""

from __future__ import annotations

import threading
import webbrowser
from dataclasses import dataclass
from typing import Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

LOOPBACK = "127.0.0.1"


@dataclass
class RunningStudio:
    """A studio serving in a background thread (for tests and notebooks)."""

    server: BaseWSGIServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server.server_port}/"

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)
        self.server.server_close()  # the port is free again at once

    def __enter__(self) -> RunningStudio:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class _QuietHandler(WSGIRequestHandler):
    """No line per request: a studio inside tests or a notebook should not chatter."""

    def log_request(self, *args: Any) -> None:
        return None


def start(app: Any, port: int = 0) -> RunningStudio:
    """Serve `app` on 127.0.0.1 (port 0: any free port) in a daemon thread."""
    server = make_server(LOOPBACK, port, app, threaded=True, request_handler=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="nesyworld-studio",
                              daemon=True)
    thread.start()
    return RunningStudio(server, thread)


def serve(app: Any, port: int, open_browser: bool, announce: Any = print) -> None:
    """Serve in the foreground until interrupted."""
    server = make_server(LOOPBACK, port, app, threaded=True)
    url = f"http://{LOOPBACK}:{server.server_port}/"
    announce(url)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.serve_forever()
    finally:
        server.server_close()
