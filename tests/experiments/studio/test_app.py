"""The studio's JSON API, through Flask's test client: every failure is JSON with a status,
a location and what was expected, so the page never has nothing to show."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from nesyworld.experiments.studio import create_app
from nesyworld.experiments.studio.app import find_recordings


@pytest.fixture
def client(recordings: Path, tmp_path: Path) -> FlaskClient:
    (tmp_path / "cut.json").write_text('{"format": "nesyworld.episode/1", "frames": [[')
    app = create_app([recordings, tmp_path / "cut.json"], levels_dir=tmp_path / "levels")
    return app.test_client()


def test_lists_and_opens_recordings(client: FlaskClient) -> None:
    names = [r["name"] for r in client.get("/api/recordings").get_json()]
    assert names == ["hybrid_axe.json", "planning_axe.json", "cut.json"]
    rec = client.get("/api/recordings/hybrid_axe.json").get_json()
    kinds = [e["kind"] for e in rec["events"]]
    assert "learned" in kinds and kinds.index("failure") < kinds.index("learned")
    assert len(rec["domains"]) == 2  # the first domain, and the one with the learned operator
    assert "(:action learned_break_oak_log" in rec["domains"][1]["domain"]


def test_a_truncated_recording_is_an_error_with_a_place(client: FlaskClient) -> None:
    response = client.get("/api/recordings/cut.json")
    body = response.get_json()
    assert response.status_code == 422
    assert body["where"].endswith("cut.json:1:47") and "truncated" in body["error"]
    assert body["expected"] == "a complete JSON document"


def test_unknown_names_are_404_json(client: FlaskClient) -> None:
    response = client.get("/api/recordings/missing.json")
    body = response.get_json()
    assert response.status_code == 404 and "no recording named" in body["error"]
    assert "planning_axe.json" in body["expected"]
    outside = client.get("/api/recordings/..%2F..%2Fetc%2Fpasswd")  # only listed files open
    assert outside.status_code == 404 and outside.get_json()["error"]
    assert client.get("/nowhere").get_json()["error"]


def test_upload(client: FlaskClient, recordings: Path) -> None:
    data = (recordings / "planning_axe.json").read_bytes()
    ok = client.post("/api/recordings/upload", data=data, headers={"X-File-Name": "mine.json"})
    assert ok.status_code == 200 and ok.get_json()["spec"] == "pogostick"
    bad = client.post("/api/recordings/upload", data=b"\xff\xfe", headers={"X-File-Name": "b"})
    assert bad.status_code == 422 and bad.get_json()["where"] == "b"


def test_level_round_trip(client: FlaskClient, tmp_path: Path) -> None:
    data = client.get("/api/level?spec=pogostick&seed=2").get_json()
    level = data["level"]
    assert data["agent_glyphs"]["main_1"] == "A" and level["cells"][0][0] == "bedrock"
    level["name"] = "two_tables"
    r, c = next((r, c) for r, row in enumerate(level["cells"]) for c, t in enumerate(row)
                if t == "air" and [r, c] not in level["agents"].values())
    level["cells"][r][c] = "crafting_table"
    saved = client.post("/api/level/save", json=level).get_json()
    path = Path(saved["path"])
    assert path == (tmp_path / "levels" / "two_tables.yaml").resolve() and path.is_file()
    assert "(= (world crafting_table) 2)" in saved["problem"]


def test_level_errors(client: FlaskClient) -> None:
    assert client.get("/api/level?spec=nope").status_code == 404
    assert client.get("/api/level?seed=x").status_code == 400
    response = client.post("/api/level/derive", data="not json")
    assert response.status_code == 422 and "not JSON" in response.get_json()["error"]
    level = client.get("/api/level").get_json()["level"]
    level["agents"]["main_1"] = [0, 0]
    body = client.post("/api/level/derive", json=level).get_json()
    assert body["where"].startswith("level.yaml:") and "blocked" in body["error"]


def test_folders_list_their_json_files(tmp_path: Path) -> None:
    for name in ("b.json", "a.json", "notes.txt"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.json").write_text("{}")
    found = find_recordings([tmp_path, tmp_path / "sub" / "a.json"])
    assert list(found) == ["a.json", "b.json", "a (2).json"]


def test_the_command_serves_on_loopback(recordings: Path, tmp_path: Path) -> None:
    """`nesyworld studio` as a user starts it: it prints its URL and answers there."""
    import json
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "nesyworld.experiments.cli.main", "studio",
                             str(recordings), "--port", "0", "--no-browser", "--levels",
                             str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "api/recordings", timeout=10) as response:
            names = [r["name"] for r in json.load(response)]
        assert names == ["hybrid_axe.json", "planning_axe.json"]
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b'id="plan"' in response.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_level_endpoint_opens_no_file_and_echoes_none(client: FlaskClient,
                                                         tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("name: TOP-SECRET-LINE\n")
    for spec in (str(secret), "/etc/passwd", "../../etc/passwd"):
        response = client.get("/api/level", query_string={"spec": spec})
        body = response.get_json()
        assert response.status_code == 404 and body["where"] == "spec"
        assert "TOP-SECRET" not in response.get_data(as_text=True)
        assert "root:" not in response.get_data(as_text=True)


def test_only_requests_to_the_loopback_are_served(client: FlaskClient) -> None:
    for host in ("localhost", "127.0.0.1:8765", "[::1]:8765"):
        assert client.get("/api/specs", headers={"Host": host}).status_code == 200
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example"):
        response = client.get("/api/specs", headers={"Host": host})
        assert response.status_code == 403 and response.get_json()["where"] == "Host"


def test_a_deeply_nested_body_is_a_json_4xx(client: FlaskClient) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    response = client.post("/api/level/derive", data=deep,
                           content_type="application/json")
    assert 400 <= response.status_code < 500 and response.is_json


@pytest.fixture
def bare(tmp_path: Path) -> FlaskClient:
    """A studio with no recordings (no session recordings to make)."""
    return create_app([], levels_dir=tmp_path / "levels").test_client()


def test_bodies_over_the_cap_are_413_json(tmp_path: Path) -> None:
    from nesyworld.experiments.studio.app import MAX_LEVEL_BODY

    app = create_app([], levels_dir=tmp_path)
    app.config["MAX_CONTENT_LENGTH"] = 1000
    client = app.test_client()
    response = client.post("/api/recordings/upload", data=b"{" * 2000)
    assert response.status_code == 413 and response.is_json
    big = b'{"base": "pogostick", "name": "x", "cells": [["' + b"a" * MAX_LEVEL_BODY + b'"]]}'
    response = client.post("/api/level/derive", data=big, content_type="application/json")
    assert response.status_code == 413 and response.is_json and response.get_json()["error"]


def test_wrong_methods_and_paths_are_json(bare: FlaskClient) -> None:
    for method, path in (("get", "/api/level/save"), ("delete", "/api/specs"),
                         ("put", "/api/recordings/upload"), ("get", "/static/../app.py"),
                         ("get", "/static/%00"), ("post", "/")):
        response = getattr(bare, method)(path)
        assert 400 <= response.status_code < 500 and response.is_json, (method, path)
        assert "<html" not in response.get_data(as_text=True).lower()


def test_a_level_opens_only_shipped_specs(bare: FlaskClient, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("name: TOP-SECRET-LINE\n")
    level = bare.get("/api/level").get_json()["level"]
    for base in (str(secret), "/etc/passwd", "../../domains/polycraft/specs/pogostick.yaml"):
        response = bare.post("/api/level/derive", json={**level, "base": base})
        body = response.get_data(as_text=True)
        assert response.status_code == 422 and response.get_json()["where"] == "base"
        assert "TOP-SECRET" not in body and "root:" not in body
    assert not (tmp_path / "levels").exists()


@pytest.mark.parametrize("change", [
    {"cells": [["air"] * 129]}, {"cells": [["air"]] * 129}, {"base": 5}, {"name": ["x"]},
    {"agents": {"main_1": [True, 1]}}, {"agents": {"main_1": [10**30, 1]}},
    {"agents": {f"a{i}": [1, 1] for i in range(65)}},
])
def test_malformed_levels_are_422(bare: FlaskClient, change: dict) -> None:
    level = bare.get("/api/level").get_json()["level"]
    response = bare.post("/api/level/derive", json={**level, **change})
    assert response.status_code == 422 and response.is_json and response.get_json()["error"]


def test_a_bug_is_a_json_500_without_its_message(bare: FlaskClient,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import nesyworld.experiments.studio.app as studio_app

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("TOP-SECRET file text")

    monkeypatch.setattr(studio_app, "read_recording", broken)
    response = bare.post("/api/recordings/upload", data=b"{}")
    body = response.get_data(as_text=True)
    assert response.status_code == 500 and response.is_json
    assert "ZeroDivisionError" in response.get_json()["error"]
    assert "TOP-SECRET" not in body and "Traceback" not in body


def test_other_input_errors_are_422(bare: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A derivation or PDDL error from a level is bad input too: its first line, as JSON."""
    import nesyworld.experiments.studio.app as studio_app
    from nesyworld.symbolic.derivation.derive import DerivationError

    def refuse(level: object) -> None:
        raise DerivationError("cannot derive this level\nsecond line")

    monkeypatch.setattr(studio_app, "plan_level", refuse)  # the derive route's check
    level = bare.get("/api/level").get_json()["level"]
    response = bare.post("/api/level/derive", json=level)
    assert response.status_code == 422
    assert response.get_json()["error"] == "cannot derive this level"


