"""Breadth-first search on the grid, in its plain readable form.

The approach action runs a faster flat-list version (`actions/movement.py`); the tests check
it against `path_to_adjacent` and `reachable` here, which stay as the reference. `dilate4` and
`label_regions` stay as the reference the tests check the faster region code against.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from nesyworld.world.simulation.state import DIRECTIONS


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


def label_regions(walk: np.ndarray) -> tuple[np.ndarray, int]:
    """4-connected components of `walk`, numbered in row-major order of their first cell
    (-1 elsewhere), and their count.

    Works on horizontal runs of walkable cells, joined by union-find where runs of adjacent
    rows overlap: a few dozen runs instead of a flood fill over every cell, because this runs
    after every reset and every map change.
    """
    h, w = walk.shape
    pad = np.zeros((h, w + 2), np.int8)
    pad[:, 1:-1] = walk
    edges = np.diff(pad, axis=1)
    rows_a, starts_a = np.nonzero(edges == 1)  # row-major order, so runs come sorted
    ends_a = np.nonzero(edges == -1)[1]
    rows, starts, ends = rows_a.tolist(), starts_a.tolist(), ends_a.tolist()
    n = len(rows)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    prev_lo = prev_hi = i = 0
    while i < n:
        j = i
        while j < n and rows[j] == rows[i]:
            j += 1
        if prev_hi > prev_lo and rows[prev_lo] == rows[i] - 1:
            a, b = prev_lo, i
            while a < prev_hi and b < j:  # merge the two sorted run lists
                if starts[a] < ends[b] and starts[b] < ends[a]:
                    ra, rb = find(a), find(b)
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)
                if ends[a] < ends[b]:
                    a += 1
                else:
                    b += 1
        prev_lo, prev_hi, i = i, j, j
    number: dict[int, int] = {}
    run_labels = [number.setdefault(find(k), len(number)) for k in range(n)]
    labels = np.full((h, w), -1, np.int32)
    # walkable cells in row-major order are exactly the runs, one after the other
    labels[walk] = np.repeat(np.array(run_labels, np.int32), ends_a - starts_a)
    return labels, len(number)
