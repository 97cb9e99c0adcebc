"""Smoke runs of every CLI sub-command, through main() as a user would call it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_subcommand_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert {"specs", "classes", "check", "show", "play", "run", "replay"} <= set(sub.choices)
    for name, p in sub.choices.items():
        assert p.format_help().startswith("usage: nesyworld " + name), name


def test_specs_json_lists_shipped_specs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "specs", "--json")
    assert code == 0
    names = {row["name"] for row in json.loads(out)}
    assert {"pogostick", "pogostick_full"} <= names


def test_classes_lists_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "classes", "--json")
    data = json.loads(out)
    assert code == 0
    assert "approach" in data["actions"] and "rival" in data["controllers"]
    assert "station" in data["entities"]


def test_check_reports_error_with_location(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: pogostick\nactions:\n  break: {class: brake}\n")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 2
    assert f"{bad}:3:18" in err and "unknown action class 'brake'" in err


def test_check_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "pogostick", "--json")
    data = json.loads(out)
    assert code == 0 and data["goal"] == {"pogo_stick": 1}
    assert "craft_pogo_stick" in data["grounded_actions"]


def test_run_scripted_solves_pogostick(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", "pogostick", "--episodes", "3", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["success_rate"] == 1.0 and data["mean_steps"] == 15


def test_run_random_and_record_replay(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    traj = tmp_path / "t.json"
    code, out, _ = run(capsys, "run", "pogostick", "--agent", "random", "--record", str(traj),
                       "--json")
    assert code == 0 and json.loads(out)["episodes"] == 1
    code, out, _ = run(capsys, "replay", str(traj))
    assert code == 0 and "every state matches" in out


def test_show_writes_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "w.png"
    code, out, _ = run(capsys, "show", "pogostick", "--png", str(png))
    assert code == 0 and png.stat().st_size > 0
    assert out.count("\n") >= 16  # the 16-row map was drawn


def test_play_from_stdin(tmp_path: Path) -> None:
    """Keyboard play, driven through stdin as a terminal user would type."""
    script = "\n".join(["?", "approach_block_of_platinum", "select_iron_pickaxe", "b", "x"])
    rec = tmp_path / "play.json"
    proc = subprocess.run(
        [sys.executable, "-m", "nesyworld.experiments.cli.main", "play", "pogostick", "--record",
         str(rec)],
        input=script, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "break: ok" in proc.stdout
    data = json.loads(rec.read_text())
    assert data["actions"] == ["approach_block_of_platinum", "select_iron_pickaxe", "break"]


def test_pddl_prints_and_writes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "pddl", "pogostick")
    assert code == 0 and "(define (domain pogostick)" in out and "(:goal" in out
    code, out, _ = run(capsys, "pddl", "pogostick", "--classical", "--out", str(tmp_path))
    assert code == 0
    assert "inventory_geq" in (tmp_path / "domain.pddl").read_text()


def test_plan_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plan", "pogostick", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "plan" and data["length"] <= 15


def test_lifelong_agent_names_match_the_agents_module() -> None:
    """The parser lists the lifelong agents without importing their module (numpy)."""
    from nesyworld.experiments.cli.lifelong_commands import AGENTS
    from nesyworld.experiments.lifelong.agents import AGENTS as DEFINED

    assert AGENTS == DEFINED


@pytest.mark.parametrize("argv", [
    ["parse", "nope.pddl"],
    ["parse", "tests/symbolic/data/blocksworld_domain.pddl", "nope.pddl"],
    ["replay", "nope.json"],
    ["report", "nope.jsonl"],
])
def test_a_missing_file_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                                 argv: list[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    argv = [str(root / a) if a.startswith("tests/") else a for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"nesyworld: error: {argv[-1]}:")  # then a reason, or line:column


def test_a_directory_or_binary_file_is_one_line_and_status_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "parse", str(tmp_path))
    assert code == 2 and err.startswith(f"nesyworld: error: {tmp_path}:")
    assert err.count("\n") == 1
    binary = tmp_path / "domain.pddl"
    binary.write_bytes(b"(define \xff\xfe")
    code, _, err = run(capsys, "parse", str(binary))
    assert code == 2
    assert err == (f"nesyworld: error: {binary}:1:9: byte 0xff is not UTF-8; "
                   "expected UTF-8 (or ASCII) text\n")


def _imported(argv: list[str], cwd: Path) -> set[str]:
    """The top-level packages `nesyworld ARGV` imports, run as the program (python -m), read
    from python's -X importtime report."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m",
                             "nesyworld.experiments.cli", *argv],
                            capture_output=True, text=True, cwd=cwd)
    assert result.returncode == 0, result.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip().split(".")[0]
            for line in result.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("argv", [
    ["parse", "novelgym_appendix_g_domain.pddl", "novelgym_appendix_g_problem.pddl"],
    ["pddl", "pogostick"],
    ["plan", "pogostick", "--json"],
    ["graph", "pogostick", "--out", "{tmp}/recipes.png"],
    ["check-domain", "pogostick", "--samples", "2", "--json"],
])
def test_the_symbolic_commands_load_no_learner_or_compiler(argv: list[str],
                                                           tmp_path: Path) -> None:
    """parse, pddl, plan, graph and check-domain never import torch, tianshou or numba; `parse`
    also skips what only planning engines, gym envs or numpy need, which keeps its start-up
    near half a second (issue 20)."""
    data = Path(__file__).resolve().parents[1] / "symbolic" / "data"
    imported = _imported([a.format(tmp=tmp_path) for a in argv], cwd=data)
    assert imported & {"torch", "tianshou", "numba"} == set()
    if argv[0] == "parse":
        assert imported & {"scipy", "ConfigSpace", "gymnasium", "numpy"} == set()