def test_an_uploaded_file_name_is_cut_and_printable(bare: FlaskClient) -> None:
    response = bare.post("/api/recordings/upload", data=b"\xff",
                         headers={"X-File-Name": "a\tb" + "n" * 500})
    assert response.status_code == 422
    assert response.get_json()["where"] == "ab" + "n" * 118


def test_tiles_use_the_renderers_palette(client: FlaskClient) -> None:
    from nesyworld.world.observations.rgb_view import type_colors

    rec = client.get("/api/recordings/hybrid_axe.json").get_json()
    names = [t["name"] for t in rec["types"]]
    assert [tuple(t["rgb"]) for t in rec["types"]] == type_colors(
        names, [t["color"] for t in rec["types"]])
    palette = client.get("/api/level").get_json()["palette"]
    assert all(len(t["rgb"]) == 3 for t in palette)


def test_a_walled_in_agent_has_no_reachable_goal(client: FlaskClient) -> None:
    level = client.get("/api/level").get_json()["level"]
    body = client.post("/api/level/derive", json=level).get_json()
    assert body["reachable"] and body["status"] == "plan" and body["plan"]
    r, c = level["agents"]["main_1"]
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        level["cells"][r + dr][c + dc] = "bedrock"
    body = client.post("/api/level/derive", json=level).get_json()
    assert not body["reachable"] and body["why"].startswith("the goal is unreachable")


