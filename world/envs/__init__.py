"""Gymnasium and PettingZoo envs over a nesyworld `World`.

Importing this package registers the gymnasium ids (``nesyworld/Pogostick-v0``, ...), so
``gymnasium.make("nesyworld/Pogostick-v0")`` works after ``import nesyworld.world.envs``.
The env classes are imported lazily, so registering costs no spec loading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nesyworld.world.envs.novelty_injection import NoveltyInjector
from nesyworld.world.envs.observations import ObservationBuilder, ObservationConfig
from nesyworld.world.envs.registration import ENV_SPECS, make_aec, register_envs

if TYPE_CHECKING:
    from nesyworld.world.envs.aec_env import NesyGridAEC
    from nesyworld.world.envs.gym_env import NesyGridEnv

__all__ = [
    "ENV_SPECS",
    "NesyGridAEC",
    "NesyGridEnv",
    "NoveltyInjector",
    "ObservationBuilder",
    "ObservationConfig",
    "make_aec",
    "register_envs",
]

register_envs()


def __getattr__(name: str) -> Any:
    if name == "NesyGridEnv":
        from nesyworld.world.envs.gym_env import NesyGridEnv

        return NesyGridEnv
    if name == "NesyGridAEC":
        from nesyworld.world.envs.aec_env import NesyGridAEC

        return NesyGridAEC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
