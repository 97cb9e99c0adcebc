"""RGB rendering for videos, notebooks and gymnasium's ``rgb_array`` render mode."""

from __future__ import annotations

import colorsys
import functools
import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["NAMED_COLORS", "default_palette", "render_rgb", "type_colors"]

# Hand-picked colours for the common types, so figures look the same across domains and are
# readable; anything else gets a stable hashed colour.
NAMED_COLORS: dict[str, tuple[int, int, int]] = {
    "air": (235, 235, 230),
    "bedrock": (60, 60, 60),
    "wall": (70, 70, 70),
    "oak_log": (125, 85, 45),
    "diamond_ore": (60, 215, 215),
    "block_of_platinum": (175, 190, 215),
    "crafting_table": (170, 110, 55),
    "trader": (45, 165, 70),
    "pogoist": (210, 45, 45),
    "agent": (45, 85, 220),
    "player": (45, 85, 220),
    "door": (230, 200, 40),
    "water_bucket": (35, 115, 235),
    "fence": (205, 175, 130),
}

_GRID_LINE_SHADE = 0.6  # multiplier for the tile border, dark enough to separate equal tiles
_MIN_TILE_FOR_LINES = 4  # below this a border would eat most of the tile


def _hashed_color(name: str) -> tuple[int, int, int]:
    """Colour from md5 of the name: Python's ``hash()`` is salted per process, md5 is not."""
    digest = hashlib.md5(name.encode("utf-8")).digest()
    hue = int.from_bytes(digest[0:2], "big") / 65536.0
    sat = 0.45 + 0.4 * digest[2] / 255.0
    val = 0.6 + 0.3 * digest[3] / 255.0
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return round(r * 255), round(g * 255), round(b * 255)


def default_palette(names: Sequence[str]) -> NDArray[np.uint8]:
    """Deterministic ``(n, 3)`` uint8 colours, index-aligned with the type ids in ``names``."""
    return np.array(
        [NAMED_COLORS[n] if n in NAMED_COLORS else _hashed_color(n) for n in names],
        dtype=np.uint8,
    ).reshape(len(names), 3)


def type_colors(names: Sequence[str],
                colors: Sequence[Sequence[int] | None] | None = None) -> list[tuple[int, int, int]]:
    """The colour each type is drawn in, as (r, g, b): the spec's own colour where `colors`
    gives one, the shared default palette elsewhere. Other views (the studio) draw tiles from
    this, so a map looks the same in a figure and in the browser."""
    base = default_palette(names)
    given = list(colors) if colors is not None else [None] * len(names)
    return [tuple(int(v) for v in (c if c else base[i]))  # type: ignore[misc]
            for i, c in enumerate(given)]


@functools.lru_cache(maxsize=16)
def _facing_masks(tile: int) -> tuple[NDArray[np.bool_], ...]:
    """Per-facing boolean tile masks of a triangle pointing that way.

    The triangle stays strictly inside the half of the tile it points to, so the facing is
    readable even in a still frame (the opposite half keeps the plain type colour).
    """
    centre = (tile - 1) / 2.0
    apex = tile // 8
    base = max(tile // 2 - 1, apex)
    ys, xs = np.indices((tile, tile), dtype=np.float64)
    half_width = (ys - apex) * 0.6
    north = (ys >= apex) & (ys <= base) & (np.abs(xs - centre) <= half_width + 0.5)
    # rot90 turns counter-clockwise, so facing f (clockwise from north) is k = -f.
    masks = tuple(np.ascontiguousarray(np.rot90(north, k=-f)) for f in range(4))
    for m in masks:
        m.flags.writeable = False
    return masks


def _contrast(color: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Near-black on light tiles, near-white on dark ones (Rec. 601 luma)."""
    luma = 0.299 * float(color[0]) + 0.587 * float(color[1]) + 0.114 * float(color[2])
    return np.array((20, 20, 20) if luma > 140 else (250, 250, 250), dtype=np.uint8)


def render_rgb(
    grid: NDArray[np.integer],
    colors: NDArray[np.uint8],
    agents: Sequence[tuple[int, int, int]],
    tile: int = 16,
) -> NDArray[np.uint8]:
    """Render to an ``(H * tile, W * tile, 3)`` uint8 image.

    Cells are filled by type colour in one vectorised pass; each tile's bottom and right
    pixel rows are darkened into a grid line so adjacent equal cells stay countable. Agents
    (already coloured by their type) get a triangle in a contrasting colour on the side they
    face, because the type colour alone cannot show orientation.
    """
    if tile < 1:
        raise ValueError(f"tile must be >= 1, got {tile}")
    colors = np.asarray(colors, dtype=np.uint8)
    cells = colors[np.asarray(grid)]  # (H, W, 3)
    image = np.repeat(np.repeat(cells, tile, axis=0), tile, axis=1)
    if tile >= _MIN_TILE_FOR_LINES:
        # View as (H, tile, W, tile, 3) so each tile's border is a plain slice; the right
        # column skips the bottom pixel so the corner is not darkened twice.
        tiles = image.reshape(cells.shape[0], tile, cells.shape[1], tile, 3)
        tiles[:, -1] = (tiles[:, -1] * _GRID_LINE_SHADE).astype(np.uint8)
        tiles[:, :-1, :, -1] = (tiles[:, :-1, :, -1] * _GRID_LINE_SHADE).astype(np.uint8)
    masks = _facing_masks(tile)
    for row, col, facing in agents:
        block = image[row * tile : (row + 1) * tile, col * tile : (col + 1) * tile]
        block[masks[facing & 3]] = _contrast(cells[row, col])
    return image
