"""Gymnasium and PettingZoo envs over a nesyworld `World`: the single-agent env, the native
vector env, the AEC and parallel multi-agent envs, and their reward wrappers.

Importing this package registers a gymnasium id for every shipped spec
(``nesyworld/Pogostick-v0``, ...; see nesyworld.domains.registration), as ``import nesyworld``
does. The env classes load on first use, so registering costs no spec loading and no
compiled kernels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.domains.registration import ENV_SPECS, env_id, register_envs
from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.world.envs.aec_env import NesyGridAEC, make_aec
    from nesyworld.world.envs.gym_env import NesyGridEnv
    from nesyworld.world.envs.parallel_env import NesyGridParallel
    from nesyworld.world.envs.vector_env import NesyVectorEnv
    from nesyworld.world.novelty.injection import NoveltyInjector
    from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig

__getattr__, __all__ = lazy_exports(__name__, {
    "aec_env": ["NesyGridAEC", "make_aec"],
    "gym_env": ["NesyGridEnv"],
    "parallel_env": ["NesyGridParallel"],
    "vector_env": ["NesyVectorEnv"],
    "nesyworld.world.novelty.injection": ["NoveltyInjector"],
    "nesyworld.world.observations.builder": ["ObservationBuilder", "ObservationConfig"],
})

__all__ += ["ENV_SPECS", "env_id", "register_envs"]

register_envs()
