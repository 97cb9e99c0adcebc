"""`--logdir DIR`, shared by the commands that train: every training run they start (an RL
baseline, a recovery, a continual stage, a multi-agent phase) writes its epochs to
`DIR/run-NNN/epochs.csv` and to TensorBoard event files beside it (`tensorboard --logdir
DIR` shows them all), with a run.json saying what it trained.

Why here and not in each command: the option means the same everywhere, and the learning
package (which imports torch) is loaded only when the option is given, so a command that
never trains starts as fast as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.arguments import output_dir

HELP = ("log every training run to DIR/run-NNN/: epochs.csv (a row per epoch) and "
        "TensorBoard events (view with `tensorboard --logdir DIR`)")


def add_logdir_argument(parser: Any) -> None:
    parser.add_argument("--logdir", metavar="DIR", default=None, help=HELP)


@contextmanager
def training_logs(logdir: str | Path | None) -> Iterator[Path | None]:
    """Inside the block, training runs log under `logdir` (None: no logs). The folder is
    checked first: one that cannot be made is a one-line error, before any training."""
    if logdir is None:
        yield None
        return
    folder = output_dir(logdir)
    from nesyworld.learning.training.logs import log_root

    with log_root(folder) as root:
        yield root
