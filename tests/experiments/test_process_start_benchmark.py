"""A smoke run of the process start-up benchmark (its real rows take a minute)."""

from __future__ import annotations

import pytest

from nesyworld.experiments.benchmarks import process_start


def test_rows_run_in_fresh_processes_and_print_ratios(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(process_start, "ROWS", {
        "reference: import torch": "import sys",
        "in a new process": "import sys; assert 'pytest' not in sys.modules",
    })
    assert process_start.main(["--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[1].split()[-1] == "1.00"
    assert lines[2].startswith("in a new process") and float(lines[2].split()[-1]) > 0


def test_every_shipped_row_names_what_it_measures() -> None:
    assert "reference: import torch" in process_start.ROWS
    assert all(compile(code, name, "exec") for name, code in process_start.ROWS.items())
