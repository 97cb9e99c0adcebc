"""`nesyworld novelties` at 80 columns: every row's name is whole, so no two rows read the
same (two multi_interact_... names were once cut to the same text)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from nesyworld.domains import shipped_novelties
from nesyworld.experiments.cli import novelty_commands
from nesyworld.experiments.cli.main import main


@pytest.mark.parametrize("width", [80, 140])
def test_every_novelty_row_is_distinguishable(width: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(novelty_commands, "console", Console(file=out, width=width))
    assert main(["novelties"]) == 0
    text = out.getvalue()
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines)
    assert "…" not in text
    names = list(shipped_novelties())
    assert len(names) == len(set(names)) > 2
    for name in names:  # each whole, at the start of its own row
        assert sum(1 for line in lines if line.strip("│ ").split()[:1] == [name]) == 1, name
