"""Continual-learning metrics on an accuracy matrix.

A continual run trains one agent on tasks 0..T-1 in order and, after each stage, evaluates it
on every task. That gives the accuracy matrix R (T x T): R[i][j] is the success rate on task j
after training on tasks 0..i. Optionally a row `initial[j]` (the untrained agent on task j)
is known as well. The metrics below follow Lopez-Paz & Ranzato (2017, GEM) and Chaudhry et al.
(2018, RWalk), the usual ones in continual RL (Continual World, Craftium's CRL sequences):

* average final performance  A = mean_j R[T-1][j]
* forgetting of task j < T-1  F_j = max(0, max_{i < T-1} R[i][j] - R[T-1][j]): the best
  performance the agent ever had on j before the last stage, minus its final one. Clipped at
  zero on purpose: a task that ended at its best forgot nothing, whatever it gained later
  (gains are what backward transfer shows). Averaged over j < T-1: the last task has had no
  later stage in which to forget.
* backward transfer  BWT = mean_{j < T-1} (R[T-1][j] - R[j][j]): how later training changed
  each task from just after it was learned; negative when it was forgotten, positive when
  later tasks helped it. Unlike F it is signed.
* forward transfer  FWT = mean_{j > 0} (R[j-1][j] - initial[j]): how earlier training helped a
  task before it was trained on, against the untrained agent (only with `initial`).

With a single task, forgetting, BWT and FWT have nothing to average and are NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ContinualMetrics:
    """The summary of one accuracy matrix (see the module docstring for the definitions)."""

    average_final: float
    forgetting: float
    backward_transfer: float
    forward_transfer: float
    forgetting_per_task: tuple[float, ...]
    """F_j for every task j but the last."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def as_matrix(matrix: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """`matrix` as a square float array; anything else is a programming error, said plainly."""
    r = np.asarray(matrix, dtype=float)
    if r.ndim != 2 or r.shape[0] != r.shape[1] or r.shape[0] == 0:
        raise ValueError(f"an accuracy matrix must be square and non-empty, got shape {r.shape}")
    return r


def forgetting_per_task(matrix: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """F_j = max(0, max_{i < T-1} R[i][j] - R[T-1][j]) for j < T-1."""
    r = as_matrix(matrix)
    t = r.shape[0]
    if t < 2:
        return np.zeros(0)
    best_before_last = r[:-1, :-1].max(axis=0)
    return np.maximum(0.0, best_before_last - r[-1, :-1])


def backward_transfer(matrix: Sequence[Sequence[float]] | np.ndarray) -> float:
    """BWT = mean_{j < T-1} (R[T-1][j] - R[j][j]); NaN for one task."""
    r = as_matrix(matrix)
    t = r.shape[0]
    if t < 2:
        return math.nan
    return float(np.mean(r[-1, :-1] - np.diag(r)[:-1]))


def forward_transfer(matrix: Sequence[Sequence[float]] | np.ndarray,
                     initial: Sequence[float] | np.ndarray) -> float:
    """FWT = mean_{j > 0} (R[j-1][j] - initial[j]); NaN for one task."""
    r = as_matrix(matrix)
    b = np.asarray(initial, dtype=float)
    if b.shape != (r.shape[0],):
        raise ValueError(f"initial must have one value per task ({r.shape[0]}), got {b.shape}")
    if r.shape[0] < 2:
        return math.nan
    return float(np.mean(np.diag(r, k=1) - b[1:]))


def continual_metrics(matrix: Sequence[Sequence[float]] | np.ndarray,
                      initial: Sequence[float] | np.ndarray | None = None) -> ContinualMetrics:
    """Every metric of one accuracy matrix (FWT is NaN without `initial`)."""
    r = as_matrix(matrix)
    per_task = forgetting_per_task(r)
    return ContinualMetrics(
        average_final=float(r[-1].mean()),
        forgetting=float(per_task.mean()) if per_task.size else math.nan,
        backward_transfer=backward_transfer(r),
        forward_transfer=math.nan if initial is None else forward_transfer(r, initial),
        forgetting_per_task=tuple(float(f) for f in per_task),
    )


__all__ = ["ContinualMetrics", "as_matrix", "backward_transfer", "continual_metrics",
           "forgetting_per_task", "forward_transfer"]
