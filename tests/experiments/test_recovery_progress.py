"""A recovery's progress bar: shown from the event that announces the learning (before any
epoch), moved by each epoch, gone when the recovery ends; left out when not a terminal."""

from __future__ import annotations

import io
import re
import time
from typing import Any

from rich.console import Console

from nesyworld.experiments.cli.recovery_progress import RecoveryProgress
from nesyworld.hybrid.agents.planning_agent import AgentEvent

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def events() -> list[AgentEvent]:
    return [AgentEvent(3, "adaptation", "learning to recover from: break failed",
                  {"learning": "break", "budget": 60_000}),
            AgentEvent(3, "learning", "epoch 1: 500 steps", {"epoch": 1, "steps": 500,
                                                         "success_rate": 0.25}),
            AgentEvent(3, "learned", "learned_break_1 after 3000 env steps",
                  {"pddl": "(:action learned_break_1)"})]


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


def test_the_run_command_prints_its_events_on_the_bars_own_console(
        monkeypatch: Any) -> None:
    """The event lines and the live bar share one console: printed through another, they
    landed inside the bar's redraws in a real terminal (stale copies of the bar, an epoch
    line glued onto the bar). On the shared console every event line ends up whole, on its
    own line, and the bar is gone at the end."""
    from nesyworld.experiments.cli import run_commands
    from nesyworld.experiments.cli.output import LazyConsole

    out = io.StringIO()
    shared = LazyConsole(file=out, force_terminal=True, width=100)
    monkeypatch.setattr(run_commands, "console", shared)
    display = RecoveryProgress(run_commands.show_hybrid, shared.get())
    for event in events():
        display(event)
        if display.progress is not None:
            display.progress.refresh()
    display.close()
    final = _screen(out.getvalue())
    for event in events():
        assert sum(event.text in line for line in final) == 1, final
    assert not any("ETA" in line for line in final), final  # the bar left no copy


def test_a_learned_operators_pddl_is_never_wrapped(monkeypatch: Any) -> None:
    """Printed PDDL is pasted into files: a line wrapped at the terminal's width would cut a
    comment from its `;`."""
    from nesyworld.experiments.cli import run_commands
    from nesyworld.experiments.cli.output import LazyConsole

    out = io.StringIO()
    monkeypatch.setattr(run_commands, "console", LazyConsole(file=out, width=40))
    pddl = "(:action learned_break_1 ; " + "why " * 30 + "\n  :parameters ())"
    run_commands.show_hybrid(AgentEvent(3, "learned", "learned_break_1", {"pddl": pddl}))
    assert pddl in out.getvalue()


def _screen(text: str) -> list[str]:
    """The lines a terminal shows at the end: rich's live display moves the cursor up and
    erases lines to redraw itself, so replay those moves instead of reading raw output."""
    lines: list[str] = [""]
    row = 0
    for token in re.split(r"(\x1b\[[0-9;?]*[A-Za-z]|\r|\n)", text):
        if not token:
            continue
        if token == "\n":
            row += 1
            if row == len(lines):
                lines.append("")
        elif token == "\r":
            continue
        elif token.startswith("\x1b["):
            code, arg = token[-1], token[2:-1]
            if code == "A":  # cursor up
                row = max(0, row - int(arg or 1))
            elif code == "K":  # erase the line
                lines[row] = ""
        else:
            lines[row] += token
    return [line for line in lines if line.strip()]
