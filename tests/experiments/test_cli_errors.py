"""The CLI's one error path (issue 22): bad input is one located line and status 2, a bug is
one line pointing to --debug and status 70, numbers are range-checked by argparse, and output
paths are checked before any work starts."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from nesyworld.experiments.cli.arguments import UsageError, output_dir, output_file
from nesyworld.experiments.cli.main import EXIT_SOFTWARE, MESSAGE_CHARS, main
from nesyworld.experiments.errors import USER_ERRORS, is_user_error

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def failing_handler(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """Make `nesyworld classes` raise `error` from inside its handler."""
    from nesyworld.experiments.cli import world_commands

    def boom(args: argparse.Namespace) -> int:
        raise error

    monkeypatch.setattr(world_commands, "cmd_classes", boom)


def test_a_user_error_is_one_located_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: pogostick\nmax_steps: -5\n")
    code, out, err = run(capsys, "check", str(bad))
    assert code == 2 and out == ""
    assert err.startswith(f"nesyworld: error: {bad}:2:") and err.count("\n") == 1
    assert "; expected " in err and "Traceback" not in err


def test_a_pddl_error_prints_its_first_line_only(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    domain = tmp_path / "d.pddl"
    domain.write_text("(define (domain d)\n  (:requirements :strips)\n  (:predicates (p)\n")
    code, _, err = run(capsys, "parse", str(domain))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"nesyworld: error: {domain}:")


def test_a_bug_is_one_line_that_points_to_debug(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    failing_handler(monkeypatch, ZeroDivisionError("division by zero"))
    code, _, err = run(capsys, "classes")
    assert code == EXIT_SOFTWARE == 70
    assert err == ("nesyworld: internal error: ZeroDivisionError: division by zero (run "
                   "again with --debug for the traceback)\n")


@pytest.mark.parametrize("argv", [["--debug", "classes"], ["classes", "--debug"]])
def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    failing_handler(monkeypatch, ZeroDivisionError("division by zero"))
    code, _, err = run(capsys, *argv)
    assert code == 70
    assert err.startswith("Traceback (most recent call last):") and "def boom" not in err
    assert "raise error" in err and err.endswith(
        "nesyworld: internal error: ZeroDivisionError: division by zero\n")


def test_an_internal_message_is_cut_to_one_short_line(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    failing_handler(monkeypatch, RuntimeError("x" * 5000 + "\nsecond line\n"))
    code, _, err = run(capsys, "classes")
    assert code == 70 and err.count("\n") == 1 and "second line" not in err
    assert len(err) < MESSAGE_CHARS + 120


@pytest.mark.parametrize(("error", "expected"), [
    (FileNotFoundError(2, "No such file or directory", "a\nb.yaml"),
     "nesyworld: error: a\\nb.yaml: No such file or directory\n"),
    (PermissionError(13, "Permission denied", "/root/x"),
     "nesyworld: error: /root/x: Permission denied\n"),
    (UsageError("--agents: nobody not in the config's agents; expected some of a, b"),
     "nesyworld: error: --agents: nobody not in the config's agents; expected some of a, b\n"),
])
def test_named_files_and_usage_errors_are_status_2(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   error: Exception, expected: str) -> None:
    failing_handler(monkeypatch, error)
    assert run(capsys, "classes")[1:] == ("", expected)
    failing_handler(monkeypatch, error)
    assert main(["classes"]) == 2


def test_an_oserror_about_no_file_is_internal(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    failing_handler(monkeypatch, ConnectionResetError(104, "Connection reset by peer"))
    code, _, err = run(capsys, "classes")
    assert code == 70 and err.startswith("nesyworld: internal error: ConnectionResetError")


def test_ctrl_c_is_130_and_a_closed_pipe_is_quiet(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    failing_handler(monkeypatch, KeyboardInterrupt())
    assert run(capsys, "classes") == (130, "", "nesyworld: interrupted\n")
    failing_handler(monkeypatch, BrokenPipeError(32, "Broken pipe"))
    assert run(capsys, "classes") == (0, "", "")


def test_help_and_argparse_errors_return_their_status(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    assert main(["--help"]) == 0 and "usage: nesyworld" in capsys.readouterr().out
    code, _, err = run(capsys, "no-such-command")
    assert code == 2 and err.splitlines()[-1].startswith("nesyworld: error: argument COMMAND")
    code, _, err = run(capsys, "check", "pogostick", "--nope=a\nb")
    assert code == 2 and err.splitlines() == [  # the command's error, the newline escaped
        "nesyworld: error: check: unrecognized arguments: --nope=a\\nb "
        "(see `nesyworld check --help`)"]


@pytest.mark.parametrize("argv", [
    ["show", "pogostick", "--seed", "-1"],
    ["play", "pogostick", "--seed", "1e3"],
    ["pddl", "pogostick", "--seed", "9223372036854775808"],
    ["plan", "pogostick", "--seed", "x"],
    ["plan", "pogostick", "--timeout", "0"],
    ["plan", "pogostick", "--timeout", "inf"],
    ["plan", "pogostick", "--timeout", "nan"],
    ["check-domain", "pogostick", "--samples", "0"],
    ["run", "pogostick", "--seed", "-1"],
    ["run", "pogostick", "--seed", "1048576"],
    ["run", "pogostick", "--episodes", "0"],
    ["run", "pogostick", "--adapt-episodes", "-3"],
    ["run", "pogostick", "--budget", "0"],
    ["experiment", "smoke", "--workers", "0"],
    ["experiment", "smoke", "--seeds", "-1"],
    ["studio", "--port", "65536"],
    ["lifelong", "orchard", "--steps", "0"],
    ["lifelong", "orchard", "--window", "-1"],
    ["multiagent", "coop_pogostick", "--rounds", "0"],
    ["multiagent", "coop_pogostick", "--episodes", "0"],
    ["generality", "--seed", "-1"],
    ["generality", "--budget", "2147483648"],
])
def test_every_number_is_range_checked_by_argparse(capsys: pytest.CaptureFixture[str],
                                                   argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    flag = next(a for a in argv if a.startswith("--"))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err  # one line, no usage before it
    assert err.startswith(f"nesyworld: error: {argv[0]}: argument {flag}: expected "), err
    assert err.rstrip().endswith(f"(see `nesyworld {argv[0]} --help`)"), err


@pytest.mark.parametrize(("argv", "suggested"), [
    (["run", "pogostick", "--episdoes", "3"], "--episodes"),
    (["run", "pogostick", "--agent", "rapidlearn++"], "rapidlearn+"),
    (["plann", "pogostick"], "plan"),
    (["run", "pogostik"], "pogostick"),
    (["run", "pogostick", "--novelty", "axx"], "axe"),
    (["experiment", "tabel2"], "table2"),
])
def test_a_mistyped_name_gets_one_line_with_the_closest_one(
        capsys: pytest.CaptureFixture[str], argv: list[str], suggested: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("nesyworld: error: ") and f"(did you mean '{suggested}'?)" in err


def test_nothing_close_suggests_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "run", "pogostick", "--zzzzzz")
    assert code == 2 and "did you mean" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("argv", [
    ["show", "pogostick", "--png", "{missing}/w.png"],
    ["play", "pogostick", "--record", "{missing}/t.json"],
    ["run", "pogostick", "--record", "{missing}/t.json"],
    ["run", "pogostick", "--agent", "rapidlearn+", "--save", "{file}/kb"],
    ["run", "pogostick", "--agent", "rapidlearn+", "--kb", "{missing}"],
    ["pddl", "pogostick", "--out", "{file}/pddl"],
    ["graph", "pogostick", "--out", "{missing}/g.png"],
    ["experiment", "smoke", "--out", "{file}/r.jsonl"],
    ["experiment", "smoke", "--out", "{tmp}/r.jsonl", "--report", "{file}/report"],
    ["report", "{results}", "--out", "{file}/report"],
    ["continual", "smoke", "--out", "{file}/c"],
    ["matrix", "smoke", "--out", "{file}/m.jsonl"],
    ["lifelong", "orchard", "--plot", "{missing}/p.png"],
    ["generality", "axe", "--out", "{file}/g.jsonl"],
    ["studio", "--levels", "{file}/levels", "--no-browser"],
    ["check", "{long}.yaml"],
    ["replay", "{long}.json"],
    ["show", "pogostick", "--png", "{tmp}/{long}.png"],
])
def test_paths_are_checked_before_any_work(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           argv: list[str]) -> None:
    """A folder that is missing or a file, or a name too long: one line naming the path,
    status 2, and the work never started (the env, the sweep, the server are not made)."""
    import nesyworld.experiments.protocol.sweep as sweep
    import nesyworld.world.envs as envs

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work started before the paths were checked")

    monkeypatch.setattr(envs, "NesyGridEnv", started)
    monkeypatch.setattr(sweep, "run_experiment", started)
    (tmp_path / "file").write_text("a file, not a folder\n")
    (tmp_path / "r.jsonl").write_text("")
    names = {"missing": str(tmp_path / "missing"), "file": str(tmp_path / "file"),
             "tmp": str(tmp_path), "long": "n" * 300, "results": str(tmp_path / "r.jsonl")}
    argv = [a.format(**names) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("nesyworld: error: ") and "internal" not in err
    assert ("missing" in err or "file" in err or "too long" in err), err


def test_output_checks_accept_what_the_commands_write(tmp_path: Path) -> None:
    assert output_file(tmp_path / "new.json") == tmp_path / "new.json"
    assert output_file(tmp_path / "a" / "b" / "r.jsonl", makes_folders=True)
    assert output_dir(tmp_path / "x" / "y") == tmp_path / "x" / "y"
    (tmp_path / "old.json").write_text("{}")
    assert output_file(tmp_path / "old.json")
    with pytest.raises(IsADirectoryError):
        output_file(tmp_path)
    with pytest.raises(FileNotFoundError):
        output_file(tmp_path / "a" / "r.jsonl")
    with pytest.raises(NotADirectoryError):
        output_dir(tmp_path / "old.json" / "sub")
    with pytest.raises(OSError, match="too long"):
        output_dir(tmp_path / ("n" * 256))


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO, and a guard: a command that opened it for reading would wait for a writer
    forever, so the test fails after 20 s instead."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    path = tmp_path / "pipe"
    os.mkfifo(path)

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError("blocked: a command opened the FIFO for reading")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 20)
    yield path
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


PDDL = ROOT / "tests" / "symbolic" / "data" / "blocksworld_domain.pddl"


@pytest.mark.parametrize("argv", [
    ["parse", "F"], ["parse", str(PDDL), "F"], ["parse", str(PDDL), "--plan", "F"],
    ["check", "F"], ["show", "F"], ["plan", "F"], ["replay", "F"], ["report", "F"],
    ["experiment", "F"], ["matrix", "F"], ["continual", "F"], ["lifelong", "F"],
    ["diff", "pogostick", "--novelty", "F"], ["run", "pogostick", "--novelty", "F"],
    ["experiment", "smoke", "--out", "F"],
])
def test_a_fifo_is_refused_at_once_by_every_reader(capsys: pytest.CaptureFixture[str],
                                                  fifo: Path, argv: list[str]) -> None:
    """`mkfifo f.pddl; nesyworld parse f.pddl` blocked forever; every file a command reads
    is now refused unopened when it is not a regular file (world/input_files.py)."""
    code, _, err = run(capsys, *[str(fifo) if a == "F" else a for a in argv])
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("nesyworld: error: ") and "a FIFO, not a regular file" in err, err


@pytest.mark.parametrize("edit", [("seed", "1e999"), ("reward", "1e999"), ("seed", "-1e400")])
def test_replay_refuses_a_number_too_large_for_a_float(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path,
                                                       edit: tuple[str, str]) -> None:
    """The studio refused such a recording while `nesyworld replay` replayed it, exit 0."""
    from nesyworld.hybrid import PlanningAgent, run_episode
    from nesyworld.hybrid.recording.writer import EpisodeRecorder
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world.envs import NesyGridEnv

    path = tmp_path / "r.json"
    recorder = EpisodeRecorder(NesyGridEnv("pogostick"), path)
    recorder.agent = PlanningAgent(recorder, KnowledgeBase.from_world("pogostick"))
    run_episode(recorder, recorder.agent, seed=0)
    key, number = edit
    text, n = re.subn(rf'"{key}": ?-?[0-9.e]+', f'"{key}": {number}', path.read_text(), count=1)
    assert n == 1
    path.write_text(text)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert re.match(rf"nesyworld: error: {re.escape(str(path))}:\d+:\d+: {number} is a number "
                    "too large for a float", err), err


def test_every_listed_user_error_exists() -> None:
    """USER_ERRORS names classes without importing them: each name must be real, else the
    CLI would call that error a bug."""
    for module, name in USER_ERRORS:
        cls = getattr(importlib.import_module(module), name)
        assert isinstance(cls, type) and issubclass(cls, Exception), (module, name)
        assert is_user_error(cls.__new__(cls)), (module, name)
    assert not is_user_error(ValueError("a plain ValueError is a bug"))
