"""Which run of a sweep a free worker takes next, so pre-trained checkpoints are used soon.

RL runs of one (agent, seed) share a pre-trained checkpoint (pretraining.py). Taken in grid
order, a novelty-major sweep starts a new pre-training for nearly every run of its first
novelty, and a second worker that reaches a pair already being pre-trained waits on its lock.
Both cost most on the machines sweeps run on: a pre-training is about an hour of one core,
and checkpoints are files on the machine, so a sweep stopped and resumed on a fresh machine
pre-trains again every pair whose runs it had not finished.

So a free worker takes, in grid order within each rank:
1. a run whose checkpoint is on disk (it only loads it);
2. a run whose pre-training was begun and saved progress (it resumes it);
3. a run that needs no checkpoint, or that starts the pre-training of a pair no run in flight
   is pre-training.
A run of a pair that a run in flight is pre-training is left for later: it would only wait.
When nothing else is left, the worker stays free until a run finishes or, every
`RECHECK_SECONDS`, a checkpoint it waits for is on disk (a run saves its checkpoint when its
pre-training ends, long before the run does).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from nesyworld.experiments.protocol.pretraining import pretrained_checkpoint, progress_files
from nesyworld.experiments.protocol.records import RunSpec

__all__ = ["RECHECK_SECONDS", "dispatch", "next_run"]

RECHECK_SECONDS = 30.0
"""How often a sweep with a free worker and runs left looks again for a finished checkpoint."""

Handle = TypeVar("Handle")


def next_run(queue: Sequence[RunSpec], in_flight: Collection[RunSpec]) -> int | None:
    """The index in `queue` of the run a free worker should take, or None when every run left
    would wait for a pre-training that a run in `in_flight` is doing."""
    training = {path for path in map(pretrained_checkpoint, in_flight)
                if path is not None and not path.exists()}
    best: tuple[int, int] | None = None
    for index, spec in enumerate(queue):
        rank = _rank(pretrained_checkpoint(spec), training)
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, index)
            if rank == 0:
                break
    return None if best is None else best[1]


def _rank(path: Path | None, training: set[Path]) -> int | None:
    if path is None:
        return 2
    if path.exists():
        return 0
    if path in training:
        return None
    return 1 if progress_files(path)[1].exists() else 2


def dispatch(todo: Sequence[RunSpec], slots: int, submit: Callable[[RunSpec], Handle],
             wait_any: Callable[[list[Handle], float | None], Iterable[Handle]],
             pending: dict[Handle, RunSpec]) -> Iterator[tuple[Handle, RunSpec]]:
    """Hand `todo` to a backend as its `slots` workers free up, each run `next_run` picks;
    yield every finished run's handle with its spec. `submit` starts a run; `wait_any`
    returns the handles that finished, waiting at most its timeout (None: until one does).
    `pending` holds the runs in flight, so the caller can cancel them if it stops early."""
    queue = list(todo)
    while queue or pending:
        while queue and len(pending) < slots:
            index = next_run(queue, pending.values())
            if index is None:  # every run left would wait for a pre-training in flight
                break
            spec = queue.pop(index)
            pending[submit(spec)] = spec
        idle = bool(queue) and len(pending) < slots
        for handle in wait_any(list(pending), RECHECK_SECONDS if idle else None):
            yield handle, pending.pop(handle)
