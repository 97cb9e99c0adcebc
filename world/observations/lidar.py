"""Egocentric 8-beam "lidar" over an integer type grid.

The lidar is the main vector observation for learning agents, and it is computed on every env
step, so the work is split in two: everything that depends only on the grid *shape* (which
cells each beam crosses from each position, and how far away they are) is built once and
cached; a call then only gathers the types on those cells and reduces them.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["BEAM_DIRECTIONS", "N_BEAMS", "LidarReader", "lidar", "lidar_into",
           "lidar_space_bounds"]

N_BEAMS = 8

# Absolute (dr, dc) for compass index 0..7 = N, NE, E, SE, S, SW, W, NW (clockwise). Facing f
# (0=N, 1=E, 2=S, 3=W) is compass index 2*f, which is what makes the egocentric rotation a
# plain offset of the beam index.
BEAM_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
)


@functools.lru_cache(maxsize=32)
def beam_table(
    height: int, width: int, max_range: int | None
) -> tuple[NDArray[np.intp], NDArray[np.float32], NDArray[np.intp], tuple[int, ...]]:
    """Precompute, for every cell, the cells all 8 beams pass through.

    Stored CSR-style (one flat array plus per-position offsets) rather than padded to the
    longest beam: a centre cell on a 16x16 grid only has ~60 beam cells versus 8*15 padded, and
    the per-call cost is proportional to the number of elements touched. The egocentric beam
    index is stored for each of the 4 facings so a call needs no rotation step at all.

    Returns (cells, dists, ego_beam, offsets): for position p = r*W + c, its elements are
    ``offsets[p]:offsets[p+1]`` (plain ints, cheap to slice with); ``ego_beam[f, i]`` is the
    egocentric beam of element i when facing f.
    """
    limit = max(height, width) if max_range is None else min(max_range, max(height, width))
    steps = np.arange(1, max(limit, 0) + 1, dtype=np.int32)  # int32 halves the cubes
    dirs = np.asarray(BEAM_DIRECTIONS, dtype=np.int32)
    rows, cols = np.divmod(np.arange(height * width, dtype=np.int32), width)
    # (position, direction, step) cubes; C-order flattening then lists each position's beams
    # one after the other, nearest step first, which is exactly the CSR layout wanted.
    rr = rows[:, None, None] + dirs[None, :, 0, None] * steps[None, None, :]
    cc = cols[:, None, None] + dirs[None, :, 1, None] * steps[None, None, :]
    inside = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
    diagonal = (dirs[:, 0] != 0) & (dirs[:, 1] != 0)
    dist = steps[None, :] * np.where(diagonal, math.sqrt(2.0), 1.0)[:, None]
    shape = inside.shape
    all_cells = (rr * width + cc)[inside].astype(np.intp)
    all_dists = np.broadcast_to(dist[None], shape)[inside].astype(np.float32)
    all_dirs = np.broadcast_to(np.arange(N_BEAMS)[None, :, None], shape)[inside]
    offsets = np.zeros(height * width + 1, dtype=np.intp)
    offsets[1:] = np.cumsum(inside.sum(axis=(1, 2)))
    # Egocentric beam b looks along compass index (b + 2f) % 8, hence b = (d - 2f) % 8.
    ego_beam = np.stack([(all_dirs - 2 * f) % N_BEAMS for f in range(4)]).astype(np.intp)
    for arr in (all_cells, all_dists, ego_beam):
        arr.flags.writeable = False  # shared between callers through the cache
    return all_cells, all_dists, ego_beam, tuple(offsets.tolist())


def lidar(
    grid: NDArray[np.integer],
    pos: tuple[int, int],
    facing: int,
    n_types: int,
    max_range: int | None = None,
) -> NDArray[np.float32]:
    """Distance to the nearest cell of each type along 8 egocentric beams.

    Returns shape ``(n_types * 8,)``, index ``t * 8 + b``. There is no occlusion on purpose:
    a wall in front must not hide the ore behind it from the learner, and it keeps the value
    for each type independent of the others. 0 means "not seen on that beam" (a real hit is
    always at distance >= 1). Air is a type like any other so the vector length depends only
    on ``n_types``. The observer's own cell is never on a beam.
    """
    out = np.empty(n_types * N_BEAMS, dtype=np.float32)
    lidar_into(out, grid, pos, facing, max_range)
    return out


def lidar_into(
    out: NDArray[np.float32],
    grid: NDArray[np.integer],
    pos: tuple[int, int],
    facing: int,
    max_range: int | None = None,
) -> None:
    """`lidar` written into `out` (float32, length ``n_types * 8``, possibly a slice of a
    bigger observation buffer), so an env can fill its observation without temporaries."""
    height, width = grid.shape
    cells, dists, ego_beam, offsets = beam_table(height, width, max_range)
    p = int(pos[0]) * width + int(pos[1])
    lo, hi = offsets[p], offsets[p + 1]
    _reduce(out, grid.ravel()[cells[lo:hi]], ego_beam[facing & 3, lo:hi], dists[lo:hi])


class LidarReader:
    """`lidar` of one observer, step after step, kept in `out` (as `lidar_into`). A reading
    is redone only when what it is made of changed: the observer's cell or facing, or a type
    on one of its beams. Other agents mostly move off the observer's beams, so an env that
    reads every step redoes about four readings in ten."""

    def __init__(self, out: NDArray[np.float32], max_range: int | None = None) -> None:
        self.out = out
        self.max_range = max_range
        self._shape: tuple[int, ...] = ()
        self._table: tuple[Any, ...] = ()  # `beam_table` of that grid shape
        self._read: tuple[Any, ...] | None = None  # what `out` was made from

    def read(self, grid: NDArray[np.integer], pos: tuple[int, int], facing: int) -> None:
        if grid.shape != self._shape:
            self._shape, self._read = grid.shape, None
            self._table = beam_table(*grid.shape, self.max_range)
        cells, dists, ego_beam, offsets = self._table
        p = int(pos[0]) * grid.shape[1] + int(pos[1])
        lo, hi = offsets[p], offsets[p + 1]
        types = grid.ravel()[cells[lo:hi]]
        key = (p, facing & 3, types.dtype, types.tobytes())
        if key != self._read:
            self._read = None  # `out` is not what it was made from until this is done
            _reduce(self.out, types, ego_beam[facing & 3, lo:hi], dists[lo:hi])
            self._read = key


def _reduce(
    out: NDArray[np.float32], types: NDArray[np.integer], beams: NDArray[np.intp],
    dists: NDArray[np.float32],
) -> None:
    """The nearest distance of each (type, beam) pair among a position's beam cells."""
    keys = np.multiply(types, N_BEAMS, dtype=np.intp)
    keys += beams
    out.fill(np.inf)
    # ufunc.at is unbuffered, so repeated keys (several cells of one type on a beam) reduce
    # correctly; plain fancy assignment makes no ordering promise for duplicates.
    np.minimum.at(out, keys, dists)
    out[np.isinf(out)] = 0.0  # distances are finite and positive: inf is "not seen"


def lidar_space_bounds(
    n_types: int, height: int, width: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Box bounds for the lidar vector, sized so no reading on this grid can exceed them.

    The longest reading is a diagonal beam corner to corner: ``(min(H, W) - 1) * sqrt(2)``,
    but a straight beam can reach ``max(H, W) - 1``, so the bound is the larger of the two
    (at least 1 so the box is never degenerate).
    """
    longest = max(
        (min(height, width) - 1) * math.sqrt(2.0),
        float(max(height, width) - 1),
        1.0,
    )
    shape = (n_types * N_BEAMS,)
    low = np.zeros(shape, dtype=np.float32)
    # Same float64 -> float32 rounding as the readings themselves, so the bound is attained.
    high = np.full(shape, longest, dtype=np.float32)
    return low, high