def test_help_loads_no_learner_compiler_planner_gym_or_numbers() -> None:
    """`nesyworld --help` (every command's parser) must start fast: the heavy libraries are
    imported by the commands that use them, never to build the parser."""
    code = ("import sys\n"
            "from nesyworld.experiments.cli.main import build_parser\n"
            "build_parser()\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'tianshou', "
            "'numba', 'ray', 'gymnasium', 'numpy', 'unified_planning', 'rich', 'networkx', "
            "'yaml'}))\n"
            "print('nesyworld.experiments.config_reading' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    # the shipped configs it lists are found by name, not read as configs (config_files.py)
    assert out[:2] == ["[]", "False"]


def test_the_command_table_names_each_commands_group() -> None:
    """main.COMMANDS lets a command build only its group's parser: it must match the groups."""
    import importlib

    from nesyworld.experiments.cli.main import COMMANDS, MODULES

    found = {}
    for name in MODULES:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(f"nesyworld.experiments.cli.{name}").add_commands(sub)
        found.update(dict.fromkeys(sub.choices, name))
    assert found == COMMANDS


def test_an_unknown_or_removed_planner_is_a_one_line_error(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    for command in ("plan", "run"):
        for name, why in (("pyperplan", "conditional effects"), ("nope", "fast-downward")):
            code, _, err = run(capsys, command, "pogostick", "--planner", name)
            assert code == 2 and why in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("cores", "threaded"), [(1, False), (2, True), (None, False)])
def test_run_gives_a_hybrid_agent_the_update_thread_where_a_core_is_free(
        monkeypatch: pytest.MonkeyPatch, cores: int | None, threaded: bool) -> None:
    """`nesyworld run` is one process: its recoveries may use a second core for the update
    (the same weights, bit for bit), and a single-core machine keeps one thread."""
    from nesyworld.experiments.cli import run_commands
    from nesyworld.world.envs import NesyGridEnv

    monkeypatch.setattr(run_commands.os, "cpu_count", lambda: cores)
    args = build_parser().parse_args(["run", "pogostick", "--agent", "rapidlearn+"])
    agent = run_commands.make_agent(args, NesyGridEnv("pogostick"), verbose=False)
    assert agent.recovery_config.train.update_thread is threaded
