"""The live view's event hub: what a run publishes, streamed to pages as server-sent events.

Why server-sent events rather than a websocket: the stream goes one way (the run talks, the
page listens), the browser's `EventSource` reconnects by itself and sends back the id of the
last message it had (`Last-Event-ID`), and Flask's own server streams it with no extra
dependency. A reconnecting page therefore resumes where it was, and a page opened late gets
the whole run so far.

Two kinds of message share one increasing id:

* the log (`publish`): agent events, episodes, domains, the end; kept in order, at most
  `max_log` of them (a page that falls further behind loses the oldest, never blocks the run);
* states (`publish(..., latest=True)`): the map, the learning's progress, the run's header;
  only the newest of each is kept, so a slow page skips frames instead of queueing them.

The run thread only appends under a lock and wakes the streams; each page's stream runs in
its own server thread, reads from its own cursor (its bounded queue is the log from that
cursor on), and says `: ping` every `heartbeat` seconds so proxies and the page know it is
alive. After `finish` a stream sends what its page lacks, then ends; a page that has it all
is answered 204, which tells `EventSource` to stop reconnecting.
"""

from __future__ import annotations

import bisect
import json
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, jsonify, request

HEARTBEAT = 15.0
"""Seconds between keep-alive comments on an idle stream."""
MAX_LOG = 20_000
"""Log messages kept (a light-protocol run of 60 episodes emits a few thousand)."""
MAX_CLIENTS = 16
"""Streams open at once: each holds a server thread."""
RETRY_MS = 1000
"""How soon a page's EventSource reconnects after the stream drops."""
MAX_DEPTH = 16
"""Nesting kept when an event's data is made plain JSON; deeper values become text."""


def plain(value: Any, depth: int = 0) -> Any:
    """`value` as strict JSON data: numpy scalars and arrays as numbers and lists, NaN and
    infinities as null (JavaScript's JSON.parse refuses them), unknown objects as text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= MAX_DEPTH:
        return str(value)[:200]
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    item = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(item):
        return plain(item(), depth + 1)
    return str(value)[:500]


@dataclass(frozen=True)
class Message:
    """One published message and its server-sent-event block, serialised once for all."""

    id: int
    type: str
    block: str


class LiveHub:
    """Messages of one run, for any number of live pages (see the module docstring)."""

    def __init__(self, heartbeat: float = HEARTBEAT, max_log: int = MAX_LOG,
                 max_clients: int = MAX_CLIENTS) -> None:
        self.heartbeat = heartbeat
        self.max_log = max_log
        self.max_clients = max_clients
        self.finished = False
        """The run has ended (its `end` message is the last)."""
        self.closed = False
        """The server is stopping: every stream ends now."""
        self._cond = threading.Condition()
        self._log: list[Message] = []
        self._ids: list[int] = []
        self._latest: dict[str, Message] = {}
        self._latest_data: dict[str, Any] = {}
        self._next = 1
        self._clients: dict[int, int] = {}  # stream token -> last id its page was sent
        self._tokens = 0

    # --- the run's side ----------------------------------------------------------------
    def publish(self, kind: str, data: dict[str, Any], latest: bool = False) -> int:
        """Add a message (`latest`: replace the previous one of this kind); its id."""
        with self._cond:
            mid = self._next
            self._next += 1
            data = plain(data)
            payload = json.dumps({"id": mid, "type": kind, "data": data},
                                 separators=(",", ":"), allow_nan=False)
            message = Message(mid, kind, f"id: {mid}\ndata: {payload}\n\n")
            if latest:
                self._latest[kind] = message
                self._latest_data[kind] = data
            else:
                self._log.append(message)
                self._ids.append(mid)
                if len(self._log) > self.max_log:  # drop the oldest quarter at once
                    cut = len(self._log) - self.max_log * 3 // 4
                    del self._log[:cut], self._ids[:cut]
            self._cond.notify_all()
            return mid

    def finish(self, data: dict[str, Any]) -> None:
        """The run ended: publish `end` with `data`; streams end once their page has it."""
        with self._cond:
            if self.finished:
                return
            self.publish("end", data)
            self.finished = True
            self._cond.notify_all()

    def close(self) -> None:
        """End every stream now (the server is stopping)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def wait_delivered(self, timeout: float) -> bool:
        """Wait until every open stream has sent its page everything (or `timeout` s)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: all(last >= self._next - 1 for last in self._clients.values()),
                timeout)

    # --- the pages' side ---------------------------------------------------------------
    @property
    def last_id(self) -> int:
        with self._cond:
            return self._next - 1

    @property
    def clients(self) -> int:
        with self._cond:
            return len(self._clients)

    def after(self, last: int) -> list[Message]:
        """The messages a page that has everything up to id `last` lacks, in order."""
        with self._cond:
            found = self._log[bisect.bisect_right(self._ids, last):]
            found += [m for m in self._latest.values() if m.id > last]
        return sorted(found, key=lambda m: m.id)

    def latest(self, kind: str) -> dict[str, Any] | None:
        """The data of the newest `latest` message of this kind (the page's status call)."""
        with self._cond:
            return self._latest_data.get(kind)

    def open_stream(self, last: int) -> Iterator[str] | None:
        """A page's stream from after id `last`, or None when MAX_CLIENTS are open."""
        with self._cond:
            if len(self._clients) >= self.max_clients:
                return None
            self._tokens += 1
            token = self._tokens
            self._clients[token] = last
        return self._stream(token, last)

    def _stream(self, token: int, last: int) -> Iterator[str]:
        try:
            yield f"retry: {RETRY_MS}\n\n"
            while not self.closed:
                with self._cond:
                    self._clients[token] = last  # what the previous yield wrote
                    self._cond.notify_all()
                    if not self.after(last) and not self.finished and not self.closed:
                        self._cond.wait(self.heartbeat)
                    batch = self.after(last)
                    ended = self.finished or self.closed
                if batch:
                    last = batch[-1].id
                    yield "".join(m.block for m in batch)
                elif ended:
                    return
                else:
                    yield ": ping\n\n"
        finally:  # the page left, the run ended or the server stops
            with self._cond:
                self._clients.pop(token, None)
                self._cond.notify_all()


def add_live_routes(app: Flask, hub: LiveHub | None) -> None:
    """`GET /api/live/status` (is a run streaming here, and how far is it) and
    `GET /api/live` (the stream; `Last-Event-ID` or `?after=ID` resumes it)."""

    def problem(status: int, message: str, where: str, expected: str) -> Any:
        return jsonify(error=message, where=where, expected=expected), status

    @app.get("/api/live/status")
    def live_status() -> Any:
        if hub is None:
            return jsonify(live=False)
        return jsonify(live=True, run=hub.latest("run"), finished=hub.finished,
                       last_id=hub.last_id, clients=hub.clients)

    @app.get("/api/live")
    def live_stream() -> Any:
        if hub is None:
            return problem(404, "no run streams to this studio", "live",
                           "a studio started by `nesyworld run ... --studio`")
        raw = (request.headers.get("Last-Event-ID") or request.args.get("after") or "0")
        if not raw.isdigit() or len(raw) > 18:
            return problem(400, f"bad event id '{raw[:20]}'", "Last-Event-ID",
                           "the id of a message this stream sent")
        last = int(raw)
        if hub.finished and last >= hub.last_id:
            return Response(status=204)  # the page has it all: EventSource stops here
        stream = hub.open_stream(last)
        if stream is None:
            return problem(503, f"{hub.max_clients} live views are open already", "live",
                           "fewer open live pages")
        return Response(stream, mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
