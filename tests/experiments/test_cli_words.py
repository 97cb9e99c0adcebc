"""What the CLI prints is read by people and pasted elsewhere: plain words for values (no
Python dicts or True/False), and whole operator names however narrow the terminal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.cli.output import plain


def test_values_are_spelled_in_words() -> None:
    assert plain({"pogo_stick": 1, "diamond": 2}) == "pogo_stick: 1, diamond: 2"
    assert (plain(True), plain(False), plain({}), plain(["a", "b"])) == ("yes", "no", "none",
                                                                       "a, b")


@pytest.mark.parametrize("argv", [["specs"], ["check", "pogostick"]])
def test_listings_print_no_python_values(capsys: pytest.CaptureFixture[str],
                                         argv: list[str]) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "{'" not in out and "True" not in out and "False" not in out, out


def test_plan_prints_whole_operator_names_in_a_narrow_terminal() -> None:
    env = {**os.environ, "COLUMNS": "60", "NESYWORLD_NUMBA": "0"}
    # pogostick's plan has names longer than a 60-column table's cell (the trade's, 25
    # characters): they wrap whole rather than end in an ellipsis
    done = subprocess.run([sys.executable, "-m", "nesyworld.experiments.cli", "plan",
                           "pogostick", "--planner", "in-process"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert "trade_block_of_titanium_" in done.stdout, done.stdout
