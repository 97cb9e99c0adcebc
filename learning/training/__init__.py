"""Training a learner: the loop, its vector envs, the paper's convergence test and
checkpoints for fine-tuning.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.learning.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
    from nesyworld.learning.training.convergence import ConvergenceTest
    from nesyworld.learning.training.trainer import EpochRecord, TrainResult, train

_EXPORTS = {
    "Checkpoint": "checkpoint",
    "load_checkpoint": "checkpoint",
    "save_checkpoint": "checkpoint",
    "ConvergenceTest": "convergence",
    "EpochRecord": "trainer",
    "TrainResult": "trainer",
    "train": "trainer",
}
__all__ = [
    "Checkpoint", "ConvergenceTest", "EpochRecord", "TrainResult", "load_checkpoint",
    "save_checkpoint", "train",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