def test_play_errors_are_json_4xx(client: FlaskClient) -> None:
    game = client.post("/api/play/new", json={"spec": "pogostick", "seed": 1}).get_json()
    assert game["step"] == 0 and "rotate_left" in game["legal"] and game["keys"]["q"]
    gid = game["id"]
    after = client.post(f"/api/play/{gid}/act", json={"action": "rotate_left"}).get_json()
    assert after["step"] == 1 and after["events"][-1]["text"].startswith("world step 1:")
    for url, body, where in (
            (f"/api/play/{gid}/act", {"action": "fly"}, "action"),
            (f"/api/play/{gid}/novelty", {"name": "/etc/passwd"}, "name"),
            (f"/api/play/{gid}/save", {"name": "../x"}, "name"),
            ("/api/play/nope/act", {"action": "nop"}, "game"),
            ("/api/play/new", {"spec": "/etc/passwd"}, "spec"),
            ("/api/play/new", {"seed": -1}, "seed")):
        response = client.post(url, json=body)
        assert 400 <= response.status_code < 500 and response.get_json()["where"] == where
    assert client.post(f"/api/play/{gid}/act", data="[").status_code == 422


# --- what a page may make the studio do ----------------------------------------------------


@pytest.fixture(scope="module")
def trajectory() -> dict:
    """A plain trajectory as `nesyworld play --record` writes it (its spec: a shipped path)."""
    import json

    from nesyworld.world import Recorder, World

    rec = Recorder(World("pogostick"), seed=0)
    rec.step("rotate_left")
    return {"format": "nesyworld.trajectory/1", **json.loads(json.dumps(
        rec.trajectory.document()))}


def test_an_uploaded_trajectory_is_replayed_on_a_shipped_spec_only(bare: FlaskClient,
                                                                   tmp_path: Path,
                                                                   trajectory: dict) -> None:
    """Its spec named /etc/passwd: the 422 quoted the file's start and told whether a path
    existed. The studio now decides from the name alone and opens nothing it did not list."""
    import json

    secret = tmp_path / "secret.yaml"
    secret.write_text("name: TOP-SECRET-LINE\n")
    answers = []
    for spec in (str(secret), "/etc/passwd", str(tmp_path / "missing.yaml"), str(tmp_path),
                 "../../etc/passwd.yaml", "domains/../../etc/x.yaml"):
        response = bare.post("/api/recordings/upload", data=json.dumps({**trajectory,
                                                                         "spec": spec}),
                             headers={"Content-Type": "text/plain", "X-File-Name": "t.json"})
        body = response.get_json()
        assert response.status_code == 422 and body["where"] == "t.json:spec", body
        assert "TOP-SECRET" not in str(body) and "root:" not in str(body)
        answers.append((body["error"], body["expected"]))
    assert len(set(answers)) == 1  # the same answer whether or not the path exists
    for spec in ("pogostick", "/a/checkout/elsewhere/domains/polycraft/pogostick.yaml",
                 "polycraft/pogostick.yaml", trajectory["spec"]):
        response = bare.post("/api/recordings/upload", data=json.dumps({**trajectory,
                                                                         "spec": spec}))
        assert response.status_code == 200 and response.get_json()["spec"] == "pogostick"


