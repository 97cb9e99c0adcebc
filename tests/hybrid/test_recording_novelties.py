"""Episode recordings of worlds novelties changed: the trajectory they carry records each
arrival (before the reset or mid-episode), `nesyworld replay` re-applies them and says so, and
tampering is caught at the step it changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import main
from nesyworld.hybrid import PlanningAgent, run_episode
from nesyworld.hybrid.recording.reader import RecordingError, read_recording
from nesyworld.hybrid.recording.writer import EpisodeRecorder
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
from nesyworld.world.novelty.transforms import apply_novelties
from nesyworld.world.simulation.trajectory import (
    Recorder,
    ReplayMismatch,
    Trajectory,
    replay,
)

LOGS = """novelty: logs
category: beneficial
level: events
inject: {step: 4}
changes:
  entity_types:
    acorn: {class: item, parents: [physobj]}
  events:
    - {at: 6, spawn: {type: oak_log, near: agent}}
"""


def recorded(path: Path, novelties: list[str], env: object = None) -> object:
    """The first episode of the planning agent on pogostick with `novelties`, recorded."""
    env = env or NesyGridEnv("pogostick")
    inner = NoveltyInjector(env, novelties) if novelties else env
    recorder = EpisodeRecorder(inner, path, novelties=novelties)
    agent = PlanningAgent(recorder, KnowledgeBase.from_world("pogostick"))
    recorder.agent = agent
    return run_episode(recorder, agent, seed=3)


@pytest.fixture
def mid_novelty(tmp_path: Path) -> Path:
    """A novelty arriving at step 4, in a file: a new item type (every inventory grows, so
    the state's digest changes when it arrives) and an event that spawns a log later."""
    path = tmp_path / "spawn.yaml"
    path.write_text(LOGS)
    return path


def test_a_mid_episode_novelty_from_a_file_replays_without_the_file(
        tmp_path: Path, mid_novelty: Path) -> None:
    path = tmp_path / "r.json"
    result = recorded(path, [str(mid_novelty), "axe"])
    mid_novelty.unlink()
    doc = json.loads(path.read_text())
    entries = doc["trajectory"]["injections"]
    # composed in the injector's order: the file's novelty first, though it arrives later
    assert [(e["novelty"]["novelty"], e["step"], e["reset"]) for e in entries] == [
        ("logs", 4, False), ("axe", 0, True)]
    world = replay(Trajectory.load(path))
    assert world.state.step == result.steps  # type: ignore[attr-defined]
    assert "acorn" in world.spec.entity_types and len(world.spec.events) == 1
    opened = read_recording(path)  # the studio still opens it
    assert opened.trajectory is not None and len(opened.frames) == result.steps + 1  # type: ignore[attr-defined]


def test_a_moved_injection_step_is_caught(tmp_path: Path, mid_novelty: Path) -> None:
    path = tmp_path / "r.json"
    recorded(path, [str(mid_novelty)])
    doc = json.loads(path.read_text())
    doc["trajectory"]["injections"][0]["step"] = 5
    path.write_text(json.dumps(doc))
    with pytest.raises(ReplayMismatch, match="after action 3") as info:
        replay(Trajectory.load(path))
    assert info.value.step == 4


def test_a_changed_action_is_caught_at_its_step(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    recorded(path, ["axe"])
    doc = json.loads(path.read_text())
    actions = doc["trajectory"]["actions"]
    i = next(k for k, a in enumerate(actions) if a.startswith(("approach", "move")))
    actions[i] = "nop"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReplayMismatch, match=f"after action {i} ") as info:
        replay(Trajectory.load(path))
    assert info.value.step == i + 1


def test_novelties_no_injector_reports_leave_no_trajectory(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    recorded(path, [], env=NesyGridEnv(apply_novelties("pogostick", ["axe"])))
    assert read_recording(path).trajectory is None
    with pytest.raises(ValueError, match="cannot be replayed"):
        Trajectory.load(path)


def test_a_plain_trajectory_with_a_novelty_opens_as_frames(tmp_path: Path) -> None:
    from nesyworld.world import World

    rec = Recorder(World("pogostick"), seed=1)
    rec.step("approach_oak_log")
    rec.inject("axe")
    rec.step("break")
    path = tmp_path / "t.json"
    rec.trajectory.save(path)
    opened = read_recording(path)
    assert opened.novelties == ["axe"] and len(opened.frames) == 3
    assert not opened.frames[2]["ok"] and "axe" in opened.frames[2]["reason"]


def test_cli_run_record_with_novelties_then_replay(
        tmp_path: Path, mid_novelty: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.json"
    assert main(["run", "pogostick", "--novelty", "axe", "--novelty", str(mid_novelty),
                 "--record", str(path), "--json"]) == 0
    capsys.readouterr()
    mid_novelty.unlink()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "every state matches" in out
    assert "'axe' from the reset" in out and "'logs' after step 4" in out
    doc = json.loads(path.read_text())
    doc["trajectory"]["injections"][1]["step"] = 3
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "after action 2" in err and err.count("\n") == 1


def test_a_run_recording_names_its_run_seed(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A run's episodes play maps of its run seed's own block (hybrid/seeding.py), large
    numbers the user never typed: the recording keeps the run seed beside its map seed, and
    a damaged one is refused like any other field."""
    path = tmp_path / "run.json"
    assert main(["run", "pogostick", "--seed", "3", "--record", str(path), "--json"]) == 0
    capsys.readouterr()
    opened = read_recording(path)
    assert opened.run_seed == 3 and opened.seed is not None and opened.seed != 3
    doc = json.loads(path.read_text())
    doc["run_seed"] = -1
    path.write_text(json.dumps(doc))
    with pytest.raises(RecordingError, match="run_seed"):
        read_recording(path)
