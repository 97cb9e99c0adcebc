"""Pure-numpy observations and renderings of a gridworld state.

Everything here works on the plain state layout (an integer type grid plus agent poses) and
imports nothing from the simulator, so envs, learners and notebooks can share it freely.
"""

from .ascii_view import FACING_ARROWS, render_ascii
from .lidar import BEAM_DIRECTIONS, N_BEAMS, lidar, lidar_space_bounds
from .local_view import local_view
from .rgb_view import NAMED_COLORS, default_palette, render_rgb

__all__ = [
    "BEAM_DIRECTIONS",
    "FACING_ARROWS",
    "NAMED_COLORS",
    "N_BEAMS",
    "default_palette",
    "lidar",
    "lidar_space_bounds",
    "local_view",
    "render_ascii",
    "render_rgb",
]
