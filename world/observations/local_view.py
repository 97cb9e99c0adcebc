"""One-hot local window around an agent, optionally rotated into the agent's frame."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["local_view"]


def local_view(
    grid: NDArray[np.integer],
    pos: tuple[int, int],
    facing: int,
    size: int,
    n_types: int,
    egocentric: bool = True,
) -> NDArray[np.uint8]:
    """One-hot ``(n_types, size, size)`` window centred on ``pos``, for convolutional policies.

    Out-of-bounds convention: a cell outside the grid is an all-zero column (no channel set).
    That keeps "beyond the edge" distinguishable from every real type, air included, without
    spending an extra channel, so the channel count stays exactly ``n_types``.

    With ``egocentric`` the window is rotated so the agent faces "up": the cell in front is
    always ``[size // 2 - 1, size // 2]`` and its right-hand side is on the right. Policies
    then need not learn four rotated copies of every behaviour.
    """
    if size < 1 or size % 2 == 0:
        raise ValueError(f"local_view size must be a positive odd number, got {size}")
    height, width = grid.shape
    half = size // 2
    r0, c0 = int(pos[0]) - half, int(pos[1]) - half
    # Clip the window to the grid, remembering where the clipped part lands in the view.
    gr0, gr1 = max(r0, 0), min(r0 + size, height)
    gc0, gc1 = max(c0, 0), min(c0 + size, width)
    view = np.zeros((n_types, size, size), dtype=np.uint8)
    if gr0 < gr1 and gc0 < gc1:
        types = grid[gr0:gr1, gc0:gc1]
        vr, vc = np.indices(types.shape)
        view[types, vr + (gr0 - r0), vc + (gc0 - c0)] = 1
    if egocentric:
        # np.rot90 turns counter-clockwise as displayed (rows down): k=1 brings east to the
        # top, k=2 south, k=3 west -- i.e. k equals the facing index.
        view = np.ascontiguousarray(np.rot90(view, k=facing & 3, axes=(1, 2)))
    return view
