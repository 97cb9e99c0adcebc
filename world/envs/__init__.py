"""Gymnasium and PettingZoo envs over a nesyworld `World`: the single-agent env, the native
vector env, the AEC and parallel multi-agent envs, and their reward wrappers.

Importing this package registers a gymnasium id for every shipped spec
(``nesyworld/Pogostick-v0``, ...; see nesyworld.domains.registration), as ``import nesyworld``
does. The env classes load on first use, so registering costs no spec loading and no
compiled kernels.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from nesyworld.domains.registration import ENV_SPECS, env_id, register_envs

if TYPE_CHECKING:
    from nesyworld.world.envs.aec_env import NesyGridAEC, make_aec
    from nesyworld.world.envs.gym_env import NesyGridEnv
    from nesyworld.world.envs.parallel_env import NesyGridParallel
    from nesyworld.world.envs.vector_env import NesyVectorEnv
    from nesyworld.world.novelty.injection import NoveltyInjector
    from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig

_EXPORTS = {
    "NesyGridAEC": "nesyworld.world.envs.aec_env",
    "make_aec": "nesyworld.world.envs.aec_env",
    "NesyGridEnv": "nesyworld.world.envs.gym_env",
    "NesyGridParallel": "nesyworld.world.envs.parallel_env",
    "NesyVectorEnv": "nesyworld.world.envs.vector_env",
    "NoveltyInjector": "nesyworld.world.novelty.injection",
    "ObservationBuilder": "nesyworld.world.observations.builder",
    "ObservationConfig": "nesyworld.world.observations.builder",
}
__all__ = [
    "ENV_SPECS", "NesyGridAEC", "NesyGridEnv", "NesyGridParallel", "NesyVectorEnv",
    "NoveltyInjector", "ObservationBuilder", "ObservationConfig", "env_id", "make_aec",
    "register_envs",
]

register_envs()


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
