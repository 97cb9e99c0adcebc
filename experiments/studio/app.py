"""The studio's web app: a JSON API over recordings and levels, and one static page.

Flask serves it because the studio is a handful of synchronous JSON routes on 127.0.0.1 that
call our own (synchronous) code; the page is plain HTML, CSS and JavaScript, so there is no
build step. Every failure the page can meet comes back as JSON `{error, where, expected}` with
a 4xx status, never as an HTML error page, so the page always has something to show; a bug is
a JSON 500 that names the exception's type only (no traceback, no message: either could quote
a file).

What it opens: recordings named on the command line (listed by name, never by a path from the
request), the shipped specs and novelties by name, its own static files; it writes only
`<levels_dir>/<level name>.yaml` and games played in the page, `<levels_dir>/<name>.json`.
An uploaded recording opens no file at all: an episode recording holds its frames, and a plain
trajectory is re-simulated only on the shipped spec it names (hybrid/recording/reader.py), so
no error can quote a file the page named. Request bodies are capped (MAX_UPLOAD for a
recording, MAX_LEVEL_BODY for a level or a game request) and answered 413 beyond that, chunked
or not. A request that would change something (any method but GET, HEAD and OPTIONS) is
served only from the studio's own page: guards.py checks its Origin and Sec-Fetch-Site.

A studio started by `nesyworld run --studio` also streams that run (`live`: live.py's routes,
`/api/live` and `/api/live/status`); the same Host and Origin checks cover them.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from nesyworld.experiments.errors import is_user_error
from nesyworld.experiments.studio.guards import (
    LOOPBACK_HOSTS,
    SAFE_METHODS,
    posted_bytes,
    posted_json,
    write_refusal,
)
from nesyworld.experiments.studio.levels import (
    NAME,
    Level,
    LevelError,
    agent_glyphs,
    derive_level,
    level_of,
    palette,
    plan_level,
    with_tile_colors,
)
from nesyworld.experiments.studio.live import LiveHub, add_live_routes
from nesyworld.experiments.studio.play import KEYS, Games, PlayError, save_recording
from nesyworld.hybrid.recording.reader import RecordingError, read_recording
from nesyworld.world.errors import SpecError

STATIC = Path(__file__).parent / "static"
MAX_UPLOAD = 64 * 1024 * 1024
"""The largest recording upload, in bytes (an hour-long episode records a few MB)."""
MAX_LEVEL_BODY = 1024 * 1024
"""The largest level a page posts, in bytes (a MAX_SIDE square map of long type names)."""
FILE_NAME_CHARS = 120
"""How much of an uploaded file's name (X-File-Name) errors repeat."""


def find_recordings(paths: list[Path]) -> dict[str, Path]:
    """Recording files by the name the page lists them under: given files, and the *.json
    files of given folders (not recursive)."""
    found: dict[str, Path] = {}
    for path in paths:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        for file in files:
            name, k = file.name, 2
            while name in found:
                name, k = f"{file.stem} ({k}){file.suffix}", k + 1
            found[name] = file
    return found


