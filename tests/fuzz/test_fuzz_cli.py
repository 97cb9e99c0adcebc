"""The command line: drawn argument vectors over every real command, run in-process through
`main(argv)`. Each must end with status 0 (or 1, a documented "no plan" / "mismatch"), or 2
with one `nesyworld: error:` line (argparse's usage lines may precede its own error line);
never a traceback, an internal error (70) or a stray SystemExit.

The vectors come from the parsers themselves (every option of every command, so a new option
is fuzzed without a line here), with values drawn from pools per kind: numbers out of range,
files of the right kind mutated, missing, a folder, a FIFO (inputs only), a name too long,
output paths in missing folders or under a file. Work that would train, sweep or serve is
replaced by a stub that raises `Reached`: reaching it means the command checked its arguments
and started, which is a pass (what the work itself does with valid input is other tests' business).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.experiments.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 10)
PDDL = ROOT / "tests" / "symbolic" / "data"


class Reached(BaseException):
    """Raised by a stub of long work: the command got past its checks. A BaseException, so
    that `main`'s error path does not take it for a bug."""


def _reached(*args: Any, **kwargs: Any) -> Any:
    raise Reached


def _stub_module(name: str, **names: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(names)
    return module


STUBS = {  # (module, attribute): the long work each command starts
    ("nesyworld.symbolic.planning.planners", "Planner.plan"): None,
    ("nesyworld.hybrid.execution.episode", "run_episode"): None,
    ("nesyworld.symbolic.graphs", "draw_recipe_graph"): None,
    ("nesyworld.symbolic.derivation.domain_check", "check_domain"): None,
    ("nesyworld.experiments.protocol.sweep", "run_experiment"): None,
    ("nesyworld.experiments.protocol.report", "write_report"): None,
    ("nesyworld.experiments.matrix.run", "run_matrix"): None,
    ("nesyworld.experiments.lifelong.run", "run_lifelong"): None,
    ("nesyworld.experiments.generality.run", "run_suite"): None,
    ("nesyworld.experiments.generality", "run_suite"): None,
    ("nesyworld.experiments.studio.server", "serve"): None,
}
HEAVY_MODULES = {  # imported torch at module level: replaced whole, never imported here
    "nesyworld.experiments.multiagent.run": dict(
        MultiAgentTrainConfig=lambda **kw: kw, render_table=_reached,
        train_multiagent=_reached),
    "nesyworld.experiments.continual.run": dict(
        StageRecord=object, run_continual=_reached, INITIAL=-1,
        ContinualError=type("ContinualError", (Exception,), {})),
    # the continual config loader compares tasks' spaces with it when their parts differ
    "nesyworld.hybrid.baselines.transfer": dict(space_names=lambda env: ()),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One file of every kind the commands read, and places to write, in a temp folder; the
    heavy work stubbed for the module's tests."""
    import importlib

    tmp = tmp_path_factory.mktemp("cli_fuzz")
    (tmp / "a_file").write_text("not a folder\n")
    (tmp / "a_dir").mkdir()
    if hasattr(os, "mkfifo"):  # read, it would block forever: it must be refused unopened
        os.mkfifo(tmp / "a_fifo")
    trajectory = tmp / "trajectory.json"
    with contextlib.redirect_stdout(io.StringIO()):
        from nesyworld.world import Recorder, World

        world = World("pogostick", seed=1)
        rec = Recorder(world, 1)
        for action in world.action_names()[:4]:
            rec.step(action)
        rec.trajectory.save(trajectory)
    results = tmp / "results.jsonl"
    lines = (ROOT / "docs" / "results" / "table2" / "results.jsonl").read_text().splitlines()
    results.write_text("\n".join(lines[:2]) + "\n")
    found = {
        "spec": ROOT / "domains" / "polycraft" / "pogostick.yaml",
        "novelty": ROOT / "domains" / "polycraft" / "novelties" / "axe.yaml",
        "config": ROOT / "experiments" / "configs" / "smoke.yaml",
        "continual": ROOT / "experiments" / "configs" / "continual.yaml",
        "matrix": ROOT / "experiments" / "configs" / "matrix.yaml",
        "lifelong": ROOT / "domains" / "lifelong" / "orchard.yaml",
        "domain": PDDL / "novelgym_generated_domain.pddl",
        "problem": PDDL / "novelgym_generated_problem.pddl",
        "plan": PDDL / "novelgym_generated_plan.txt",
        "trajectory": trajectory, "results": results, "tmp": tmp,
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, attrs in HEAVY_MODULES.items():
            patch.setitem(sys.modules, name, _stub_module(name, **attrs))
        for module, attr in STUBS:
            owner: Any = importlib.import_module(module)
            *path, last = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
            patch.setattr(owner, last, _reached)
        for argv in (["pddl", "pogostick"], ["show", "pogostick", "--png", str(tmp / "w.png")]):
            run_main(argv)  # warm: a first derivation and matplotlib take seconds of imports
        yield found


NUMBERS = ("-1", "0", "1", "2", "3", "x", "", " 4", "1_0", "0x10", "1.5", "1e3", "2147483647",
           "2147483648", "9223372036854775808", "1e309", "nan", "inf", "-inf", "1e-320",
           "65536", "1048576", "340282366920938463463374607431768211456", "٣")
NUMERIC = {"seed", "seeds", "workers", "episodes", "adapt_episodes", "budget", "samples",
           "steps", "window", "rounds", "max_episodes", "eval_episodes", "port", "timeout"}
OUTPUTS = {"out", "png", "record", "save", "plot", "report", "levels"}
NAMES = {
    "spec": ("pogostick", "birdhouse", "orchard", "coop_pogostick", "nope", "pogostick.yaml"),
    "novelty": ("axe", "fire", "timber", "nope", "axe,fire"),
    "novelties": ("axe", "fire", "nope", "timber"),
    "config": ("smoke", "continual", "matrix", "nope"),
    "planner": ("fast-downward", "in-process", "enhsp", "pyperplan", "nope"),
    "suite": ("polycraft", "workshop", "farm"),
    "domain": ("polycraft", "workshop", "nope"),
    "address": ("127.0.0.1:1", "nowhere"),
    "agents": ("rapidlearn+", "transfer_rl", "nobody"),
}
INPUT_KIND = {"spec": "spec", "novelty": "novelty", "novelties": "novelty", "config": "config",
              "results": "results", "trajectory": "trajectory", "domain": "domain",
              "problem": "problem", "plan": "plan", "recordings": "trajectory", "kb": "tmp"}
SKIPPED = {"help", "debug", "run_fn"}
QUICK_AGENTS = ("planning", "scripted", "random", "nope")
"""`run --agent`: the hybrid agents build a learner (torch) before their work starts."""


def path_value(data: st.DataObject, files: dict[str, Path], kind: str | None,
               fuzz: Any) -> str:
    """A path for an input of `kind` (None: an output): good, mutated, or wrong."""
    tmp = files["tmp"]
    wrong = (str(tmp / "missing" / "x.json"), str(tmp / "a_file" / "x"), str(tmp / "a_dir"),
             str(tmp / ("n" * 300)), "", str(tmp / "odd\n\u202ename\t.json"),
             str(tmp / "a_file"), "-")
    if kind is None:
        good = (str(tmp / "new_out.json"), str(tmp / "sub" / "dir"), str(tmp / "w.png"),
                str(tmp / "w.gif"), str(tmp / "w."))
        return data.draw(st.sampled_from(good + wrong), label="output")
    choice = data.draw(st.sampled_from(("good", "mutated", "wrong")), label=f"{kind} path")
    if kind in ("tmp",) or choice == "wrong":
        fifo = (str(tmp / "a_fifo"),) if (tmp / "a_fifo").exists() else ()
        return data.draw(st.sampled_from((*wrong, str(tmp), *fifo)), label="wrong path")
    source = files[kind]
    if choice == "good":
        return str(source)
    mutated = tmp / f"mutated_{source.name}"
    if data.draw(st.booleans(), label="bytes"):
        mutated.write_bytes(fuzz.mutant_bytes(data, source.read_bytes()))
    else:
        mutated.write_text(fuzz.mutant(data, source.read_text(encoding="utf-8")),
                           encoding="utf-8", errors="surrogatepass")
    return str(mutated)


def value(data: st.DataObject, files: dict[str, Path], command: str,
          action: argparse.Action, fuzz: Any) -> str:
    dest = action.dest
    if command == "run" and dest == "agent":
        return data.draw(st.sampled_from(QUICK_AGENTS), label="agent")
    if dest in NUMERIC:
        return data.draw(st.sampled_from(NUMBERS), label=dest)
    if dest in OUTPUTS:
        return path_value(data, files, None, fuzz)
    if action.choices:
        return data.draw(st.sampled_from([*map(str, action.choices), "nope"]), label=dest)
    names = NAMES.get(dest, ())
    kind = INPUT_KIND.get(dest)
    if kind and (not names or data.draw(st.booleans(), label=f"{dest} as file")):
        return path_value(data, files, kind, fuzz)
    if names:
        return data.draw(st.sampled_from(names), label=dest)
    return data.draw(st.text(max_size=8), label=dest)


def draw_argv(data: st.DataObject, files: dict[str, Path], fuzz: Any) -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = data.draw(st.sampled_from(sorted(sub.choices)), label="command")
    argv = [command]
    for action in sub.choices[command]._actions:
        if action.dest in SKIPPED or not (action.option_strings or action.nargs != 0):
            continue
        if action.option_strings:
            if not data.draw(st.booleans(), label=f"give {action.dest}"):
                continue
            argv.append(data.draw(st.sampled_from(action.option_strings), label="flag"))
            if action.nargs == 0:
                continue
        times = {"*": (0, 2), "+": (1, 2), "?": (0, 1)}.get(action.nargs, (1, 1))  # type: ignore[arg-type]
        for _ in range(data.draw(st.integers(*times), label=f"{action.dest} count")):
            argv.append(value(data, files, command, action, fuzz))
    if data.draw(st.integers(0, 4), label="scramble") == 0:  # a token lost, doubled or odd
        at = data.draw(st.integers(0, len(argv)), label="at")
        token = data.draw(st.sampled_from(("--", "-", "--nope", "--json", "-x", "=", "--seed",
                                           "--seed=-1", argv[-1])), label="token")
        argv.insert(at, token)
    return argv


def run_main(argv: list[str]) -> tuple[int, str, str]:
    """`main(argv)` with stdin, stdout and stderr captured; Reached counts as status 0."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO("?\nb\nx\n")  # `play` reads keys, then quits
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except Reached:
        code = 0
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


def check(argv: list[str]) -> None:
    code, _, err = run_main(argv)
    shown = json.dumps(argv)[:400]
    assert "Traceback" not in err, f"{shown}: traceback:\n{err[-2000:]}"
    assert code in (0, 1, 2), f"{shown}: exit status {code}: {err[-500:]}"
    if code == 2:
        lines = err.splitlines()
        assert lines, f"{shown}: status 2 without a message"
        # every error, argparse's included, is one line: `nesyworld: error: ...`
        assert len(lines) == 1, f"{shown}: error of more than one line:\n{err[-800:]}"
        assert lines[0].startswith("nesyworld: error: "), f"{shown}:\n{err[-800:]}"
    if code == 1:
        assert "error" not in err.lower() or "the run failed" in err, f"{shown}: {err[-500:]}"


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_drawn_command_lines_end_cleanly(fuzz: Any, files: dict[str, Path],
                                         data: st.DataObject) -> None:
    argv = draw_argv(data, files, fuzz)
    fuzz.run(f"nesyworld {' '.join(argv)[:300]}", lambda: check(argv))
