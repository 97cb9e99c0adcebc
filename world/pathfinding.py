"""Breadth-first search on the grid, for the approach action and NPC controllers."""

from __future__ import annotations

from collections import deque

import numpy as np

from nesyworld.world.state import DIRECTIONS


def path_to_adjacent(
    passable: np.ndarray, start: tuple[int, int], targets: np.ndarray
) -> tuple[list[tuple[int, int]], int] | None:
    """Shortest path from `start` to a cell 4-adjacent to any True cell of `targets`.

    Returns (cells after start, direction to face) or None when no target is reachable.
    Ties break by the fixed neighbour order N, E, S, W, so the result is deterministic.
    """
    h, w = passable.shape
    tgt = targets
    sr, sc = start
    for d, (dr, dc) in enumerate(DIRECTIONS):
        r, c = sr + dr, sc + dc
        if 0 <= r < h and 0 <= c < w and tgt[r, c]:
            return [], d
    flat_pass = passable.ravel().tolist()
    flat_tgt = tgt.ravel().tolist()
    prev = [-2] * (h * w)
    s = sr * w + sc
    prev[s] = -1
    queue = deque([s])
    offsets = ((-w, -1, 0), (1, 0, 1), (w, 1, 0), (-1, 0, -1))
    while queue:
        cur = queue.popleft()
        r, c = divmod(cur, w)
        for step, dr, dc in offsets:
            nr, nc = r + dr, c + dc
            if not (0 <= nr < h and 0 <= nc < w):
                continue
            nxt = cur + step
            if prev[nxt] != -2 or not flat_pass[nxt]:
                continue
            prev[nxt] = cur
            for d, (ar, ac) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
                tr, tc = nr + ar, nc + ac
                if 0 <= tr < h and 0 <= tc < w and flat_tgt[tr * w + tc]:
                    path = []
                    node = nxt
                    while node != s:
                        path.append(divmod(node, w))
                        node = prev[node]
                    path.reverse()
                    return path, d
            queue.append(nxt)
    return None


def reachable(passable: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """Cells reachable from start (start included) through passable cells."""
    h, w = passable.shape
    seen = np.zeros((h, w), bool)
    seen[start] = True
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and not seen[nr, nc] and passable[nr, nc]:
                seen[nr, nc] = True
                queue.append((nr, nc))
    return seen


def dilate4(mask: np.ndarray) -> np.ndarray:
    """Cells in or 4-adjacent to the mask."""
    out = mask.copy()
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out
