"""Fixtures shared by the sweep tests: the fake run functions of tests/experiments/fake_runs.py,
importable in every worker, and the file they log their calls to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture
def fake_runs_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fake_runs` (beside this file) importable here and in spawned or Ray workers, which
    inherit the environment but not sys.path."""
    monkeypatch.syspath_prepend(str(HERE))
    paths = [str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))


@pytest.fixture
def fake_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             fake_runs_importable: None) -> Path:
    """The file the fake runs log each call to (spawned workers inherit the environment)."""
    log = tmp_path / "calls.log"
    monkeypatch.setenv("NESYWORLD_FAKE_LOG", str(log))
    monkeypatch.setenv("NESYWORLD_FAKE_SLEEP", "0")
    return log
