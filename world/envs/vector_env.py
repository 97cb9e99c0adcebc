"""N copies of a nesyworld task as one Gymnasium vector env, stepped in one compiled call.

`NesyVectorEnv` is what ``gymnasium.make_vec("nesyworld/Pogostick-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` builds. Each copy behaves exactly like a
`NesyGridEnv` of the same spec given the same seed (world i of ``reset(seed=s)`` is seeded
with s + i): the same maps, NPC moves, observations, rewards and masks, step for step; tests
check this on every shipped domain and novelty.

Spaces: ``single_observation_space`` is `NesyGridEnv`'s "lidar" Box (8 beams x T types, the
inventory clipped to the cap, the selected item one-hot); ``single_action_space`` is
``Discrete(len(action_names))``; the batched spaces have a leading axis of N.

Rewards, termination and truncation are `NesyGridEnv`'s. Autoreset follows Gymnasium's
default (NEXT_STEP): the step after an episode ends resets that copy, returning its first
observation with reward 0 and neither flag set.

Infos are a dict of arrays, each with its ``_key`` mask (all True: every copy reports every
key): ``action_mask`` (N, actions) bool, for the next step; ``ok`` (the action was not
refused), ``cost`` (its cost, 0 when refused), ``step`` and ``success``. The single env's
``action`` and ``reason`` strings are left out: the compiled core does not write messages.
Ask `NesyGridEnv` why an action was refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nesyworld.world.batch.advance import StepBuffers
from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.envs.vector_reset import reset_request
from nesyworld.world.observations.builder import ObservationBuilder, ObservationConfig
from nesyworld.world.spec.model import WorldSpec

INFO_KEYS = ("action_mask", "ok", "cost", "step", "success")


class NesyVectorEnv(VectorEnv):
    # one for the class, as Gymnasium reads it (its stubs declare it per instance)
    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]
        "autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    single_action_space: spaces.Discrete
    """One action per name of `action_names`."""

    def __init__(self, num_envs: int = 1, spec: WorldSpec | str | Path = "pogostick",
                 observation: ObservationConfig | str | dict[str, Any] | None = None,
                 engine: str | None = None, copy: bool = True) -> None:
        """`engine`: "compiled", "worlds" or None (compiled where the spec allows, see
        `BatchWorld`). `copy`: hand out copies of the observation buffer (False: the buffer
        itself, overwritten by the next step)."""
        self.config = ObservationConfig.coerce(observation)
        if self.config.kind != "lidar":
            raise ValueError(f"NesyVectorEnv makes 'lidar' observations, not "
                             f"{self.config.kind!r}; for other kinds use "
                             "gymnasium.vector.SyncVectorEnv over NesyGridEnv")
        self.batch = BatchWorld(spec, num_envs, engine=engine)
        self.num_envs, self.copy = num_envs, copy
        template = self.batch.template
        noise = self.config.noise if self.config.noise is not None else \
            template.spec.observation_noise
        if noise > 0:  # the compiled LiDAR is exact: refuse rather than silently drop noise
            raise ValueError(f"NesyVectorEnv makes exact LiDAR observations, but observation "
                             f"noise {noise} was asked for (by the observation config or the "
                             "spec's observation: section); use gymnasium.vector."
                             "SyncVectorEnv over NesyGridEnv for noisy observations")
        self.action_names = self.batch.action_names
        self.single_action_space = spaces.Discrete(len(self.action_names))
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.single_observation_space = ObservationBuilder(template, template.main,
                                                           self.config).space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        lidar_shape = self.single_observation_space.shape
        assert lidar_shape is not None, "a LiDAR observation is a Box"
        self._out = StepBuffers.zeros(num_envs, lidar_shape[0], len(self.action_names))
        every = np.ones(num_envs, bool)  # every copy reports every key
        self._every = {f"_{k}": every for k in INFO_KEYS}
        self._ready = False

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Seed copy i with seed + i (or seed[i]); None continues each copy's own stream.
        ``options={"reset_mask": mask}`` resets only the copies where mask is True."""
        super().reset(seed=seed if isinstance(seed, int) else None)
        seeds, envs = reset_request(self.num_envs, seed, options)
        self.batch.reset(envs, [seeds[i] for i in envs])
        out = self._out
        out.restart[envs] = False
        # only the restarted copies are observed again: the others did not move
        self.batch.lidar_into(out.obs, self.config.inventory_cap, self.config.lidar_range,
                              envs)
        self.batch.action_mask_into(out.mask, envs)
        out.success[:] = self.batch.success()
        out.ok[:], out.cost[:] = True, 0.0
        self._ready = True
        return self._observation(), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        out = self._out
        self.batch.advance(self._check(actions), out, self.config.inventory_cap,
                           self.config.lidar_range)
        return (self._observation(), out.reward.copy(), out.terminated.copy(),
                out.truncated.copy(), self._info())

    # ------------------------------------------------------------------ helpers
    def _check(self, actions: Any) -> np.ndarray:
        """Actions as an int64 array of shape (N,), or a ValueError saying what was wrong:
        nothing is broadcast and nothing is rounded."""
        arr = np.asarray(actions)
        n, k = self.num_envs, len(self.action_names)
        if arr.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), one per env; got shape "
                             f"{arr.shape}")
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"actions must be integers (action indices), got dtype {arr.dtype}")
        bad = np.flatnonzero((arr < 0) | (arr >= k))
        if len(bad):
            raise ValueError(f"action {arr[bad[0]]} of env {bad[0]} is outside Discrete({k})")
        return np.ascontiguousarray(arr, np.int64)

    def _observation(self) -> np.ndarray:
        return self._out.obs.copy() if self.copy else self._out.obs

    def _info(self) -> dict[str, Any]:
        out = self._out
        info: dict[str, Any] = {
            "action_mask": out.mask.copy(),
            "ok": out.ok.copy(),
            "cost": out.cost.copy(),
            "step": self.batch.clock()[0].copy(),
            "success": out.success.copy(),
        }
        info.update(self._every)
        return info
