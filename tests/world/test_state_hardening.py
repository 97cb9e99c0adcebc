"""Saved states and trajectories (issue 22): every bad file is one SpecError line naming the
file, the field path and the expected form, raised before the world changes. And what a path
names: a FIFO, a folder or (where a folder must hold its own files) a link is refused before
it is read, by the one helper every reader opens through (world/input_files.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from nesyworld.world import World, input_files
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.trajectory import Recorder, Trajectory, replay
from nesyworld.world.spec.yaml_bounded import read_text


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict:
    world = World("pogostick", seed=3)
    world.step("approach_oak_log")
    path = tmp_path_factory.mktemp("state") / "s.json"
    world.save(path)
    return json.loads(path.read_text())


def refused(tmp_path: Path, data: object) -> SpecError:
    path = tmp_path / "s.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(SpecError) as info:
        World.load(path)
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text and "; expected " in text
    return info.value


def edited(saved: dict, key: str, value: object) -> dict:
    data = json.loads(json.dumps(saved))
    target = data["state"] if key in data["state"] or key in ("damage", "fired") else data
    if value is KeyError:
        del target[key]
    else:
        target[key] = value
    return data


def test_a_valid_state_still_loads_and_steps(tmp_path: Path, saved: dict) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(saved))
    world = World.load(path)
    world.step("nop")
    assert world.state.step == saved["state"]["step"] + 1


@pytest.mark.parametrize(("key", "value", "where"), [
    ("grid", KeyError, "state.grid"),
    ("facing", [300], "state.facing"),
    ("step", -1, "state.step"),
    ("gave_up", "yes", "state.gave_up"),
    ("key", 2**40, "state.key"),
    ("selected", [10**6], "state.selected"),
    ("props", [[[0, 0], {"no_such_property": True}]], "state.props[0][1].no_such_property"),
    ("schedule", [[1, [0, 0], 1, 0, "sometimes"]], "state.schedule[0][4]"),
    ("damage", [[[999, 0], 1]], "state.damage[0][0][0]"),
    ("fired", [0], "state.fired"),
    ("rng", {"bit_generator": "MT19937"}, "rng"),
    ("resets", -3, "resets"),
    ("format", "nesyworld.state/9", "format"),
    ("novelties", "axe", "novelties"),
])
def test_bad_fields_are_named(tmp_path: Path, saved: dict, key: str, value: object,
                              where: str) -> None:
    err = refused(tmp_path, edited(saved, key, value))
    assert err.key_path.startswith(where), str(err)


def test_positions_must_be_on_the_map_and_hold_their_agent(tmp_path: Path, saved: dict) -> None:
    pos = json.loads(json.dumps(saved["state"]["pos"]))
    pos[0][1] = 999
    assert refused(tmp_path, edited(saved, "pos", pos)).key_path == "state.pos[0][1]"
    r, c = saved["state"]["pos"][0]
    pos[0] = [r, c + 1 if c + 1 < len(saved["state"]["grid"][0]) else 1]
    assert "agent" in refused(tmp_path, edited(saved, "pos", pos)).message


def test_counts_and_ids_stay_in_their_dtypes(tmp_path: Path, saved: dict) -> None:
    inventory = json.loads(json.dumps(saved["state"]["inventory"]))
    inventory[0][1] = 2**31
    assert refused(tmp_path, edited(saved, "inventory", inventory)).key_path == (
        "state.inventory[0][1]")
    grid = json.loads(json.dumps(saved["state"]["grid"]))
    grid[2][3] = 40_000
    assert refused(tmp_path, edited(saved, "grid", grid)).key_path == "state.grid[2][3]"
    grid[2][3] = True  # a boolean is not a type id
    assert refused(tmp_path, edited(saved, "grid", grid)).key_path == "state.grid[2][3]"


@pytest.mark.parametrize(("content", "words"), [
    (b"", "empty"),
    (b"\xff\xfe{}", "UTF-8"),
    (b'{"format": "nesyworld.state/1", "state": ', "truncated"),
    (b"[" * 100_000, "nested deeper"),
    (b'{"format": NaN}', "not a JSON number"),
    (b"1" * 5000, "unreadable"),
])
def test_unreadable_files_are_one_line(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(content)
    with pytest.raises(SpecError, match=words) as info:
        World.load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_failed_load_leaves_the_world_unchanged(tmp_path: Path, saved: dict) -> None:
    world = World("pogostick", seed=5)
    before = world.state.copy()
    path = tmp_path / "s.json"
    path.write_text(json.dumps(edited(saved, "facing", [9])))
    with pytest.raises(SpecError):
        world.load_state(path)
    assert world.state.equals(before)


def test_errors_never_show_more_than_a_cut_value(tmp_path: Path, saved: dict) -> None:
    err = refused(tmp_path, edited(saved, "spec", "x" * 10_000 + "\nsecret"))
    assert "secret" not in str(err) and len(str(err)) < 400


# ---------------------------------------------------------------------------- trajectories


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    rec = Recorder(World("pogostick"), seed=2)
    for name in ("approach_oak_log", "break"):
        rec.step(name)
    path = tmp_path_factory.mktemp("traj") / "t.json"
    rec.trajectory.save(path)
    return json.loads(path.read_text())


@pytest.mark.parametrize(("edit", "where"), [
    (lambda d: d.pop("seed"), "seed"),
    (lambda d: d.update(seed=-1), "seed"),
    (lambda d: d.update(actions=[1, 2]), "actions"),
    (lambda d: d["outcomes"].pop(), "outcomes"),
    (lambda d: d["digests"].__setitem__(0, "zz"), "digests[0]"),
    (lambda d: d.update(extra=1), "extra"),
])
def test_bad_trajectories_are_located(tmp_path: Path, recorded: dict, edit, where) -> None:
    data = json.loads(json.dumps(recorded))
    edit(data)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SpecError) as info:
        Trajectory.load(path)
    assert info.value.key_path.startswith(where) and str(path) in str(info.value)


def test_non_json_and_unknown_actions_are_located(tmp_path: Path, recorded: dict) -> None:
    path = tmp_path / "t.json"
    path.write_text("not json at all")
    with pytest.raises(SpecError, match="broken JSON"):
        Trajectory.load(path)
    data = json.loads(json.dumps(recorded))
    data["actions"][1] = "fly_to_the_moon"
    path.write_text(json.dumps(data))
    with pytest.raises(SpecError) as info:
        replay(Trajectory.load(path))
    assert info.value.key_path == "actions[1]" and str(path) in str(info.value)


def test_a_valid_trajectory_still_replays(tmp_path: Path, recorded: dict) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(recorded))
    assert replay(Trajectory.load(path)).state.step == 2


# ---------------------------------------------------------------------------- what a path names


@contextlib.contextmanager
def answers_within(seconds: float) -> Iterator[None]:
    """Fail, rather than hang the suite, when the body blocks (a FIFO opened for reading
    waits for a writer forever)."""
    def stop(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_unopened_by_every_world_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    loads = {"World.load": lambda: World.load(fifo),
             "Trajectory.load": lambda: Trajectory.load(fifo),
             "World(spec)": lambda: World(str(fifo)), "read_text": lambda: read_text(fifo)}
    for name, load in loads.items():
        with answers_within(5), pytest.raises(SpecError) as info:
            load()
        assert "a FIFO, not a regular file" in str(info.value), name
        assert str(fifo) in str(info.value) or "'" + str(fifo) in str(info.value), name
        assert "\n" not in str(info.value), name


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_file_swapped_for_a_fifo_after_the_check_is_refused_on_its_descriptor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stat before the open can be raced; the open does not block and the descriptor
    is checked again."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    regular = os.stat(__file__)
    real_stat = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        return regular if str(path) == str(fifo) else real_stat(path, *args, **kwargs)

    monkeypatch.setattr(input_files.os, "stat", stat)
    with answers_within(5), pytest.raises(input_files.NotRegularFile, match="a FIFO"):
        input_files.read_regular(fifo, 100)


def test_links_are_refused_where_a_folder_must_hold_its_own_files(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text('{"x": 1}')
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert input_files.read_regular(link, 100) == b'{"x": 1}'  # a link is followed by default
    with pytest.raises(input_files.NotRegularFile, match="a symbolic link"):
        input_files.read_regular(link, 100, follow_links=False)
    with pytest.raises(input_files.NotRegularFile, match="a folder"):
        input_files.read_regular(tmp_path, 100)


@pytest.mark.parametrize("number", ["1e999", "-1e400", "1E+999"])
def test_a_number_too_large_for_a_float_is_refused_where_it_stands(tmp_path: Path,
                                                                   recorded: dict,
                                                                   number: str) -> None:
    """Valid JSON, but it overflows to infinity; no writer of ours produces it and no field
    takes it (a replayed recording's seed or reward once passed as inf)."""
    path = tmp_path / "t.json"
    text = json.dumps(recorded, indent=1).replace('"seed": 2', f'"seed": {number}')
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        Trajectory.load(path)
    line = text.splitlines().index(f' "seed": {number},') + 1
    assert str(info.value).startswith(f"{path}:{line}:10: {number} is a number too large")
