"""What a vector env's ``reset(seed=..., options=...)`` asks for, read once for every
batched env of the project (world/envs/vector_env.py, hybrid/recovery/batched_env.py): the
seed of each copy and which copies restart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["reset_request"]


def reset_request(num_envs: int, seed: int | Sequence[int | None] | None,
                  options: Mapping[str, Any] | None) -> tuple[list[int | None], np.ndarray]:
    """(each copy's seed or None, the indices of the copies to restart). Copy i of an int
    seed s gets s + i; a sequence gives one seed per copy; None continues each copy's
    stream. ``options={"reset_mask": mask}`` restarts only the copies where mask is True."""
    n = num_envs
    if seed is None:
        seeds: list[int | None] = [None] * n
    elif isinstance(seed, int | np.integer):
        seeds = [int(seed) + i for i in range(n)]
    else:
        seeds = list(seed)
        if len(seeds) != n:
            raise ValueError(f"{len(seeds)} seeds for {n} envs")
    which = np.ones(n, bool)
    if options and "reset_mask" in options:
        which = np.asarray(options["reset_mask"])
        if which.shape != (n,) or which.dtype != np.bool_:
            raise ValueError(f"reset_mask must be a bool array of shape ({n},), got "
                             f"{which.dtype} {which.shape}")
    return seeds, np.flatnonzero(which)
