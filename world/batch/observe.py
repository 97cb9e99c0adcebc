"""The LiDAR observation compiled: of N worlds into one preallocated (N, 10T) buffer, or of
one `World`'s state (what `NesyGridEnv` uses when numba is there).

The layout is `NesyGridEnv`'s "lidar" kind: 8 egocentric beams per type (distance to the
nearest thing of that type, 0 for none), the inventory clipped to the cap, the selected item
one-hot. The beam table is `observations.lidar`'s, so all of them read the same cells.
"""

from __future__ import annotations

import functools

import numpy as np

from nesyworld.world.batch.views import state_views
from nesyworld.world.kernels.jit import njit, unmanaged
from nesyworld.world.observations.lidar import beam_table

N_BEAMS = 8


@functools.lru_cache(maxsize=32)
def beam_arrays(h: int, w: int, max_range: int | None) -> tuple[np.ndarray, ...]:
    """`observations.lidar`'s beam table as the kernels take it: (cells, dists, ego,
    offsets), all C-contiguous arrays (the table keeps its offsets as a tuple)."""
    cells, dists, ego, offsets = beam_table(h, w, max_range)
    return tuple(np.ascontiguousarray(a) for a in (cells, dists, ego,
                                                   np.asarray(offsets, np.int64)))


@njit(inline=True)
def lidar_row(row: np.ndarray, grid: np.ndarray, p: int, f: int, inv: np.ndarray, held: int,
              cells: np.ndarray, dists: np.ndarray, ego: np.ndarray, offsets: np.ndarray,
              n_types: int, cap: int) -> None:
    """One observation: `grid` flat, the observer in cell p facing f, `inv` its inventory."""
    n_beams = n_types * N_BEAMS
    row[:] = 0.0  # 0: nothing on that beam (every real distance is at least 1)
    for e in range(offsets[p], offsets[p + 1]):
        k = grid[cells[e]] * N_BEAMS + ego[f, e]
        if row[k] == 0.0 or dists[e] < row[k]:
            row[k] = dists[e]
    for t in range(n_types):
        row[n_beams + t] = min(inv[t], cap)
    row[n_beams + n_types + held] = 1.0


@njit
def lidar_worlds(S: tuple, agent: int, w: int, cells: np.ndarray, dists: np.ndarray,
                 ego: np.ndarray, offsets: np.ndarray, n_types: int, cap: int,
                 out: np.ndarray, envs: np.ndarray) -> None:
    """out[n]: `agent`'s observation of world n, for the worlds `envs` (the others' rows
    are left as they are: a partial reset observes only the worlds it restarted)."""
    grid, pos, facing, _, inv, sel, _, _, _, _, _, _, _, _ = state_views(S)
    cells, dists, ego, offsets = unmanaged(cells), unmanaged(dists), unmanaged(ego), \
        unmanaged(offsets)
    for i in range(envs.shape[0]):
        n = envs[i]
        lidar_row(out[n], grid[n], pos[n, agent, 0] * w + pos[n, agent, 1],
                  facing[n, agent] & 3, inv[n, agent], sel[n, agent], cells, dists, ego,
                  offsets, n_types, cap)


@njit
def lidar_world(grid: np.ndarray, pos: np.ndarray, facing: np.ndarray, inv: np.ndarray,
                sel: np.ndarray, agent: int, cells: np.ndarray, dists: np.ndarray,
                ego: np.ndarray, offsets: np.ndarray, n_types: int, cap: int,
                out: np.ndarray) -> None:
    """`agent`'s observation of one world's state (`grid` of shape (H, W), C order)."""
    w = grid.shape[1]
    lidar_row(out, grid.reshape(grid.size), pos[agent, 0] * w + pos[agent, 1],
              facing[agent] & 3, inv[agent], sel[agent], cells, dists, ego, offsets, n_types,
              cap)
