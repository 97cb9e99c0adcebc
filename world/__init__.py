"""nesyworld.world: the YAML-configured gridworld simulator.

The public API is small: load a spec, build a World, step it, or use the Gymnasium/PettingZoo
envs in `nesyworld.world.envs`. Extend it by registering classes in the three registries.

The names below load on first use, so that importing this package stays cheap and its
subpackages can import each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.actions.base import Action, GroundedAction
    from nesyworld.world.entities.classes import EntityClass
    from nesyworld.world.entities.controllers import Controller
    from nesyworld.world.errors import ActionRefused, Location, SpecError
    from nesyworld.world.registry import ACTIONS, CONTROLLERS, ENTITIES, Registry
    from nesyworld.world.simulation.trajectory import Recorder, Trajectory, replay
    from nesyworld.world.simulation.world import Outcome, Snapshot, World, run_actions
    from nesyworld.world.spec.loader import load_spec
    from nesyworld.world.spec.model import WorldSpec

_EXPORTS = {
    "Action": "nesyworld.world.actions.base",
    "GroundedAction": "nesyworld.world.actions.base",
    "EntityClass": "nesyworld.world.entities.classes",
    "Controller": "nesyworld.world.entities.controllers",
    "ActionRefused": "nesyworld.world.errors",
    "Location": "nesyworld.world.errors",
    "SpecError": "nesyworld.world.errors",
    "ACTIONS": "nesyworld.world.registry",
    "CONTROLLERS": "nesyworld.world.registry",
    "ENTITIES": "nesyworld.world.registry",
    "Registry": "nesyworld.world.registry",
    "Recorder": "nesyworld.world.simulation.trajectory",
    "Trajectory": "nesyworld.world.simulation.trajectory",
    "replay": "nesyworld.world.simulation.trajectory",
    "Outcome": "nesyworld.world.simulation.world",
    "Snapshot": "nesyworld.world.simulation.world",
    "World": "nesyworld.world.simulation.world",
    "run_actions": "nesyworld.world.simulation.world",
    "load_spec": "nesyworld.world.spec.loader",
    "WorldSpec": "nesyworld.world.spec.model",
}
__all__ = [
    "ACTIONS",
    "CONTROLLERS",
    "ENTITIES",
    "Action",
    "ActionRefused",
    "Controller",
    "EntityClass",
    "GroundedAction",
    "Location",
    "Outcome",
    "Recorder",
    "Registry",
    "Snapshot",
    "SpecError",
    "Trajectory",
    "World",
    "WorldSpec",
    "load_spec",
    "replay",
    "run_actions",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