def test_only_the_studios_own_page_may_change_anything(bare: FlaskClient,
                                                       tmp_path: Path) -> None:
    """A page elsewhere could POST a level (text/plain needs no preflight) and the studio
    wrote it; every state-changing route now checks Origin and Sec-Fetch-Site."""
    level = bare.get("/api/level").get_json()["level"]
    saved = tmp_path / "levels" / f"{level['name']}.yaml"
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Origin": "http://localhost:8000"}, {"Origin": "https://localhost"},
                    {"Origin": "http://127.0.0.1"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Sec-Fetch-Site": "same-site", "Origin": "http://localhost"}):
        for route in ("/api/level/save", "/api/level/derive", "/api/play/new",
                      "/api/recordings/upload"):
            response = bare.post(route, json=level, headers=headers)
            body = response.get_json()
            assert response.status_code == 403 and body["where"] == "Origin", (route, headers)
            assert "may not change the studio" in body["error"] and "\n" not in body["error"]
        assert not saved.exists()
    assert bare.get("/api/specs", headers={"Origin": "http://evil.example"}).status_code == 200
    for headers in ({}, {"Origin": "http://localhost"},
                    {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}):
        assert bare.post("/api/level/save", json=level, headers=headers).status_code == 200
    assert saved.exists()


@pytest.mark.parametrize(("origin", "site", "host", "allowed"), [
    (None, None, "127.0.0.1:8765", True),
    ("http://127.0.0.1:8765", "same-origin", "127.0.0.1:8765", True),
    ("http://LOCALHOST:80", None, "localhost", True),
    ("http://[::1]:8765", None, "[::1]:8765", True),
    (None, "none", "127.0.0.1:8765", True),
    ("http://127.0.0.1:8766", None, "127.0.0.1:8765", False),
    ("http://localhost:8765", None, "127.0.0.1:8765", False),
    ("http://127.0.0.1:8765.evil.example", None, "127.0.0.1:8765", False),
    ("http://evil.example:8765", None, "evil.example:8765", False),  # only loopback pages
    ("https://127.0.0.1:8765", None, "127.0.0.1:8765", False),
    ("http://127.0.0.1:x", None, "127.0.0.1:8765", False),
    ("null", None, "127.0.0.1:8765", False),
    (None, "cross-site", "127.0.0.1:8765", False),
    (None, "same-site", "127.0.0.1:8765", False),
])
def test_write_refusal(origin: str | None, site: str | None, host: str,
                       allowed: bool) -> None:
    from nesyworld.experiments.studio.guards import write_refusal

    assert (write_refusal(origin, site, host) == "") == allowed


def test_chunked_bodies_over_the_cap_are_413(tmp_path: Path, recordings: Path) -> None:
    """Werkzeug cut a chunked body at the cap and handed it over as if whole: a 422 saying
    the JSON was truncated. The studio reads bodies itself now (guards.posted_bytes)."""
    import http.client
    import json

    from nesyworld.experiments.studio.app import MAX_LEVEL_BODY
    from nesyworld.experiments.studio.server import start

    def post(port: int, path: str, body: bytes) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        pieces = [body[i:i + 4096] for i in range(0, len(body), 4096)]
        conn.request("POST", path, body=iter(pieces), encode_chunked=True,
                      headers={"Transfer-Encoding": "chunked",
                               "Content-Type": "application/json"})
        response = conn.getresponse()
        answer = json.loads(response.read())
        conn.close()
        return response.status, answer

    recording = (recordings / "planning_axe.json").read_bytes()
    app = create_app([], levels_dir=tmp_path)
    app.config["MAX_CONTENT_LENGTH"] = len(recording) + 10
    with start(app) as studio:
        port = studio.server.server_port
        assert post(port, "/api/recordings/upload", recording)[0] == 200
        status, answer = post(port, "/api/recordings/upload", recording + b" " * 100)
        assert status == 413 and answer["where"] == "request"
        assert answer["error"] == "the request body is larger than the studio takes"
        status, _ = post(port, "/api/level/derive", b"[" + b" " * MAX_LEVEL_BODY + b"]")
        assert status == 413
