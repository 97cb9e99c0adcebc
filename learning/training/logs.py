"""Training logs that other tools read: a CSV a row per epoch, and TensorBoard scalars.

Why both: a spreadsheet or pandas opens the CSV with nothing installed, and TensorBoard shows
several runs' curves side by side while they train. Both are written from the `EpochRecord`
the trainer already makes, so they hold exactly what `train` reports, no second bookkeeping.
The TensorBoard side goes through tianshou's `TensorboardLogger` (over torch's SummaryWriter),
the logger tianshou's own trainers use, so the event files read like any tianshou run's;
it is imported only when a log is opened: it costs about half a second.

Where a run logs: `TrainConfig.logdir` when it is set (a continued run appends there);
otherwise, under a log root (`log_root(DIR)`, what the command line's `--logdir DIR` sets),
each training run gets a folder of its own, `DIR/run-001`, `DIR/run-002`, ..., with a
`run.json` that says what it trained. Why a root rather than one folder: a recovery, a
continual sequence or a multi-agent run trains many times, and their step axes would
overlap in one folder. The root travels in an environment variable, so the spawned worker
processes of a sweep log under it too.
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.learning.training.trainer import EpochRecord

__all__ = ["CSV_NAME", "LOG_ROOT_ENV", "EpochLog", "log_root", "run_logdir"]

CSV_NAME = "epochs.csv"
LOG_ROOT_ENV = "NESYWORLD_LOGDIR"
"""The environment variable that holds the log root (see the module docstring)."""
RUN_FILE = "run.json"
SCALARS = {
    "success_rate": "eval/success_rate", "mean_reward": "eval/mean_reward",
    "mean_length": "eval/mean_length", "eval_steps": "eval/env_steps",
    "train_success_rate": "train/success_rate", "train_mean_reward": "train/mean_reward",
    "train_episodes": "train/episodes", "steps_per_second": "speed/steps_per_second",
}
"""EpochRecord fields written as TensorBoard scalars, by tag; losses go under loss/<name>.
(tianshou's logger also writes each scope's x axis as `<scope>/env_step`.)"""


@contextmanager
def log_root(root: str | Path | None) -> Iterator[Path | None]:
    """Inside the block, every training run without its own `TrainConfig.logdir` logs to a
    new folder under `root` (None: no change). The previous root is restored after."""
    if root is None:
        yield None
        return
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    before = os.environ.get(LOG_ROOT_ENV)
    os.environ[LOG_ROOT_ENV] = str(path.resolve())
    try:
        yield path
    finally:
        if before is None:
            os.environ.pop(LOG_ROOT_ENV, None)
        else:
            os.environ[LOG_ROOT_ENV] = before


def run_logdir(logdir: str | None, meta: Mapping[str, Any] | None = None) -> Path | None:
    """The folder a training run logs to: `logdir` itself when given, else a new numbered
    folder under the log root (with `meta` in its run.json), else None (no log)."""
    if logdir is not None:
        return Path(logdir)
    root = os.environ.get(LOG_ROOT_ENV)
    if not root:
        return None
    base = Path(root)
    base.mkdir(parents=True, exist_ok=True)
    n = sum(1 for _ in base.glob("run-*")) + 1
    while True:  # mkdir is atomic: workers of one sweep never share a folder
        folder = base / f"run-{n:03d}"
        try:
            folder.mkdir()
            break
        except FileExistsError:
            n += 1
    info = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "pid": os.getpid(),
            **(meta or {})}
    (folder / RUN_FILE).write_text(json.dumps(info, indent=1, default=str) + "\n",
                                   encoding="utf-8")
    return folder


class EpochLog:
    """Appends each epoch to `<logdir>/epochs.csv` and to TensorBoard event files there.

    The x axis is the record's training env steps. Use as a context manager, or call
    `close`, so that the last events reach the disk."""

    def __init__(self, logdir: str | Path, tensorboard: bool = True) -> None:
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        self._csv_path = self.logdir / CSV_NAME
        self._columns: list[str] | None = None
        self.logger: Any = None
        """tianshou's TensorboardLogger (None without TensorBoard)."""
        if tensorboard:
            from tianshou.utils import TensorboardLogger
            from torch.utils.tensorboard import SummaryWriter

            self.logger = TensorboardLogger(SummaryWriter(log_dir=str(self.logdir)),
                                            write_flush=False)

    def write(self, record: EpochRecord) -> None:
        row = {f.name: getattr(record, f.name) for f in fields(record) if f.name != "losses"}
        row.update({f"loss_{k}": v for k, v in sorted(record.losses.items())})
        self._append_csv(row)
        if self.logger is None:
            return
        scopes: dict[str, dict[str, float]] = {}
        for name, tag in SCALARS.items():
            scope, key = tag.split("/")
            scopes.setdefault(scope, {})[key] = row[name]
        scopes["loss"] = dict(sorted(record.losses.items()))
        for scope, data in scopes.items():
            finite = {k: float(v) for k, v in data.items() if math.isfinite(float(v))}
            if finite:
                self.logger.write(f"{scope}/env_step", record.steps, finite)
        self.logger.writer.flush()

    def _append_csv(self, row: dict[str, Any]) -> None:
        if self._columns is None:
            if self._csv_path.exists() and self._csv_path.stat().st_size:
                with self._csv_path.open(newline="") as handle:
                    self._columns = next(csv.reader(handle), None) or list(row)
            else:
                self._columns = list(row)
                with self._csv_path.open("w", newline="") as handle:
                    csv.writer(handle).writerow(self._columns)
        with self._csv_path.open("a", newline="") as handle:
            csv.DictWriter(handle, self._columns, extrasaction="ignore").writerow(row)

    def close(self) -> None:
        if self.logger is not None:
            self.logger.finalize()
            self.logger = None

    def __enter__(self) -> EpochLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