def create_app(recordings: list[str | Path] | None = None,
               levels_dir: str | Path = ".", live: LiveHub | None = None) -> Flask:
    """The studio app: `recordings` are files or folders to list, `levels_dir` is where the
    level editor saves, `live` the hub of a run streaming to the Live tab (live.py)."""
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD
    roots = [Path(p) for p in (recordings or [])]
    out = Path(levels_dir)
    games = Games()
    saved: list[Path] = []  # games saved from the page: listed with the recordings

    def listed() -> dict[str, Path]:
        return find_recordings([*roots, *saved])

    def shown(rec: Any) -> Any:
        data = asdict(rec)
        data["types"] = with_tile_colors(data["types"])
        return jsonify(data)

    def problem(status: int, message: str, where: str = "", expected: str = "") -> Any:
        return jsonify(error=message, where=where, expected=expected), status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        return problem(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc: RequestEntityTooLarge) -> Any:
        return problem(413, "the request body is larger than the studio takes", "request",
                       f"a recording of at most {MAX_UPLOAD // 2**20} MB, or a level or game "
                       f"request of at most {MAX_LEVEL_BODY // 2**20} MB")

    @app.errorhandler(RecordingError)
    def bad_recording(exc: RecordingError) -> Any:
        return problem(422, exc.message, exc.where, exc.expected)

    @app.errorhandler(LevelError)
    def bad_level(exc: LevelError) -> Any:
        return problem(422, exc.message, exc.where, exc.expected)

    @app.errorhandler(PlayError)
    def bad_move(exc: PlayError) -> Any:
        return problem(422, exc.message, exc.where, exc.expected)

    @app.errorhandler(SpecError)
    def bad_spec(exc: SpecError) -> Any:  # a level whose YAML the world refuses
        return problem(422, str(exc).splitlines()[0][:300], "level", "a level the world loads")

    @app.errorhandler(RecursionError)
    def too_deep(exc: RecursionError) -> Any:
        return problem(400, "the request nests too deeply", "request", "a level or recording")

    @app.errorhandler(Exception)
    def any_error(exc: Exception) -> Any:
        """Bad input of another kind (a derivation, PDDL or checkpoint error): its first line;
        anything else is a bug: its type only, so nothing of a file can leak."""
        if is_user_error(exc):
            lines = str(exc).strip().splitlines() or [type(exc).__name__]
            return problem(422, lines[0][:300], "request", "input the studio can show")
        app.logger.error("studio bug on %s %s", request.method, request.path, exc_info=exc)
        return problem(500, f"internal error ({type(exc).__name__}); the terminal running "
                       "`nesyworld studio` shows the traceback", "studio", "")

    @app.before_request
    def loopback_only() -> Any:
        """DNS rebinding: a page on another site that resolves its name to 127.0.0.1 would
        otherwise reach the studio; only requests that name the loopback are served."""
        try:
            host = urlsplit("//" + (request.host or "")).hostname
        except ValueError:
            host = None
        if host not in LOOPBACK_HOSTS:
            return problem(403, "the studio answers only requests to the loopback", "Host",
                           "localhost or 127.0.0.1")
        return None

    @app.before_request
    def same_origin_writes() -> Any:
        """Cross-site request forgery: a page elsewhere may not save levels or play games
        through the user's browser; only the studio's own page changes anything."""
        if request.method in SAFE_METHODS:
            return None
        why = write_refusal(request.headers.get("Origin"),
                            request.headers.get("Sec-Fetch-Site"), request.host)
        if why:
            return problem(403, why, "Origin", f"a request from the studio's own page "
                           f"(http://{request.host})")
        return None

    @app.get("/")
    def index() -> Any:
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name: str) -> Any:
        return send_from_directory(STATIC, name)

    @app.get("/api/recordings")
    def list_recordings() -> Any:
        return jsonify([{"name": n, "path": str(p)} for n, p in listed().items()])

    @app.get("/api/recordings/<name>")
    def open_recording(name: str) -> Any:
        files = listed()
        if name not in files:
            return problem(404, f"no recording named '{name}'", name,
                           f"one of {sorted(files)}" if files else "a recording file")
        return shown(read_recording(files[name]))

    @app.post("/api/recordings/upload")
    def upload_recording() -> Any:
        name = request.headers.get("X-File-Name") or "upload.json"
        name = "".join(c for c in name if c.isprintable())[:FILE_NAME_CHARS] or "upload.json"
        from nesyworld.domains import shipped_specs

        data = posted_bytes(current_app.config["MAX_CONTENT_LENGTH"] or MAX_UPLOAD)
        return shown(read_recording(data, name=name, specs=shipped_specs()))

    @app.get("/api/novelties")
    def novelties() -> Any:
        from nesyworld.domains import shipped_novelties

        return jsonify(sorted(shipped_novelties()))

    @app.get("/api/specs")
    def specs() -> Any:
        from nesyworld.domains import shipped_specs

        return jsonify(sorted(shipped_specs()))

    @app.get("/api/level")
    def new_level() -> Any:
        from nesyworld.domains import shipped_specs

        base = request.args.get("spec", "pogostick")
        seed = request.args.get("seed", "0")
        if not seed.isdigit() or len(seed) > 18:
            return problem(400, f"bad seed '{seed[:20]}'", "seed", "a whole number")
        if base not in shipped_specs():  # never a path: the studio opens no other file
            return problem(404, f"no shipped spec named '{base[:80]}'", "spec",
                           "a shipped spec name (GET /api/specs lists them)")
        try:
            level = level_of(base, int(seed))
            colors, glyphs = palette(base), agent_glyphs(base)
        except (SpecError, LevelError, ValueError) as exc:  # which spec, never its text
            return problem(422, f"spec '{base}' cannot be laid out as a level "
                           f"({type(exc).__name__})", "spec", "a spec with a map")
        return jsonify(level=asdict(level), palette=colors, agent_glyphs=glyphs)

    @app.post("/api/level/derive")
    def derive() -> Any:  # the validity check: it loads, and the goal can be reached
        return jsonify(plan_level(_posted_level()))

    def save_level(level: Level) -> tuple[Path, dict[str, str]]:
        derived = derive_level(level)  # only a level that loads is saved
        if not NAME.match(level.name):  # derive_level checked it; the file name relies on it
            raise LevelError(f"bad level name '{level.name}'")
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{level.name}.yaml"
        path.write_text(derived["yaml"])
        return path, derived

    @app.post("/api/level/save")
    def save() -> Any:
        path, derived = save_level(_posted_level())
        return jsonify(path=str(path.resolve()), **derived)

    add_live_routes(app, live)

    # --- playing in the page (play.py) -----------------------------------------------------
    @app.post("/api/play/new")
    def new_game() -> Any:
        """A game on a shipped spec, or on the posted level (saved first: a trajectory names
        its spec's file, so the game can be replayed later)."""
        from nesyworld.domains import shipped_specs

        data = _posted_json()
        seed = data.get("seed", 0)
        if type(seed) is not int or not 0 <= seed < 2**32:
            raise PlayError("bad seed", "seed", "a whole number from 0 to 2**32 - 1")
        if isinstance(data.get("level"), dict):
            path, _ = save_level(_level_of(data["level"]))
            spec = str(path.resolve())
        else:
            spec = str(data.get("spec", "pogostick"))
            if spec not in shipped_specs():
                raise PlayError(f"no shipped spec named '{spec[:80]}'", "spec",
                                "a shipped spec name (GET /api/specs lists them)")
        gid, game = games.new(spec, seed)
        return jsonify(id=gid, keys=KEYS, **game.view())

    @app.post("/api/play/<gid>/<verb>")
    def play(gid: str, verb: str) -> Any:
        from nesyworld.domains import shipped_novelties

        game = games.get(gid)
        data = _posted_json()
        with game.lock:
            if verb == "act":
                game.act(str(data.get("action", ""))[:200])
            elif verb == "agent":
                game.agent_step()
            elif verb == "novelty":
                name = str(data.get("name", ""))
                if name not in shipped_novelties():
                    raise PlayError(f"no shipped novelty named '{name[:80]}'", "name",
                                    "a shipped novelty (GET /api/novelties lists them)")
                game.inject(name)
            elif verb == "save":
                name = str(data.get("name", ""))
                if not NAME.match(name):
                    raise PlayError(f"bad recording name '{name[:80]}'", "name",
                                    "a letter, then letters, digits, _ or - (64 at most)")
                path = out / f"{name}.json"
                answer = save_recording(game, path)
                if path not in saved:
                    saved.append(path)
                return jsonify(answer)
            else:
                return problem(404, f"no such game request '{verb[:20]}'", "request",
                               "act, agent, novelty or save")
            return jsonify(id=gid, **game.view())

    return app


def _posted_json() -> dict[str, Any]:
    """The request's small JSON object body (MAX_LEVEL_BODY at most)."""
    data = posted_json(MAX_LEVEL_BODY)
    if not isinstance(data, dict):
        raise PlayError("the request body is not a JSON object", "request", "a JSON object")
    return data


def _posted_level() -> Level:
    """The level in the request's JSON body, on a shipped spec (never a path: the studio opens
    no other spec file); LevelError otherwise, 413 for a body over MAX_LEVEL_BODY."""
    data = posted_json(MAX_LEVEL_BODY)
    if data is None:
        raise LevelError("the request body is not JSON", "request", "a JSON level")
    return _level_of(data)


def _level_of(data: Any) -> Level:
    """A level from its JSON, on a shipped spec."""
    from nesyworld.domains import shipped_specs

    level = Level.from_json(data)
    if level.base not in shipped_specs():
        raise LevelError(f"no shipped spec named '{level.base[:80]}'", "base",
                         "a shipped spec name (GET /api/specs lists them)")
    return level
