"""The live view: a run streamed to the studio while it goes (`nesyworld run ... --studio`).

A scripted run (a real world stepped through a `LiveRun`, an agent that emits what a hybrid
agent emits, paced and held by the test) checks the stream's order, timing and resumption
without racing a learner; one test runs a real tiny recovery through the CLI; one follows a
run in Chromium.
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.cli.recovery_progress import RecoveryProgress
from nesyworld.experiments.studio import RunningStudio, create_app, start
from nesyworld.experiments.studio.live import LiveHub, plain
from nesyworld.experiments.studio.live_run import LiveRun
from nesyworld.hybrid.agents.planning_agent import Event
from nesyworld.world.envs import NesyGridEnv

FAILED_BLOCK = """(:action break_oak_log
  :parameters ()
  :precondition (and (facing oak_log))
  :effect (and (increase (inventory oak_log) 1)))"""
DOMAIN = f"(define (domain pogostick)\n{FAILED_BLOCK}\n(:action craft_planks\n :parameters ())\n)"
LEARNED = """(:action learned_break_oak_log_1
  :parameters ()
  :precondition (and (facing oak_log))
  :effect (and (increase (inventory oak_log) 1) (learned)))"""
PLAN = ["approach_oak_log(air)", "collect_oak_log", "break_oak_log", "craft_planks"]


class ScriptedKB:
    def pddl(self) -> tuple[str, str]:
        return DOMAIN, "(define (problem p))"


@dataclass
class ScriptedAgent:
    """What `LiveRun.attach` reads of a hybrid agent."""

    events: list[Event] = field(default_factory=list)
    on_event: Any = None
    on_progress: Any = None
    learning: bool = True
    current: tuple[str, int] | None = None
    kb: ScriptedKB = field(default_factory=ScriptedKB)

    def emit(self, step: int, kind: str, text: str, **data: Any) -> None:
        event = Event(step, kind, text, data)
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)


@dataclass
class Script:
    """Drives the run in a thread: `reached_learning` is set once the learned operator is
    out, then it waits for `release` before ending the episode and the run; `ending` is set
    just before it publishes the end."""

    hub: LiveHub
    pause: float = 0.05
    chatter: int = 0
    """Extra event lines before the failure (enough of them overflow the page's list)."""
    release: threading.Event = field(default_factory=threading.Event)
    reached_learning: threading.Event = field(default_factory=threading.Event)
    ending: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def start(self, hold: bool = False) -> Script:
        if not hold:
            self.release.set()
        self.thread = threading.Thread(target=self.run, name="live-script", daemon=True)
        self.thread.start()
        return self

    def run(self) -> None:
        env = NesyGridEnv("pogostick")
        live = LiveRun(self.hub, env, {"spec": "pogostick", "agent": "rapidlearn+",
                                       "novelties": ["axe"], "seed": 0, "budget": 1500,
                                       "protocol": "light"})
        agent = ScriptedAgent()
        live.attach(agent)
        names = env.unwrapped.action_names
        env = live.env
        env.reset(seed=0)
        agent.emit(0, "plan", "plan of 4 operators in 0.00 s", plan=PLAN)
        for n in range(self.chatter):
            agent.emit(0, "novelty", f"new entity type 'thing_{n}' observed", type=f"thing_{n}")
        for k in range(1, 4):
            agent.current = (PLAN[k - 1], k - 1)
            env.step(names.index("rotate_left"))
            if k < 3:  # the third operator, break_oak_log, fails
                agent.emit(k, "done", PLAN[k - 1], operator=PLAN[k - 1], steps=1)
            time.sleep(self.pause)
        agent.emit(3, "failure", "world step 3: break_oak_log was refused: needs axe",
                   failure={"operator": "break_oak_log", "kind": "precondition"})
        agent.emit(3, "recovery", "learning to recover from: break_oak_log",
                   learning="break_oak_log", budget=1500)
        for epoch, steps in enumerate((500, 1000, 1500), start=1):
            time.sleep(self.pause)
            agent.on_progress(steps)
            agent.emit(3, "learning", f"epoch {epoch}: {steps} steps", epoch=epoch,
                       steps=steps, success_rate=epoch / 3, mean_reward=float(epoch),
                       train_success_rate=float("nan"), train_mean_reward=0.5 * epoch,
                       losses={"loss": 1.0 / epoch, "icm_loss": 0.5 / epoch})
        agent.emit(3, "learned", "learned_break_oak_log_1 after 1,900 env steps",
                   pddl=LEARNED, operator="learned_break_oak_log_1")
        self.reached_learning.set()
        self.release.wait(30)
        for _ in range(40):  # faster than the frame throttle
            env.step(names.index("rotate_right"))
        env.step(names.index("give_up"))  # the episode ends
        self.ending.set()
        live.summary = {"verdict": "adapted", "learned_operators": ["learned_break_oak_log_1"]}
        live.finish()

    def join(self) -> None:
        assert self.thread is not None
        self.thread.join(30)


# --- reading a stream ---------------------------------------------------------------------
def read_stream(port: int, path: str = "/api/live",
                headers: dict[str, str] | None = None,
                on_message: Callable[[dict[str, Any]], None] | None = None,
                timeout: float = 20) -> tuple[int, list[dict[str, Any]], list[str]]:
    """(status, messages, comment lines) of a stream read to its end, as EventSource reads
    it; each message's `sse_id` is its `id:` line."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    messages: list[dict[str, Any]] = []
    comments: list[str] = []
    if response.status != 200:
        response.read()
        return response.status, messages, comments
    block: dict[str, str] = {}
    while line := response.readline():
        text = line.decode("utf-8").rstrip("\n")
        if text.startswith(":"):
            comments.append(text)
        elif text:
            name, _, value = text.partition(": ")
            block[name] = value
        elif "data" in block:
            message = json.loads(block["data"])
            message["sse_id"] = int(block["id"])
            messages.append(message)
            if on_message is not None:
                on_message(message)
            block = {}
        else:
            block = {}
    conn.close()
    return response.status, messages, comments


def of_kind(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == "agent" and m["data"]["kind"] == kind]


@pytest.fixture
def live_studio(tmp_path: Path) -> Iterator[tuple[LiveHub, RunningStudio]]:
    hub = LiveHub(heartbeat=0.5)
    with start(create_app([], tmp_path / "levels", live=hub)) as studio:
        yield hub, studio
        hub.close()


# --- the stream ---------------------------------------------------------------------------
def test_events_arrive_while_the_run_goes(live_studio: tuple[LiveHub, RunningStudio]) -> None:
    hub, studio = live_studio
    script = Script(hub).start(hold=True)
    received: list[dict[str, Any]] = []
    result: dict[str, Any] = {}

    def reader() -> None:
        result["stream"] = read_stream(studio.server.server_port, on_message=received.append)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    assert script.reached_learning.wait(10)
    deadline = time.monotonic() + 5
    while not of_kind(received, "learned") and time.monotonic() < deadline:
        time.sleep(0.02)
    # the run is held mid-episode: what it did so far has reached the page already
    assert script.thread is not None and script.thread.is_alive() and not script.ending.is_set()
    kinds = [m["data"]["kind"] for m in received if m["type"] == "agent"]
    assert kinds == ["plan", "done", "done", "failure", "recovery", "learning",
                     "learning", "learning", "learned"]
    assert not any(m["type"] == "end" for m in received)
    script.release.set()
    script.join()
    thread.join(10)
    status, messages, _ = result["stream"]
    assert status == 200 and messages == received
    ids = [m["id"] for m in messages]
    assert ids == sorted(set(ids)) and all(m["sse_id"] == m["id"] for m in messages)
    end = messages[-1]
    assert end["type"] == "end" and end["data"]["state"] == "finished"
    assert end["data"]["summary"]["learned_operators"] == ["learned_break_oak_log_1"]
    epochs = of_kind(messages, "learning")
    assert [e["data"]["data"]["steps"] for e in epochs] == [500, 1000, 1500]
    assert epochs[0]["data"]["data"]["train_success_rate"] is None  # NaN is not JSON
    domains = [m for m in messages if m["type"] == "domain"]
    assert len(domains) == 2  # before, and after the learned operator was spliced in
    frames = [m["data"] for m in messages if m["type"] == "frame"]
    # 44 world steps, 41 of them in a burst: the burst is throttled to a frame or two
    assert 2 <= len(frames) <= 12 and frames[-1]["step"] == 44
    assert len(frames[-1]["grid"]) == 16 and all("rgb" in t for t in frames[-1]["types"])
    ends = [m["data"] for m in messages if m["type"] == "episode_end"]
    assert ends == [{"episode": 1, "phase": "adaptation", "number": 1, "success": False,
                     "steps": 44, "reward": ends[0]["reward"]}]


def test_a_page_resumes_after_the_last_message_it_had(tmp_path: Path) -> None:
    hub = LiveHub()
    script = Script(hub, pause=0)
    script.release.set()
    script.run()
    client = create_app([], tmp_path, live=hub).test_client()
    whole = client.get("/api/live")
    assert whole.status_code == 200 and whole.mimetype == "text/event-stream"
    blocks = [b for b in whole.get_data(as_text=True).split("\n\n") if b.startswith("id: ")]
    ids = [int(b.split("\n")[0][4:]) for b in blocks]
    k = ids[len(ids) // 2]
    for resumed in (client.get("/api/live", headers={"Last-Event-ID": str(k)}),
                    client.get(f"/api/live?after={k}")):
        again = [int(b.split("\n")[0][4:]) for b in
                 resumed.get_data(as_text=True).split("\n\n") if b.startswith("id: ")]
        assert again == [i for i in ids if i > k]
    # a page that has it all is told to stop reconnecting
    assert client.get("/api/live", headers={"Last-Event-ID": str(ids[-1])}).status_code == 204
    bad = client.get("/api/live", headers={"Last-Event-ID": "12abc"})
    assert bad.status_code == 400 and bad.get_json()["where"] == "Last-Event-ID"
    status = client.get("/api/live/status").get_json()
    assert status["live"] and status["finished"] and status["run"]["state"] == "finished"
    foreign = client.get("/api/live", headers={"Host": "evil.example"})
    assert foreign.status_code == 403 and "loopback" in foreign.get_json()["error"]
    plain_studio = create_app([], tmp_path).test_client()
    assert plain_studio.get("/api/live/status").get_json() == {"live": False}
    missing = plain_studio.get("/api/live")
    assert missing.status_code == 404 and missing.get_json()["expected"]


def test_idle_streams_ping_and_the_open_streams_are_capped(tmp_path: Path) -> None:
    hub = LiveHub(heartbeat=0.1, max_clients=1)
    hub.publish("run", {"state": "running"}, latest=True)
    with start(create_app([], tmp_path, live=hub)) as studio:
        conn = http.client.HTTPConnection("127.0.0.1", studio.server.server_port, timeout=5)
        conn.request("GET", "/api/live")
        stream = conn.getresponse()
        lines = [stream.readline() for _ in range(8)]
        assert b": ping\n" in lines  # nothing happened for a while: a keep-alive comment
        assert hub.clients == 1
        other = http.client.HTTPConnection("127.0.0.1", studio.server.server_port, timeout=5)
        other.request("GET", "/api/live")
        refused = other.getresponse()
        assert refused.status == 503 and json.loads(refused.read())["where"] == "live"
        hub.close()  # the server is stopping: the stream ends at once
        while stream.readline():
            pass
        conn.close()
        deadline = time.monotonic() + 3
        while hub.clients and time.monotonic() < deadline:
            time.sleep(0.02)
        assert hub.clients == 0


def test_the_log_is_bounded_and_states_keep_only_the_newest() -> None:
    hub = LiveHub(max_log=100)
    for k in range(1000):
        hub.publish("agent", {"k": k})
        hub.publish("frame", {"k": k}, latest=True)
    after = hub.after(0)
    assert len(after) <= 101 and [m.type for m in after].count("frame") == 1
    assert after[-1].type == "frame" and hub.latest("frame") == {"k": 999}
    assert plain({"a": float("inf"), "b": (1, 2.5), "c": object()})["a"] is None
    import numpy as np

    assert plain({"n": np.float32(0.5), "v": np.arange(3)}) == {"n": 0.5, "v": [0, 1, 2]}


def test_the_progress_bar_moves_per_chunk() -> None:
    out = io.StringIO()
    shown: list[Any] = []
    display = RecoveryProgress(shown.append, Console(file=out, force_terminal=True, width=120))
    display(Event(3, "recovery", "learning to recover from: x", {"learning": "break",
                                                                 "budget": 2000}))
    display.advance(250)  # a chunk, before the first epoch's evaluation
    assert display.progress is not None
    task = display.progress.tasks[0]
    assert task.completed == 250 and task.description == "training" and len(shown) == 1
    display.close()
    display.advance(500)  # no bar: nothing happens


# --- a real recovery, through the command line -------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_real_recovery_streams_while_it_runs(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    chunks: list[int] = []
    progress = LiveRun.progress

    def counted(self: LiveRun, steps: int) -> None:
        chunks.append(steps)
        progress(self, steps)

    monkeypatch.setattr(LiveRun, "progress", counted)
    port = free_port()
    outcome: dict[str, int] = {}
    run = threading.Thread(target=lambda: outcome.update(status=main([
        "run", "pogostick", "--novelty", "axe", "--agent", "rapidlearn+", "--budget", "1000",
        "--adapt-episodes", "1", "--episodes", "1", "--json", "--studio", "--studio-port",
        str(port), "--studio-exit"])), daemon=True)
    run.start()
    received: list[tuple[dict[str, Any], bool]] = []
    deadline = time.monotonic() + 60
    while True:  # until the run's server is up
        try:
            status, messages, _ = read_stream(
                port, on_message=lambda m: received.append((m, run.is_alive())))
            break
        except ConnectionRefusedError:
            assert time.monotonic() < deadline and run.is_alive()
            time.sleep(0.05)
    run.join(60)
    assert outcome == {"status": 0} and status == 200
    summary = json.loads(capsys.readouterr().out)
    assert summary["learned_operators"]
    kinds = [(m["data"]["kind"], alive) for m, alive in received if m["type"] == "agent"]
    # the recovery's epochs and the learned operator reached the page while the run went on
    assert ("learning", True) in kinds and ("learned", True) in kinds
    end = messages[-1]
    assert end["type"] == "end" and end["data"]["summary"]["learned_operators"] == (
        summary["learned_operators"])
    assert chunks == [500, 1000]  # the progress hook fires per collected chunk
    assert [m["type"] for m in messages].count("domain") == 2


# --- in Chromium --------------------------------------------------------------------------
def test_the_live_tab_follows_a_run(open_page: Any,
                                    live_studio: tuple[LiveHub, RunningStudio]) -> None:
    hub, studio = live_studio
    page = open_page(studio.url)
    page.wait_for_selector("#tab-live.on")
    assert page.is_visible("#live-tab") and not page.is_visible("#replay-tab")
    script = Script(hub).start(hold=True)
    assert script.reached_learning.wait(10)
    page.wait_for_selector("#live-op-diff .add")
    page.wait_for_selector("#live-grid .cell.agent")
    assert page.get_attribute("#live-state", "data-state") == "running"
    assert page.locator("#live-grid .cell").count() == 16 * 16
    assert page.locator("#live-events li[data-kind=failure]").count() == 1
    assert page.locator("#live-curve polyline").count() >= 1
    assert page.get_attribute("#live-progress-text", "data-state") == "learned"
    assert "break_oak_log (failed) → learned_break_oak_log_1" in page.text_content(
        "#live-diff-title")
    assert page.locator("#live-plan li.failed").text_content() == "break_oak_log"
    script.release.set()
    page.wait_for_selector("#live-state[data-state=finished]")
    assert "adapted" in page.text_content("#live-info")
    page.wait_for_selector("#live-step[data-step='44']")  # drawn at the next animation frame
    script.join()


def test_the_live_event_list_follows_the_newest_event(
        open_page: Any, live_studio: tuple[LiveHub, RunningStudio]) -> None:
    """More events than the list can show: the newest is in view, also when they arrived
    while another tab was shown."""
    hub, studio = live_studio
    page = open_page(studio.url, 1024, 700)
    page.wait_for_selector("#tab-live.on")
    page.click("#tab-editor")
    script = Script(hub, chatter=60).start()
    page.wait_for_selector("#live-state[data-state=finished]", state="attached")
    script.join()
    page.click("#tab-live")
    page.wait_for_timeout(300)  # the last lines are drawn at the next animation frame
    seen = page.evaluate("""() => {
        const list = document.getElementById('live-events');
        const last = list.lastElementChild.getBoundingClientRect();
        const box = list.getBoundingClientRect();
        return {overflows: list.scrollHeight > list.clientHeight + 1,
                inView: last.bottom <= box.bottom + 1 && last.top >= box.top - 1,
                onScreen: last.bottom <= window.innerHeight + 1};
    }""")
    assert seen["overflows"], seen  # the test means something only if the list scrolls
    assert seen["inView"] and seen["onScreen"], seen
