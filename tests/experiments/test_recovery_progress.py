"""A recovery's progress bar: shown from the event that announces the learning (before any
epoch), moved by each epoch, gone when the recovery ends; left out when not a terminal."""

from __future__ import annotations

import io
import re
import time
from typing import Any

from rich.console import Console

from nesyworld.experiments.cli.recovery_progress import RecoveryProgress
from nesyworld.hybrid.agents.planning_agent import Event

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def events() -> list[Event]:
    return [Event(3, "recovery", "learning to recover from: break failed",
                  {"learning": "break", "budget": 60_000}),
            Event(3, "learning", "epoch 1: 500 steps", {"epoch": 1, "steps": 500,
                                                         "success_rate": 0.25}),
            Event(3, "learned", "learned_break_1 after 3000 env steps", {})]


def test_the_bar_shows_steps_budget_and_eta_from_the_start() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    shown: list[Any] = []
    display = RecoveryProgress(shown.append, console)
    first, epoch, end = events()
    display(first)
    time.sleep(0.3)
    assert display.progress is not None
    start = ANSI.sub("", out.getvalue())
    assert "break" in start and "0/60000" in start and "steps" in start and "ETA" in start
    assert "preparing" in start  # before the first epoch
    display(epoch)
    display.progress.refresh()
    assert "500/60000" in ANSI.sub("", out.getvalue()) and "success 0.25" in out.getvalue()
    display(end)
    assert display.progress is None and shown == [first, epoch, end]
    display.close()


def test_without_a_terminal_only_the_event_lines_are_shown() -> None:
    out = io.StringIO()
    shown: list[Any] = []
    with RecoveryProgress(shown.append, Console(file=out, force_terminal=False)) as display:
        for event in events():
            display(event)
    assert out.getvalue() == "" and len(shown) == 3
