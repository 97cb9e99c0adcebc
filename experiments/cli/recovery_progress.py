"""A live progress bar while a hybrid agent learns a recovery: steps out of the budget,
elapsed time, ETA and the last evaluation, under the agent's event lines.

Why: between "learning to recover from ..." and the first epoch a recovery samples the
failure on other maps, imports torch and tianshou and builds its networks; that took long
enough, with nothing printed, to look hung. The bar appears with the announcing event, so
from the first second the user sees the recovery running, its budget and the time spent;
each collected chunk then moves it (`advance`, the agent's `on_progress` hook, between the
epochs' evaluations) and each epoch names itself and its success (the ETA follows from the
pace).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

ENDS = ("learned", "recovery_failed")
"""Agent event kinds that end a learning (every learning ends in one of them)."""
PREPARING = "preparing: failure on other maps, learner"


class RecoveryProgress:
    """An event display (`show(event)`) with a progress bar added while a recovery learns.

    Call it with each event; call `close` when the run ends (also usable as a context
    manager). On a console that is not a terminal the bar is left out: the event lines,
    epochs included, are what a log file wants."""

    def __init__(self, show: Callable[[Any], None], console: Console | None = None) -> None:
        self.show = show
        self.console = console if console is not None else Console()
        self.progress: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, event: Any) -> None:
        data = getattr(event, "data", {}) or {}
        if event.kind == "adaptation" and "budget" in data:
            self.show(event)
            self.start(str(data.get("learning", "")), int(data["budget"]))
        elif event.kind == "learning" and self.progress is not None and self.task is not None:
            self.show(event)
            self.progress.update(self.task, completed=int(data.get("steps", 0)),
                                 description=f"epoch {data.get('epoch', '')}",
                                 status=f"success {float(data.get('success_rate', 0)):.2f}")
        elif event.kind in ENDS:
            self.stop()
            self.show(event)
        else:
            self.show(event)

    def advance(self, steps: int) -> None:
        """Training env steps so far, after a collected chunk (no event: it would flood the
        event log); the first one ends the "preparing" phase."""
        if self.progress is None or self.task is None:
            return
        task = self.progress.tasks[0]
        fields: dict[str, Any] = {}
        if task.description == PREPARING:
            fields["description"] = "training"
        self.progress.update(self.task, completed=steps, **fields)

    def start(self, operator: str, budget: int) -> None:
        """Show the bar now, at 0 of `budget` training steps."""
        self.stop()
        self.progress = Progress(
            SpinnerColumn(), TextColumn(f"[magenta]{operator}[/magenta]"),
            TextColumn("{task.description}"), BarColumn(bar_width=24),
            MofNCompleteColumn(), TextColumn("steps"), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[status]}"),
            console=self.console, transient=True, disable=not self.console.is_terminal,
            refresh_per_second=4)
        self.task = self.progress.add_task(PREPARING, total=budget, status="")
        self.progress.start()

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
        self.progress = self.task = None

    def close(self) -> None:
        self.stop()

    def __enter__(self) -> RecoveryProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
