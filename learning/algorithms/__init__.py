"""The learning algorithm's pieces: masked PPO on tianshou, ICM curiosity around it, their
networks, and action masking from `info["action_mask"]`."""

from nesyworld.learning.algorithms.icm import CuriosityWrapper, build_icm, curiosity_module
from nesyworld.learning.algorithms.masking import (
    ActionMaskObservation,
    apply_action_mask,
    mask_from_info,
    mask_observation,
    masked_observation_space,
)
from nesyworld.learning.algorithms.networks import ICMFeatureNet, MaskedActor, ValueCritic
from nesyworld.learning.algorithms.ppo import build_ppo
from nesyworld.learning.algorithms.tianshou_cache import cache_tianshou_kernels

cache_tianshou_kernels()  # before any policy or buffer compiles them

__all__ = [
    "ActionMaskObservation", "CuriosityWrapper", "ICMFeatureNet", "MaskedActor", "ValueCritic",
    "apply_action_mask", "build_icm", "build_ppo", "curiosity_module", "mask_from_info",
    "mask_observation", "masked_observation_space",
]
