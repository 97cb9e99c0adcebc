"""Observations, all in one place: the pure-numpy views and renderings of a gridworld state
(LiDAR, local view, ASCII, RGB, scent), the builder that turns a world into an env's
observation space and values, and observation noise.

The views work on the plain state layout (an integer type grid plus agent poses) and import
nothing from the simulator, so envs, learners and notebooks can share them freely.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports
from nesyworld.world.observations.ascii_view import FACING_ARROWS, render_ascii
from nesyworld.world.observations.lidar import BEAM_DIRECTIONS, N_BEAMS, lidar, lidar_space_bounds
from nesyworld.world.observations.local_view import local_view
from nesyworld.world.observations.rgb_view import NAMED_COLORS, default_palette, render_rgb

if TYPE_CHECKING:
    from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig

# The env-facing builder reads the batched core's LiDAR tables, so it loads on first use and
# the pure views above stay free of the simulator.
__getattr__, _lazy_names = lazy_exports(__name__, {
    "builder": ["ObservationBuilder", "ObservationConfig"],
})

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
    *_lazy_names,
]

