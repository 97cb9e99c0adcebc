"""The single-agent Gymnasium view of a world (the paper's single-agent wrapper, 4.2.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.core import ObsType

from nesyworld.world.lifelong.rewards import LifelongRewards
from nesyworld.world.observations import render_ascii, render_rgb
from nesyworld.world.observations.builder import (
    ObservationBuilder,
    ObservationConfig,
    agent_poses,
    palette,
)
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.model import WorldSpec

Refusals = Literal["explained", "silent"]
REFUSALS: tuple[Refusals, ...] = ("explained", "silent")
"""Whether a refused step says why ("explained") or only that it was refused ("silent")."""


class NesyGridEnv(gymnasium.Env[ObsType, np.int64]):
    """The main agent of a nesyworld world; every NPC is driven by its own controller.

    Observation space: set by `observation` (an `ObservationConfig`, or just its kind):
    - "lidar" (default, paper C.1): ``Box(float32, (8*T + T + T,))`` -- distances along 8
      egocentric beams to the nearest thing of each of the T types (0 = none on that beam),
      then the inventory counts clipped to `inventory_cap` (64), then the selected item
      one-hot (air = nothing selected).
    - "local_view" (paper C.2): ``Dict(view=Box(uint8, (T, n, n)), inventory=Box(int32, (T,)),
      selected=Box(uint8, (T,)))``, the view one-hot per type and rotated to the agent's frame.
    - "facts": ``Text`` of symbolic facts, one a line: ``facing(t)``, ``holding(t)``,
      ``inventory(t)=n``, ``world(t)=n``, ``<property>(t)``.
    - "ascii": ``Text`` of the map; "rgb": ``Box(uint8, (H*tile, W*tile, 3))``;
      "dict": a ``Dict`` of the kinds in `dict_kinds`.
    T is the number of concrete types in the spec, so bigger specs get bigger spaces.

    Action space: ``Discrete(len(world.action_names(world.main)))``, in the order of
    `action_names` (grounded names such as ``approach_oak_log`` or ``craft_planks``).

    Rewards (from ``spec.reward``): ``reward.step`` every step (-1 by default, whatever the
    action's cost), plus ``reward.goal`` on the step the goal is reached, plus
    ``reward.give_up`` on the step the agent gives up.

    Termination: the goal is reached or some agent gave up. Truncation: ``spec.max_steps``
    steps have been taken without termination. One step is: the main agent acts, every
    controlled NPC acts once, then the world's clock advances (scheduled effects fire).
    A refused action still takes the step and changes nothing of the main agent's.

    Info (from both `reset` and `step`): ``action_mask`` (bool, which actions would not be
    refused on the NEXT step; approach may say True while an NPC blocks its only path),
    ``action`` (the name taken, "" on reset), ``ok``, ``reason`` (why it was refused, ""
    otherwise, and always "" with ``refusals="silent"``), ``cost`` (the action's own cost,
    e.g. an approach's path length), ``step`` and
    ``success`` (the goal is reached).

    Lifelong specs (a ``lifelong:`` section, after Jelly Bean World) never end on the goal and
    are never truncated: the only termination is giving up, and `reset` is meant to be called
    once. The reward is ``lifelong.step_reward`` plus, for every item the main agent gained
    this step, what the reward schedule pays for it in the phase the action was taken in
    (``spec.reward`` is not used). Info adds ``gained`` (item -> count), ``phase`` (the
    schedules' current phase names joined with '+', which pay the next action) and
    ``phase_index`` (one index per schedule); `reset` reports the phase too.
    """

    # one for the class, as Gymnasium reads it (its stubs declare it per instance)
    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]
        "render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    action_space: spaces.Discrete
    """One action per name of `action_names`."""

    def __init__(
        self,
        spec: WorldSpec | str | Path = "pogostick",
        observation: ObservationConfig | str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        seed: int | None = None,
        world: World | None = None,
        render_tile: int = 16,
        refusals: Refusals = "explained",
    ) -> None:
        """`world` wraps an existing World (one a novelty was injected into, say) instead of
        building one from `spec`; `seed` only seeds a world built here. `refusals`:
        "explained" reports why an action was refused in info["reason"]; "silent" reports
        only that it was (info["ok"] False, info["reason"] ""), as most real environments
        do."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} "
                f"or None, got {render_mode!r}"
            )
        if refusals not in REFUSALS:
            raise ValueError(f"refusals must be one of {', '.join(REFUSALS)}, got {refusals!r}")
        self.render_mode = render_mode
        self.render_tile = render_tile
        self.refusals: Refusals = refusals
        self.config = ObservationConfig.coerce(observation)
        self.use_world(world if world is not None else World(spec, seed))

    def use_world(self, world: World) -> None:
        """Act in `world` from now on, rebuilding the spaces from its registries (how a
        novelty that adds types or actions reaches the env: see NoveltyInjector)."""
        self.world = w = world
        self._main = w.main
        self.action_names: tuple[str, ...] = w.action_names(w.main)
        self._n_actions = len(self.action_names)
        self.action_space = spaces.Discrete(self._n_actions)
        self._obs = ObservationBuilder(w, w.main, self.config)
        self._obs.noise_rng = self.np_random  # observation noise draws from the env's seed
        self.observation_space = self._obs.space
        reward = w.spec.reward
        self._r_step, self._r_goal, self._r_give_up = reward.step, reward.goal, reward.give_up
        self._max_steps = w.spec.max_steps
        self._lifelong = LifelongRewards(w) if w.spec.lifelong is not None else None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """A seed re-seeds the world; None continues its random stream (new layouts)."""
        super().reset(seed=seed)
        self._obs.noise_rng = self.np_random  # reseeded by a seed: the same noise again
        w = self.world
        w.reset(seed)
        info = {
            "action_mask": w.action_mask(self._main),
            "action": "",
            "ok": True,
            "reason": "",
            "cost": 0.0,
            "step": w.state.step,
            "success": w.goal_reached(self._main),
        }
        if self._lifelong is not None:
            info.update(self._lifelong.phase_info(w.state.step))
        return self._obs.build(), info

    def step(self, action: int | np.integer[Any]
             ) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        a = int(action)
        if not 0 <= a < self._n_actions:
            raise ValueError(f"action {action!r} is outside Discrete({self._n_actions})")
        if self._lifelong is not None:
            return self._lifelong.step(self, a)
        w, main = self.world, self._main
        out = w.step(a)
        st = w.state
        success = w.goal_reached(main)
        reward = self._r_step
        if success:
            reward += self._r_goal
        if st.gave_up:
            reward += self._r_give_up
        terminated = success or st.gave_up
        truncated = not terminated and st.step >= self._max_steps
        return self._obs.build(), reward, terminated, truncated, self.step_info(out, success)

    def step_info(self, out: Any, success: bool) -> dict[str, Any]:
        """The info of a step (see the class docstring); the lifelong step adds to it."""
        w = self.world
        return {
            "action_mask": w.action_mask(self._main),
            "action": out.action,
            "ok": out.ok,
            "reason": out.reason if self.refusals == "explained" else "",
            "cost": out.cost,
            "step": w.state.step,
            "success": success,
        }

    def observe(self) -> ObsType:
        """The observation of the current state (after the world changed under the env)."""
        return self._obs.build()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass "
                "render_mode='ansi' or 'rgb_array' to the env"
            )
            return None
        w = self.world
        if self.render_mode == "ansi":
            return render_ascii(w.state.grid, w.types.glyphs, agent_poses(w))
        return render_rgb(w.state.grid, palette(w), agent_poses(w), self.render_tile)
