"""What the agent knew before any novelty, beyond its knowledge base's operators: the spec
file its knowledge base was derived from (the actions that world offered, what grows and
spawns in it). Reading that file is reading the agent's own prior knowledge; the post-novelty
world's spec is another thing (hybrid/boundary/oracle_model.py).
"""

from __future__ import annotations

import functools

from nesyworld.world import World
from nesyworld.world.errors import SpecError
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec


@functools.lru_cache(maxsize=64)
def spec_actions(source: str) -> tuple[str, ...]:
    """The env actions of the world a spec file lays out. Cached: a hybrid agent asks at every
    failure it tries to repair, and building the world each time (reading and checking the
    spec) was most of a Fire run's wall time; a spec file does not change during a run."""
    return tuple(World(source).action_names())


@functools.lru_cache(maxsize=16)
def source_spec(source: str) -> WorldSpec | None:
    """The spec of the world a knowledge base was derived from: the agent's pre-novelty
    knowledge of what grows and spawns. None when it cannot be read."""
    if not source or source.startswith("<"):
        return None
    try:
        return load_spec(source)
    except (SpecError, OSError):
        return None


