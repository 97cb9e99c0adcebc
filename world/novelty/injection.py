"""Novelties arriving on their schedule, for the Gymnasium view.

`NoveltyInjector` wraps a `NesyGridEnv`: before each episode it builds the world of the
novelties due by then (`inject: {episode: N}`), and during an episode it switches the running
world at the step a mid-episode novelty names (`inject: {step: S}`), keeping positions and
inventories (`World.transition_to`).

Spaces: the mechanism is *rebuilding*, not placeholders. When a novelty adds entity types or
actions, the observation and action spaces are rebuilt from the new registries, so they grow.
An agent learns that they grew from `info["space_version"]` (incremented on every change),
`info["novelty"]` (the names of the novelties that just arrived; present only then) and, as
with any Gymnasium env, `env.observation_space` / `env.action_space`. Action indices are only
stable within one space version: look actions up by name (`env.unwrapped.action_names`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat, cast

import gymnasium

from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.mid_episode import arrive
from nesyworld.world.novelty.transforms import Novelty, apply_novelties, as_novelties
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.model import WorldSpec

if TYPE_CHECKING:
    from nesyworld.world.envs.gym_env import NesyGridEnv


class NoveltyInjector(gymnasium.Wrapper):
    """Inject novelties into a NesyGridEnv on their schedule (see the module docstring)."""

    def __init__(self, env: gymnasium.Env, novelties: Sequence[Novelty | str | Path]) -> None:
        super().__init__(env)
        self.novelties = as_novelties(novelties)
        base = self._inner.world.spec
        if base.source.startswith("<"):
            raise SpecError("novelties need a spec loaded from a file or a shipped name",
                            found=base.source, expected="an env whose spec has a file")
        self._base: WorldSpec = base
        self._specs: dict[tuple[int, ...], WorldSpec] = {(): base}
        self.episode = -1
        self.space_version = 0
        self._active: tuple[int, ...] = ()

    @property
    def _inner(self) -> NesyGridEnv:
        """The NesyGridEnv under the wrappers (Gymnasium types `unwrapped` as any Env)."""
        return cast("NesyGridEnv", self.env.unwrapped)

    def _spec(self, active: tuple[int, ...]) -> WorldSpec:
        if active not in self._specs:
            base = self._base.source
            self._specs[active] = apply_novelties(
                base, [*self._base.novelties, *(self.novelties[i] for i in active)])
        return self._specs[active]

    @property
    def in_effect(self) -> tuple[Novelty, ...]:
        """The novelties the running world has, in the order they compose: what a recording
        of the episode stores (hybrid/recording/writer.py)."""
        return tuple(self.novelties[i] for i in self._active)

    def _due_at_reset(self) -> tuple[int, ...]:
        return tuple(i for i, n in enumerate(self.novelties)
                     if not n.inject.mid_episode and n.inject.episode <= self.episode)

    def _use(self, world: World) -> bool:
        """Point the env at `world`; True when the spaces changed."""
        inner = self._inner
        before = (inner.observation_space, inner.action_space)
        inner.use_world(world)
        self.observation_space = inner.observation_space
        self.action_space = inner.action_space
        changed = before != (inner.observation_space, inner.action_space)
        self.space_version += changed
        return changed

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        self.episode += 1
        due = self._due_at_reset()
        arrived = [self.novelties[i].name for i in due if i not in self._active]
        if due != self._active or self._inner.world.spec is not self._spec(due):
            self._use(World(self._spec(due), seed=seed))
            self._active = due
        obs, info = self.env.reset(seed=seed, options=options)
        info["space_version"] = self.space_version
        if arrived:
            info["novelty"] = arrived
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        world = self._inner.world
        due = tuple(i for i, n in enumerate(self.novelties)
                    if n.inject.mid_episode and n.inject.episode <= self.episode
                    and n.inject.step == world.state.step and i not in self._active)
        if due and not (terminated or truncated):
            self._active = tuple(sorted((*self._active, *due)))
            arrive(world, self._spec(self._active), self.novelties[due[0]])
            self._use(world)
            obs = self._inner.observe()
            info["action_mask"] = world.action_mask()
            info["novelty"] = [self.novelties[i].name for i in due]
        info["space_version"] = self.space_version
        return obs, reward, terminated, truncated, info
