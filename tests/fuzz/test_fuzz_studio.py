"""The studio's web app: drawn requests (methods, paths, query strings, headers with Host,
Origin and Sec-Fetch-Site among them, JSON and upload bodies mutated from real ones, uploaded
trajectories naming files) through Flask's test client. Never a 500, every error JSON (never an
HTML page), and never a byte of a file the studio was not asked to show."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.studio import create_app

EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 25)
SECRET = "TOP-SECRET-CANARY"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A studio over one real recording (the scripted agent's, 15 steps), a secret file
    beside it that no request may read, and a real level to mutate."""
    tmp = tmp_path_factory.mktemp("studio_fuzz")
    recording = tmp / "scripted.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", "pogostick", "--agent", "scripted", "--record", str(recording),
                     "--json"]) == 0
    (tmp / "secret.yaml").write_text(f"name: {SECRET}\n")
    (tmp / "levels").mkdir()
    client = create_app([recording], levels_dir=tmp / "levels").test_client()
    level = client.get("/api/level?spec=pogostick&seed=1").get_json()["level"]
    trajectory = json.loads(recording.read_bytes())["trajectory"]
    return {"client": client, "tmp": tmp, "recording": recording.read_bytes(),
            "level": level, "trajectory": {"format": "nesyworld.trajectory/1", **trajectory}}


NUMBERS = ("-1", "0", "1", "007", "1e3", "9" * 18, "9" * 19, "x", "", "nan", "٣", " 1")
ODD = ("", "..", "../secret.yaml", "%2e%2e%2fsecret.yaml", "a/b", "\u202e", "é", "<script>",
       "x" * 300, "%00", "?", "#", ";", "'", '"', "{}", "[]")
NO_NEWLINES = str.maketrans("", "", "\r\n")
"""A header value cannot hold them (the client refuses to send one)."""
HOSTS = ("localhost", "127.0.0.1:8765", "[::1]:1", "evil.example", "127.0.0.1.evil", "",
         "[bad", "localhost:x")
ORIGINS = ("http://localhost", "http://127.0.0.1:8765", "http://evil.example", "null", "",
           "http://[bad", "https://localhost", "http://localhost:x", "\u202e")
FETCH_SITES = ("same-origin", "same-site", "cross-site", "none", "", "nonsense")


def paths(tmp: Path) -> st.SearchStrategy[str]:
    names = ("scripted.json", "missing.json", "secret.yaml", str(tmp / "secret.yaml"),
             "../secret.yaml", *ODD)
    return st.one_of(
        st.sampled_from(("/", "/api/recordings", "/api/recordings/upload", "/api/specs",
                         "/api/level", "/api/level/derive", "/api/level/save", "/nowhere",
                         "/static/studio.js", "/static/index.html", "/api", "//api/specs",
                         "/api/level/", "/static/../app.py")),
        st.sampled_from(names).map(lambda n: f"/api/recordings/{n}"),
        st.sampled_from(names).map(lambda n: f"/static/{n}"),
        st.text(max_size=12).map(lambda t: "/" + t))


def query(tmp: Path) -> st.SearchStrategy[dict[str, str]]:
    specs = ("pogostick", "birdhouse", "orchard", "nope", str(tmp / "secret.yaml"),
             "/etc/passwd", *ODD)
    return st.fixed_dictionaries({}, optional={"spec": st.sampled_from(specs),
                                               "seed": st.sampled_from(NUMBERS),
                                               "x": st.text(max_size=6)})


def level_body(data: st.DataObject, level: dict[str, Any], fuzz: Any, tmp: Path) -> Any:
    """A level as the page posts it, with drawn changes: values of wrong shapes, other bases
    (paths among them), painted cells, huge maps, deep nesting; or its JSON text mutated."""
    if data.draw(st.booleans(), label="text mutation"):
        return fuzz.mutant(data, json.dumps(level, indent=1))
    body = json.loads(json.dumps(level))
    for _ in range(data.draw(st.integers(0, 3), label="changes")):
        key = data.draw(st.sampled_from(("base", "name", "cells", "agents", "extra")),
                        label="key")
        new = data.draw(st.one_of(
            st.sampled_from(("pogostick", "birdhouse", "nope", str(tmp / "secret.yaml"),
                             "../../domains/polycraft/pogostick.yaml", "lvl", "a" * 70,
                             "9bad", "x/../y")),
            st.sampled_from((None, 1, -1, 10**40, 1.5, True, [], {}, [[]], [["air"]],
                             [["air"] * 129], [["nope"]], {"main_1": [0, 0]},
                             {"main_1": [1, 1, 1]}, {"main_1": [-1, 3]}, {"x": [2, 2]},
                             "[" * 50 + "]" * 50)),
            st.recursive(st.none() | st.integers() | st.text(max_size=5),
                         lambda inner: st.lists(inner, max_size=3)
                         | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                         max_leaves=8)), label="value")
        cells = body.get("cells")
        paintable = isinstance(cells, list) and cells and all(
            isinstance(row, list) and row for row in cells)
        if key == "cells" and paintable and data.draw(st.booleans(), label="paint"):
            r = data.draw(st.integers(0, len(body["cells"]) - 1), label="row")
            c = data.draw(st.integers(0, len(body["cells"][r]) - 1), label="col")
            body["cells"][r][c] = data.draw(st.sampled_from(
                ("air", "bedrock", "crafting_table", "tree_log", "nope", "")), label="cell")
        elif data.draw(st.integers(0, 5), label="delete") == 0:
            body.pop(key, None)
        else:
            body[key] = new
    return json.dumps(body)


