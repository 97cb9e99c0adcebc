"""nesyworld.world: the YAML-configured gridworld simulator.

The public API is small: load a spec, build a World, step it, or use the Gymnasium/PettingZoo
envs in `nesyworld.world.envs`. Extend it by registering classes in the three registries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

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

__getattr__, __all__ = lazy_exports(__name__, {
    "actions.base": ["Action", "GroundedAction"],
    "entities.classes": ["EntityClass"],
    "entities.controllers": ["Controller"],
    "errors": ["ActionRefused", "Location", "SpecError"],
    "registry": ["ACTIONS", "CONTROLLERS", "ENTITIES", "Registry"],
    "simulation.trajectory": ["Recorder", "Trajectory", "replay"],
    "simulation.world": ["Outcome", "Snapshot", "World", "run_actions"],
    "spec.loader": ["load_spec"],
    "spec.model": ["WorldSpec"],
})
