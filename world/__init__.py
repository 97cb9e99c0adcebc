"""nesyworld.world: the YAML-configured gridworld simulator.

The public API is small: load a spec, build a World, step it, or use the Gymnasium/PettingZoo
envs in `nesyworld.world.envs`. Extend it by registering classes in the three registries.
"""

from nesyworld.world.actions.base import Action, GroundedAction
from nesyworld.world.controllers import Controller
from nesyworld.world.entities import EntityClass
from nesyworld.world.errors import ActionRefused, Location, SpecError
from nesyworld.world.registry import ACTIONS, CONTROLLERS, ENTITIES, Registry
from nesyworld.world.spec import WorldSpec
from nesyworld.world.spec_loader import load_spec
from nesyworld.world.trajectory import Recorder, Trajectory, replay
from nesyworld.world.world import Outcome, Snapshot, World, run_actions

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