def send(studio: dict[str, Any], method: str, path: str, params: dict[str, str],
         headers: dict[str, str], body: bytes | str | None) -> None:
    if isinstance(body, str):  # as a client sends text: bytes, lone surrogates and all
        body = body.encode("utf-8", "surrogatepass")
    path = path.replace("?", "%3F").replace("#", "%23")  # in the path, not a query or anchor
    response = studio["client"].open(path, method=method, query_string=params,
                                     headers=headers, data=body)
    text = response.get_data(as_text=True)
    label = f"{method} {path[:80]!r} {params} {headers}"
    assert response.status_code != 500, f"{label}: 500 {text[:300]}"
    assert response.status_code < 500, f"{label}: {response.status_code}"
    if response.status_code >= 400:  # JSON (a HEAD answer has the type but no body)
        assert response.is_json, f"{label}: {text[:300]}"
        assert method == "HEAD" or response.get_json()["error"], f"{label}: {text[:300]}"
    assert SECRET not in text, f"{label}: echoed the secret file"
    assert "root:x:" not in text and "Traceback" not in text, label


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_drawn_requests_get_json_answers(fuzz: Any, studio: dict[str, Any],
                                         data: st.DataObject) -> None:
    tmp = studio["tmp"]
    path = data.draw(paths(tmp), label="path")
    method = data.draw(st.sampled_from(("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS",
                                        "PATCH")), label="method")
    params = data.draw(query(tmp), label="query")
    headers = {"Host": data.draw(st.sampled_from(HOSTS), label="host")}
    if data.draw(st.booleans(), label="json type"):
        headers["Content-Type"] = "application/json"
    for header, values in (("Origin", ORIGINS), ("Sec-Fetch-Site", FETCH_SITES)):
        if data.draw(st.booleans(), label=header):
            headers[header] = data.draw(st.sampled_from(values), label=f"{header} value")
    if data.draw(st.booleans(), label="file name"):
        headers["X-File-Name"] = data.draw(st.sampled_from(ODD) | st.text(max_size=10),
                                           label="X-File-Name").translate(NO_NEWLINES)
    kind = data.draw(st.sampled_from(("none", "level", "recording", "trajectory", "bytes")),
                     label="body")
    body: bytes | str | None = None
    if kind == "level":
        body = level_body(data, studio["level"], fuzz, tmp)
    elif kind == "recording":
        body = fuzz.mutant_bytes(data, studio["recording"])
    elif kind == "trajectory":  # a plain trajectory names the spec the studio re-simulates
        spec = data.draw(st.sampled_from((str(tmp / "secret.yaml"), "/etc/passwd", "../x.yaml",
                                          "pogostick", "polycraft/pogostick.yaml", str(tmp))),
                         label="spec")
        body = json.dumps({**studio["trajectory"], "spec": spec})
    elif kind == "bytes":
        body = data.draw(st.binary(max_size=64), label="bytes")
    fuzz.run(f"{method} {path[:60]!r} {kind}",
             lambda: send(studio, method, path, params, headers, body))


@settings(max_examples=max(EXAMPLES // 2, 5), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_posted_levels_derive_or_refuse(fuzz: Any, studio: dict[str, Any],
                                        data: st.DataObject) -> None:
    """The editor's own requests, with the level mutated: the route that runs the most code."""
    body = level_body(data, studio["level"], fuzz, studio["tmp"])
    route = data.draw(st.sampled_from(("/api/level/derive", "/api/level/save")), label="route")
    fuzz.run(f"POST {route} mutated level",
             lambda: send(studio, "POST", route, {}, {"Host": "localhost",
                                                      "Content-Type": "application/json"},
                          body))
