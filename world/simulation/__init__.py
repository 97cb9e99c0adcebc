"""The single-world simulator: numpy state, map layout (fixed or procedural), path
search, the step function, and trajectories that replay exactly.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.simulation.trajectory import Recorder, Trajectory, replay
    from nesyworld.world.simulation.world import Outcome, Snapshot, World, run_actions

_EXPORTS = {
    "Recorder": "trajectory",
    "Trajectory": "trajectory",
    "replay": "trajectory",
    "Outcome": "world",
    "Snapshot": "world",
    "World": "world",
    "run_actions": "world",
}
__all__ = [
    "Outcome", "Recorder", "Snapshot", "Trajectory", "World", "replay", "run_actions",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
