"""Tests for the pure-numpy observation and rendering functions."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import timeit

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.world.observations import (
    default_palette,
    lidar,
    lidar_space_bounds,
    local_view,
    render_ascii,
    render_rgb,
)

SQRT2 = math.sqrt(2.0)
AIR, AGENT, ORE = 0, 1, 2


# --------------------------------------------------------------------------- references


def _beam_step(facing: int, beam: int) -> tuple[int, int]:
    """Grid step of an egocentric beam, derived from angles rather than a lookup table."""
    theta = math.radians(90 * facing + 45 * beam)  # clockwise from north
    return -round(math.cos(theta)), round(math.sin(theta))


def naive_lidar(grid, pos, facing, n_types, max_range=None):
    out = np.zeros(n_types * 8, dtype=np.float32)
    height, width = grid.shape
    for beam in range(8):
        dr, dc = _beam_step(facing, beam)
        scale = SQRT2 if dr and dc else 1.0
        k = 1
        while max_range is None or k <= max_range:
            r, c = pos[0] + dr * k, pos[1] + dc * k
            if not (0 <= r < height and 0 <= c < width):
                break
            t = int(grid[r, c])
            if out[t * 8 + beam] == 0:
                out[t * 8 + beam] = k * scale
            k += 1
    return out


def naive_local_view(grid, pos, facing, size, n_types, egocentric=True):
    forward = [(-1, 0), (0, 1), (1, 0), (0, -1)][facing if egocentric else 0]
    right = (forward[1], -forward[0])
    half = size // 2
    view = np.zeros((n_types, size, size), dtype=np.uint8)
    for i in range(size):
        for j in range(size):
            ahead, side = half - i, j - half
            r = pos[0] + ahead * forward[0] + side * right[0]
            c = pos[1] + ahead * forward[1] + side * right[1]
            if 0 <= r < grid.shape[0] and 0 <= c < grid.shape[1]:
                view[grid[r, c], i, j] = 1
    return view


@st.composite
def states(draw, max_side=12):
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    n_types = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    grid = np.random.default_rng(seed).integers(0, n_types, (height, width)).astype(np.int16)
    pos = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    facing = draw(st.integers(0, 3))
    return grid, pos, facing, n_types


def _empty_with_agent(side=7, n_types=3):
    grid = np.zeros((side, side), dtype=np.int16)
    centre = (side // 2, side // 2)
    grid[centre] = AGENT
    return grid, centre, n_types


# --------------------------------------------------------------------------- lidar


@settings(max_examples=300, deadline=None)
@given(states(), st.one_of(st.none(), st.integers(0, 13)))
def test_lidar_matches_naive_reference(state, max_range):
    grid, pos, facing, n_types = state
    got = lidar(grid, pos, facing, n_types, max_range=max_range)
    assert got.dtype == np.float32
    assert got.shape == (n_types * 8,)
    np.testing.assert_array_equal(got, naive_lidar(grid, pos, facing, n_types, max_range))


def test_lidar_straight_and_diagonal_hits():
    grid, (r, c), n_types = _empty_with_agent()
    grid[r - 3, c] = ORE
    out = lidar(grid, (r, c), 0, n_types)
    assert out[ORE * 8 + 0] == 3.0
    assert np.count_nonzero(out[ORE * 8 : ORE * 8 + 8]) == 1

    grid, (r, c), n_types = _empty_with_agent()
    grid[r - 2, c + 2] = ORE  # two diagonal steps front-right when facing north
    out = lidar(grid, (r, c), 0, n_types)
    assert out[ORE * 8 + 1] == np.float32(2 * SQRT2)
    assert np.count_nonzero(out[ORE * 8 : ORE * 8 + 8]) == 1


@pytest.mark.parametrize(("facing", "beam"), [(0, 0), (1, 6), (2, 4), (3, 2)])
def test_lidar_reading_moves_with_facing(facing, beam):
    # The ore is north of the agent: ahead, to the left, behind, to the right.
    grid, (r, c), n_types = _empty_with_agent()
    grid[r - 3, c] = ORE
    ore = lidar(grid, (r, c), facing, n_types)[ORE * 8 : ORE * 8 + 8]
    expected = np.zeros(8, dtype=np.float32)
    expected[beam] = 3.0
    np.testing.assert_array_equal(ore, expected)


@pytest.mark.parametrize("facing", range(4))
def test_lidar_object_in_front_is_beam_zero_for_every_facing(facing):
    grid, (r, c), n_types = _empty_with_agent()
    dr, dc = [(-1, 0), (0, 1), (1, 0), (0, -1)][facing]
    grid[r + 2 * dr, c + 2 * dc] = ORE
    out = lidar(grid, (r, c), facing, n_types)
    assert out[ORE * 8 + 0] == 2.0


def test_lidar_nearest_wins_air_counts_and_self_is_invisible():
    grid, (r, c), n_types = _empty_with_agent()
    grid[r - 3, c] = ORE
    grid[r - 1, c] = ORE  # nearer one hides nothing but sets the minimum
    out = lidar(grid, (r, c), 0, n_types).reshape(n_types, 8)
    assert out[ORE, 0] == 1.0
    assert out[AIR, 0] == 2.0  # first air cell is between the two ores
    assert out[AIR, 4] == 1.0  # air right behind
    assert np.all(out[AGENT] == 0.0)  # the observer's own cell is not on any beam


def test_lidar_max_range_cuts():
    grid, (r, c), n_types = _empty_with_agent()
    grid[r - 3, c] = ORE
    assert lidar(grid, (r, c), 0, n_types, max_range=2)[ORE * 8] == 0.0
    assert lidar(grid, (r, c), 0, n_types, max_range=3)[ORE * 8] == 3.0
    assert np.all(lidar(grid, (r, c), 0, n_types, max_range=0) == 0.0)


def test_lidar_length_depends_only_on_n_types():
    grid = np.zeros((4, 5), dtype=np.int16)
    assert lidar(grid, (0, 0), 0, 11).shape == (88,)


@settings(max_examples=100, deadline=None)
@given(states())
def test_lidar_readings_within_space_bounds(state):
    grid, pos, facing, n_types = state
    low, high = lidar_space_bounds(n_types, *grid.shape)
    assert low.dtype == high.dtype == np.float32
    assert low.shape == high.shape == (n_types * 8,)
    out = lidar(grid, pos, facing, n_types)
    assert np.all(out >= low) and np.all(out <= high)


def test_lidar_space_bounds_are_tight():
    grid = np.zeros((6, 6), dtype=np.int16)
    grid[0, 5] = 1
    _, high = lidar_space_bounds(2, 6, 6)
    corner_diag = lidar(grid, (5, 0), 0, 2)[1 * 8 + 1]  # north-east across the whole grid
    assert corner_diag == high[0] == np.float32(5 * SQRT2)
    # A long thin grid reaches further straight than diagonally.
    _, high = lidar_space_bounds(2, 2, 10)
    assert high[0] == 9.0


def test_lidar_speed_vs_naive():
    rng = np.random.default_rng(0)
    n_types = 30
    grid = rng.integers(0, n_types, (16, 16)).astype(np.int16)
    args = (grid, (8, 8), 1, n_types)
    np.testing.assert_array_equal(lidar(*args), naive_lidar(*args))
    fast = min(timeit.repeat(lambda: lidar(*args), number=2000, repeat=3)) / 2000
    slow = min(timeit.repeat(lambda: naive_lidar(*args), number=50, repeat=3)) / 50
    print(f"\nlidar 16x16, {n_types} types: {fast * 1e6:.2f} us/call (naive {slow * 1e6:.1f} us)")
    assert fast < slow


# --------------------------------------------------------------------------- local view


@settings(max_examples=200, deadline=None)
@given(states(), st.sampled_from([1, 3, 5, 7]), st.booleans())
def test_local_view_matches_naive_reference(state, size, egocentric):
    grid, pos, facing, n_types = state
    got = local_view(grid, pos, facing, size, n_types, egocentric=egocentric)
    assert got.dtype == np.uint8
    assert got.shape == (n_types, size, size)
    np.testing.assert_array_equal(
        got, naive_local_view(grid, pos, facing, size, n_types, egocentric)
    )


@pytest.mark.parametrize("egocentric", [True, False])
@pytest.mark.parametrize("facing", range(4))
def test_local_view_one_hot_and_out_of_bounds(facing, egocentric):
    grid = np.arange(12, dtype=np.int16).reshape(3, 4) % 5
    view = local_view(grid, (0, 0), facing, 5, 5, egocentric=egocentric)
    sums = view.sum(axis=0)
    assert set(np.unique(sums)) <= {0, 1}
    # From the corner (0, 0) a 5x5 window covers rows/cols -2..2: 3x3 are in-grid.
    assert int(sums.sum()) == 9
    if not egocentric:
        assert np.all(sums[:2, :] == 0) and np.all(sums[:, :2] == 0)
        np.testing.assert_array_equal(view[:, 2:, 2:].argmax(axis=0), grid[:3, :3])


@pytest.mark.parametrize("facing", range(4))
def test_local_view_egocentric_front_and_right(facing):
    grid, (r, c), n_types = _empty_with_agent()
    forward = [(-1, 0), (0, 1), (1, 0), (0, -1)][facing]
    right = (forward[1], -forward[0])
    grid[r + forward[0], c + forward[1]] = ORE
    grid[r + 2 * right[0], c + 2 * right[1]] = ORE
    view = local_view(grid, (r, c), facing, 5, n_types)
    centre = 2
    assert view[ORE, centre - 1, centre] == 1
    assert view[ORE, centre, centre + 2] == 1  # right stays right, no mirroring
    assert view[AGENT, centre, centre] == 1
    assert view[ORE].sum() == 2


def test_local_view_rejects_even_size():
    with pytest.raises(ValueError):
        local_view(np.zeros((3, 3), dtype=np.int16), (1, 1), 0, 4, 1)


# --------------------------------------------------------------------------- ascii


def test_render_ascii_known_grid():
    grid = np.array(
        [
            [1, 1, 1, 1],
            [1, 2, 0, 1],
            [1, 0, 3, 1],
        ],
        dtype=np.int16,
    )
    text = render_ascii(grid, [".", "#", "@", "T"], [(1, 1, 1), (2, 2, 3)])
    assert text == "####\n#>.#\n#.<#"


def test_render_ascii_all_arrows_and_no_agents():
    grid = np.zeros((1, 4), dtype=np.int16)
    glyphs = ["."]
    assert render_ascii(grid, glyphs, []) == "...."
    agents = [(0, i, i) for i in range(4)]
    assert render_ascii(grid, glyphs, agents) == "^>v<"


def test_render_ascii_rejects_wide_glyphs():
    with pytest.raises(ValueError):
        render_ascii(np.zeros((1, 1), dtype=np.int16), [".."], [])


# --------------------------------------------------------------------------- rgb


def test_render_rgb_shape_dtype_and_fill():
    grid = np.array([[0, 1, 2], [2, 1, 0]], dtype=np.int16)
    colors = default_palette(["air", "wall", "oak_log"])
    tile = 8
    image = render_rgb(grid, colors, [], tile=tile)
    assert image.shape == (2 * tile, 3 * tile, 3)
    assert image.dtype == np.uint8
    for (r, c), t in np.ndenumerate(grid):
        np.testing.assert_array_equal(image[r * tile + 2, c * tile + 2], colors[t])
        # The tile border is a darker grid line.
        assert image[r * tile + tile - 1, c * tile + 2].sum() < colors[t].astype(int).sum()


@pytest.mark.parametrize("tile", [5, 16])
@pytest.mark.parametrize("facing", range(4))
def test_render_rgb_agent_facing_side_differs(facing, tile):
    grid = np.zeros((3, 3), dtype=np.int16)
    grid[1, 1] = 1
    colors = default_palette(["air", "agent"])
    image = render_rgb(grid, colors, [(1, 1, facing)], tile=tile)
    block = image[tile : 2 * tile, tile : 2 * tile].astype(int)
    mid, quarter = (tile - 1) // 2, tile // 4
    near, far = quarter, tile - 1 - quarter  # mirror images inside the tile
    front, back = {
        0: ((near, mid), (far, mid)),
        1: ((mid, far), (mid, near)),
        2: ((far, mid), (near, mid)),
        3: ((mid, near), (mid, far)),
    }[facing]
    assert not np.array_equal(block[front], block[back])
    np.testing.assert_array_equal(block[back], colors[1])
    # The marker is only in the agent's tile; neighbours keep their colour.
    np.testing.assert_array_equal(image[2, 2], colors[0])


def test_default_palette_known_names_and_determinism():
    names = ["air", "bedrock", "diamond_ore", "agent", "mystery_block", "another_thing"]
    first = default_palette(names)
    assert first.shape == (len(names), 3)
    assert first.dtype == np.uint8
    np.testing.assert_array_equal(first, default_palette(names))
    assert first[0].min() > 200  # air is white-ish
    assert first[1].max() < 100  # bedrock is dark
    assert len({tuple(row) for row in first}) == len(names)
    # Same colours in a fresh interpreter with a different str-hash salt.
    code = (
        "from nesyworld.world.observations import default_palette;"
        f"print(default_palette({names!r}).tolist())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert result.stdout.strip() == str(first.tolist())
