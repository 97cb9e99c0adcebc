"""Plain-text rendering for terminals, logs and doctest-style expectations."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["FACING_ARROWS", "render_ascii"]

# Indexed by facing: 0=north, 1=east, 2=south, 3=west.
FACING_ARROWS: tuple[str, str, str, str] = ("^", ">", "v", "<")


def render_ascii(
    grid: NDArray[np.integer],
    glyphs: Sequence[str],
    agents: Sequence[tuple[int, int, int]],
) -> str:
    """Draw the grid one text line per row, agents as facing arrows.

    Agents are also in the grid under their own type glyph, but which way an agent faces is
    the thing a reader most needs when debugging a trace, so arrows replace those glyphs.
    No trailing newline, so the result can be compared or embedded without stripping.
    """
    bad = [g for g in glyphs if len(g) != 1]
    if bad:
        # A wider glyph would silently shift every later column of the row.
        raise ValueError(f"glyphs must be single characters, got {bad!r}")
    lut = np.asarray(list(glyphs), dtype="<U1")
    chars = lut[np.asarray(grid)]
    for row, col, facing in agents:
        chars[row, col] = FACING_ARROWS[facing & 3]
    return "\n".join("".join(line) for line in chars.tolist())
