"""Training logs that other tools read: a CSV a row per epoch, and TensorBoard scalars.

Why both: a spreadsheet or pandas opens the CSV with nothing installed, and TensorBoard shows
several runs' curves side by side while they train. Both are written from the `EpochRecord`
the trainer already makes, so they hold exactly what `train` reports, no second bookkeeping.
TensorBoard's writer (torch.utils.tensorboard, which tianshou's loggers also use) is imported
only when a log is opened: it costs about half a second.
"""

from __future__ import annotations

import csv
import math
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.learning.training.trainer import EpochRecord

CSV_NAME = "epochs.csv"
SCALARS = {
    "success_rate": "eval/success_rate", "mean_reward": "eval/mean_reward",
    "mean_length": "eval/mean_length", "eval_steps": "eval/env_steps",
    "train_success_rate": "train/success_rate", "train_mean_reward": "train/mean_reward",
    "train_episodes": "train/episodes", "steps_per_second": "speed/steps_per_second",
}
"""EpochRecord fields written as TensorBoard scalars, by tag; losses go under loss/<name>."""


class EpochLog:
    """Appends each epoch to `<logdir>/epochs.csv` and to TensorBoard event files there.

    The x axis is the record's training env steps. Use as a context manager, or call
    `close`, so that the last events reach the disk."""

    def __init__(self, logdir: str | Path, tensorboard: bool = True) -> None:
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        self._csv_path = self.logdir / CSV_NAME
        self._columns: list[str] | None = None
        self._writer: Any = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(log_dir=str(self.logdir))

    def write(self, record: EpochRecord) -> None:
        row = {f.name: getattr(record, f.name) for f in fields(record) if f.name != "losses"}
        row.update({f"loss_{k}": v for k, v in sorted(record.losses.items())})
        self._append_csv(row)
        if self._writer is not None:
            for name, tag in SCALARS.items():
                self._scalar(tag, row[name], record.steps)
            for name, value in sorted(record.losses.items()):
                self._scalar(f"loss/{name}", value, record.steps)
            self._writer.flush()

    def _scalar(self, tag: str, value: Any, step: int) -> None:
        value = float(value)
        if math.isfinite(value):
            self._writer.add_scalar(tag, value, global_step=step)

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
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def __enter__(self) -> EpochLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
