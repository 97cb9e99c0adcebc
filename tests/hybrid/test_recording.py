"""Episode recordings: what is recorded matches what happened, and bad files are named and
located rather than half-read."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from nesyworld.hybrid import PlanningAgent, run_episode
from nesyworld.hybrid.recording.reader import RecordingError, read_recording
from nesyworld.hybrid.recording.writer import EpisodeRecorder, EpisodeRecording
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
from nesyworld.world.simulation.trajectory import Recorder, Trajectory, replay


def record(path: Path, novelties: list[str]) -> tuple[PlanningAgent, object]:
    env = NesyGridEnv("pogostick")
    inner = NoveltyInjector(env, novelties) if novelties else env
    recorder = EpisodeRecorder(inner, path, novelties=novelties)
    agent = PlanningAgent(recorder, KnowledgeBase.from_world("pogostick"))
    recorder.agent = agent
    result = run_episode(recorder, agent, seed=3)
    run_episode(recorder, agent, seed=4)  # a second episode must not overwrite the first
    return agent, result


@cache
def axe_recording(folder: Path) -> tuple[EpisodeRecording, object]:
    path = folder / "axe.json"
    _, result = record(path, ["axe"])
    return read_recording(path), result


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("recordings")


def test_frames_follow_the_episode(folder: Path) -> None:
    rec, result = axe_recording(folder)
    assert len(rec.frames) == result.steps + 1  # type: ignore[attr-defined]
    assert [f["step"] for f in rec.frames] == list(range(len(rec.frames)))
    names = [t["name"] for t in rec.types]
    assert "axe" in names and "oak_log" in names
    h, w = len(rec.frames[0]["grid"]), len(rec.frames[0]["grid"][0])
    assert (h, w) == (16, 16)
    for frame in rec.frames:  # the agent stands where the grid says an agent is
        r, c = frame["pos"]
        assert names[frame["grid"][r][c]] == "agent"
    assert rec.seed == 3 and rec.novelties == ["axe"] and rec.agent == "planning"


def test_operators_and_plans_line_up(folder: Path) -> None:
    rec, _ = axe_recording(folder)
    plans = [e for e in rec.events if e["kind"] == "plan"]
    assert plans and plans[0]["frame"] == 0
    first_plan = plans[0]["data"]["plan"]
    acting = [f for f in rec.frames[1:] if f["operator"] is not None]
    assert acting, "every frame after the reset was made by some operator"
    f1 = rec.frames[1]
    assert f1["operator"] == first_plan[f1["plan_index"]]
    failure = next(e for e in rec.events if e["kind"] == "failure")
    failed = rec.frames[failure["frame"]]
    assert failed["operator"].startswith("break_oak_log") and not failed["ok"]
    assert "axe" in failed["reason"]
    assert rec.domains[0]["frame"] == 0 and "(:action break_oak_log" in rec.domains[0]["domain"]
    assert "(:init" in rec.problem


def test_only_the_first_episode_is_kept(folder: Path) -> None:
    _, result = axe_recording(folder)
    data = json.loads((folder / "axe.json").read_text())
    assert data["seed"] == 3 and data["result"]["steps"] == result.steps  # type: ignore


def test_a_recording_without_novelty_replays(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    record(path, [])
    rec = read_recording(path)
    assert rec.result["success"] and rec.trajectory is not None
    world = replay(Trajectory.load(path))  # every state digest checked
    assert world.goal_reached()


def test_a_novelty_recording_replays(folder: Path) -> None:
    rec, result = axe_recording(folder)
    assert rec.trajectory is not None
    [entry] = rec.trajectory["injections"]
    assert (entry["step"], entry["reset"], entry["novelty"]["novelty"]) == (0, True, "axe")
    traj = Trajectory.load(folder / "axe.json")
    assert replay(traj).state.step == result.steps  # type: ignore[attr-defined]


def test_a_plain_trajectory_opens_as_frames(tmp_path: Path) -> None:
    world = World("pogostick")
    rec = Recorder(world, seed=1)
    for name in ("approach_oak_log", "break", "nop"):
        rec.step(name)
    path = tmp_path / "t.json"
    rec.trajectory.save(path)
    opened = read_recording(path)
    assert len(opened.frames) == 4 and opened.events == []
    assert [f["action"] for f in opened.frames[1:]] == ["approach_oak_log", "break", "nop"]
    assert opened.frames[-1]["inventory"].get("oak_log") == 1


@pytest.mark.parametrize(("text", "where", "words"), [
    ('{"format": "nesyworld.episode/1", "spec": "pog', "t.json:1:43", "truncated"),
    ('{"format": "nesyworld.episode/1", "frames": [', "t.json:1:46", "truncated"),
    ("", "t.json", "empty"),
    ('{"format": "nesyworld.episode/1",, }', "t.json:1:34", "broken JSON"),
    ('{"spec": "x"}', "t.json", "not a nesyworld recording"),
    ('{"format": "other/9"}', "t.json:format", "unknown format"),
])
def test_bad_files_are_located(tmp_path: Path, text: str, where: str, words: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(RecordingError) as info:
        read_recording(path)
    assert info.value.where.endswith(where) and words in info.value.message


def test_bad_fields_name_their_path(folder: Path) -> None:
    axe_recording(folder)
    data = json.loads((folder / "axe.json").read_text())
    data["frames"][2]["grid"][5][7] = 999
    with pytest.raises(RecordingError) as info:
        read_recording(json.dumps(data), name="x.json")
    assert info.value.where == "x.json:frames[2].grid[5][7]"
    assert "999" in info.value.message and "0 to" in info.value.expected
    del data["frames"][2]["grid"][5][7]
    with pytest.raises(RecordingError, match=r"frames\[2\]\.grid\[5\]"):
        read_recording(json.dumps(data), name="x.json")
    data = json.loads((folder / "axe.json").read_text())
    data["events"][0]["frame"] = 10_000
    with pytest.raises(RecordingError, match=r"events\[0\]\.frame"):
        read_recording(json.dumps(data), name="x.json")


def test_a_recording_names_the_agents_knowledge_regime(folder: Path, tmp_path: Path) -> None:
    from nesyworld.hybrid import HybridAgent

    env = NesyGridEnv("pogostick", refusals="silent")
    recorder = EpisodeRecorder(env, tmp_path / "hybrid.json")
    agent = HybridAgent(recorder, KnowledgeBase.from_world("pogostick"))
    recorder.agent = agent
    run_episode(recorder, agent, seed=3)
    rec = read_recording(tmp_path / "hybrid.json")
    assert (rec.knowledge, rec.refusals) == ("closed", "silent")
    axe, _ = axe_recording(folder)  # the planning agent has no regime: it never adapts
    assert (axe.knowledge, axe.refusals) == ("", "explained")
    data = json.loads((tmp_path / "hybrid.json").read_text())
    data["knowledge"] = "omniscient"
    with pytest.raises(RecordingError) as info:
        read_recording(json.dumps(data), name="x.json")
    assert info.value.where == "x.json:knowledge" and "'closed'" in info.value.expected
