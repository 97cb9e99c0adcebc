"""What the studio checks of a request before a route sees it: who may change state, and how
much of a body it reads.

Why the Origin check: the studio listens on the loopback, but any page the user's browser
opens can send it requests. A "simple" cross-origin POST (Content-Type text/plain, or a form)
is sent without a preflight, so without this check a page on another site could save levels
into the user's folder. Browsers name the page that sent a request in `Origin` (and, in
recent ones, its relation to the target in `Sec-Fetch-Site`); a state-changing request is
served only when those say it came from the studio's own page. A request without either (a
script, curl, the test client) names no page and is served, as it could be by hand.

Why the body is read here: Werkzeug refuses a body over the cap when it declares its length,
but a chunked body (no Content-Length) is cut at the cap and handed over as if whole, which
made an oversized upload a "truncated JSON" 422 instead of a 413.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing; every other one is checked by `write_refusal`."""
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
SAME_SITE = frozenset({"same-origin", "none"})
"""Sec-Fetch-Site values of the studio's own page, or of a request the user typed."""
SHOWN = 80
"""How much of a header value a refusal repeats."""


def _host_port(netloc: str, default: int) -> tuple[str, int] | None:
    """(lower-case host, port) of `netloc`, or None when it cannot be read."""
    try:
        parts = urlsplit("//" + netloc)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    return (host, default if port is None else port) if host else None


def write_refusal(origin: str | None, fetch_site: str | None, host: str) -> str:
    """Why a state-changing request must be refused ("" when it may go on): `origin` and
    `fetch_site` are its Origin and Sec-Fetch-Site headers, `host` the Host it was sent to
    (already checked to be a loopback name)."""
    if fetch_site is not None and fetch_site.strip().lower() not in SAME_SITE:
        return f"a {_cut(fetch_site)} request may not change the studio"
    if origin is None:
        return ""
    try:
        parts = urlsplit(origin.strip())
        scheme = parts.scheme
    except ValueError:
        scheme = ""
    mine = _host_port(host, 80)
    theirs = _host_port(parts.netloc, 80) if scheme == "http" else None
    if theirs is None or theirs[0] not in LOOPBACK_HOSTS or theirs != mine:
        return f"a request from {_cut(origin)} may not change the studio"
    return ""


def _cut(text: str) -> str:
    text = "".join(c if c.isprintable() else "?" for c in text.strip())
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def posted_bytes(limit: int) -> bytes:
    """The request's body, at most `limit` bytes; RequestEntityTooLarge (413) beyond, be it
    declared (Content-Length) or streamed (chunked)."""
    request.max_content_length = limit + 1  # Werkzeug stops a chunked body one byte past it
    stream = request.stream
    chunks, total = [], 0
    while chunk := stream.read(1 << 16):
        total += len(chunk)
        if total > limit:
            raise RequestEntityTooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


def posted_json(limit: int) -> Any:
    """The request's JSON body (None when it is not JSON, as Flask's get_json(silent=True)
    answers), read by `posted_bytes`."""
    data = posted_bytes(limit)
    if not request.is_json:
        return None
    try:
        return json.loads(data)
    except ValueError:  # not JSON, not UTF-8 (RecursionError goes to the app's handler)
        return None


__all__ = ["LOOPBACK_HOSTS", "SAFE_METHODS", "posted_bytes", "posted_json", "write_refusal"]
