"""The LiDAR observation of N worlds, written into one preallocated (N, 10T) buffer.

The layout is `NesyGridEnv`'s "lidar" kind: 8 egocentric beams per type (distance to the
nearest thing of that type, 0 for none), the inventory clipped to the cap, the selected item
one-hot. The beam table is `observations.lidar`'s, so both read the same cells.
"""

from __future__ import annotations

import numpy as np

from nesyworld.world.batch.views import state_views
from nesyworld.world.kernels.jit import njit, unmanaged

N_BEAMS = 8


@njit
def lidar_worlds(S: tuple, agent: int, w: int, cells: np.ndarray, dists: np.ndarray,  # type: ignore[type-arg]
                 ego: np.ndarray, offsets: np.ndarray, n_types: int, cap: int,
                 out: np.ndarray) -> None:
    grid, pos, facing, _, inv, sel, _, _, _, _, _, _, _, _ = state_views(S)
    cells, dists, ego, offsets = unmanaged(cells), unmanaged(dists), unmanaged(ego), \
        unmanaged(offsets)
    n_beams = n_types * N_BEAMS
    for n in range(out.shape[0]):
        row = out[n]
        row[:] = 0.0  # 0: nothing on that beam (every real distance is at least 1)
        p = pos[n, agent, 0] * w + pos[n, agent, 1]
        f = facing[n, agent] & 3
        for e in range(offsets[p], offsets[p + 1]):
            k = grid[n, cells[e]] * N_BEAMS + ego[f, e]
            if row[k] == 0.0 or dists[e] < row[k]:
                row[k] = dists[e]
        for t in range(n_types):
            row[n_beams + t] = min(inv[n, agent, t], cap)
        row[n_beams + n_types + sel[n, agent]] = 1.0
