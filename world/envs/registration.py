"""Gymnasium ids for the shipped tasks, and the PettingZoo entry point.

Registration is data-only (an entry-point string and the spec name), so importing this module
loads no spec and costs nothing; a spec file is read only when an env is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium

from nesyworld.world.spec import WorldSpec

GYM_ENTRY_POINT = "nesyworld.world.envs.gym_env:NesyGridEnv"
VECTOR_ENTRY_POINT = "nesyworld.world.envs.vector_env:NesyVectorEnv"

# gymnasium id -> spec name (a shipped spec's short id, see nesyworld.domains.find_spec).
ENV_SPECS: dict[str, str] = {
    "nesyworld/Pogostick-v0": "pogostick",
    "nesyworld/PogostickFull-v0": "pogostick_full",
}


def register_envs() -> None:
    """Register every id in ENV_SPECS; repeated imports must not re-register (gymnasium
    warns on overrides)."""
    for env_id, spec in ENV_SPECS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=GYM_ENTRY_POINT,
                               vector_entry_point=VECTOR_ENTRY_POINT, kwargs={"spec": spec})


def make_aec(
    spec: WorldSpec | str | Path = "pogostick", *, wrap: bool = True, **kwargs: Any
) -> Any:
    """The multi-agent env of a spec; `wrap` adds PettingZoo's usual safety wrappers
    (out-of-bounds actions and call order are asserted), as a PettingZoo ``env()`` does."""
    from pettingzoo.utils import wrappers

    from nesyworld.world.envs.aec_env import NesyGridAEC

    env: Any = NesyGridAEC(spec, **kwargs)
    if wrap:
        env = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))
    return env
