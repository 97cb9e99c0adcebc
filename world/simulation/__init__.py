"""The single-world simulator: numpy state, map layout (fixed or procedural), path
search, the step function, and trajectories that replay exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.world.simulation.trajectory import Recorder, Trajectory, replay
    from nesyworld.world.simulation.world import Outcome, Snapshot, World, run_actions

__getattr__, __all__ = lazy_exports(__name__, {
    "trajectory": ["Recorder", "Trajectory", "replay"],
    "world": ["Outcome", "Snapshot", "World", "run_actions"],
})
