"""Gymnasium ids for every shipped world spec.

Every spec under domains/ gets the id ``nesyworld/<CamelCaseStem>-v0`` (``pogostick_full.yaml``
is ``nesyworld/PogostickFull-v0``), so a spec added there is an env with no code. Registration
is data only (entry-point strings and the spec name): it lists this folder and imports no
simulator module, so ``import nesyworld``, which registers the ids, stays cheap and loads
nothing of the world for a user who only wants, say, the learning layer. A spec file is read
only when an env is made.
"""

from __future__ import annotations

import gymnasium

from nesyworld.domains import shipped_specs

NAMESPACE = "nesyworld"
GYM_ENTRY_POINT = "nesyworld.world.envs.gym_env:NesyGridEnv"
VECTOR_ENTRY_POINT = "nesyworld.world.envs.vector_env:NesyVectorEnv"


def env_id(spec_name: str, version: int = 0) -> str:
    """The gymnasium id of a shipped spec: ``pogostick_full`` -> ``nesyworld/PogostickFull-v0``."""
    camel = "".join(part[:1].upper() + part[1:] for part in spec_name.split("_") if part)
    return f"{NAMESPACE}/{camel}-v{version}"


def shipped_env_specs() -> dict[str, str]:
    """gymnasium id -> spec name, for every shipped spec (see nesyworld.domains.find_spec)."""
    return {env_id(name): name for name in shipped_specs()}


ENV_SPECS: dict[str, str] = shipped_env_specs()


def register_envs() -> None:
    """Register every id in ENV_SPECS; registering again is harmless (gymnasium would warn on
    an override, so registered ids are skipped)."""
    for gym_id, spec in ENV_SPECS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=GYM_ENTRY_POINT,
                               vector_entry_point=VECTOR_ENTRY_POINT, kwargs={"spec": spec})
