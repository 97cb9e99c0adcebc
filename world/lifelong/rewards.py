"""The single env's step for a lifelong spec: schedule rewards, and no end but giving up.

Kept apart from `NesyGridEnv.step` so the episodic step stays exactly as it was (and as fast):
the env hands its step here only when the spec has a `lifelong:` section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from nesyworld.world.spec.lifelong import LifelongSpec

if TYPE_CHECKING:
    from nesyworld.world.envs.gym_env import NesyGridEnv
    from nesyworld.world.simulation.world import World


class LifelongRewards:
    """Pays what the main agent gains (inventory increases) at the schedule's current rates."""

    def __init__(self, world: World) -> None:
        spec = world.spec.lifelong
        assert spec is not None, "the env makes LifelongRewards for lifelong specs only"
        self.spec: LifelongSpec = spec
        self.names = world.types.names
        self.main = world.main

    def phase_info(self, step: int) -> dict[str, Any]:
        """`phase` (one name per schedule, joined with '+') and `phase_index` (a tuple)."""
        return {"phase": self.spec.phase_name(step),
                "phase_index": tuple(s.phase_index(step) for s in self.spec.schedules)}

    def step(self, env: NesyGridEnv, a: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        w, main = env.world, self.main
        before = w.state.inventory[main].copy()
        at = w.state.step  # the phase the action was taken in pays for it
        out = w.step(a)
        st = w.state
        gained = st.inventory[main] - before
        items = {self.names[i]: int(gained[i]) for i in np.flatnonzero(gained > 0)}
        reward = self.spec.reward(at, items)
        info = {**env.step_info(out, w.goal_reached(main)), "gained": items,
                **self.phase_info(st.step)}
        return env.observe(), reward, bool(st.gave_up), False, info
