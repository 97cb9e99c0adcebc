"""Lifelong specs on the batched core's "worlds" engine: `NesyGridEnv`'s lifelong step.

`compile_world` refuses lifelong specs (no kernel draws random regrowth, waits for a taken
cell, or reads a reward schedule), so `BatchWorld` steps them as N ordinary worlds; this
turns that engine's episodic rewards and flags into the lifelong ones, exactly as
`nesyworld.world.lifelong.rewards` does for one env.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from nesyworld.world.batch.advance import StepBuffers
    from nesyworld.world.batch.core import BatchWorld


class LifelongStep:
    """Made before a vector step (it notes inventories and clocks), finished after it."""

    def __init__(self, batch: BatchWorld) -> None:
        self.batch = batch
        self.before = batch.inventory(batch.main).copy()
        self.at = batch.clock()[0].copy()  # the phase the action is taken in pays for it

    def finish(self, out: StepBuffers, gave_up: np.ndarray) -> None:
        batch, spec = self.batch, self.batch.spec.lifelong
        assert spec is not None, "a LifelongStep is made for lifelong specs only"
        names = batch.types.names
        gained = batch.inventory(batch.main) - self.before
        for n in range(batch.num_envs):
            items = {names[i]: int(gained[n, i]) for i in np.flatnonzero(gained[n] > 0)}
            out.reward[n] = spec.reward(int(self.at[n]), items)
        out.terminated[:] = gave_up
        out.truncated[:] = False
