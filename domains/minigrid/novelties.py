"""Six MiniGrid novelties, each a `gymnasium.Wrapper` (docs/ADAPTERS.md), in the spirit of
NovGrid: they change a MiniGrid task at reset or in `step`, and the agent is not told.

Each class names the task it was written for (`task`), its SAIL-ON level and whether it
helps or hinders (`category`). `nesyworld generality --suite minigrid` runs them all; any
one runs with `nesyworld run <task> --novelty nesyworld.domains.minigrid.novelties:<Class>`.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
from minigrid.core.mission import MissionSpace
from minigrid.core.world_object import Door, Floor, Lava
from minigrid.minigrid_env import MiniGridEnv

TOGGLE, FORWARD, DONE = 5, 2, 6
"""MiniGrid's action indices (minigrid.core.actions.Actions)."""


class _Novelty(gym.Wrapper):
    task = ""
    level = ""
    category = ""
    description = ""

    @property
    def _minigrid(self) -> MiniGridEnv:
        """The MiniGrid env under the wrappers (Gymnasium types `unwrapped` as any Env)."""
        return cast(MiniGridEnv, self.env.unwrapped)

    def cells(self) -> list[tuple[int, int, Any]]:
        grid = self._minigrid.grid
        return [(x, y, grid.get(x, y)) for x in range(grid.width) for y in range(grid.height)
                if grid.get(x, y) is not None]

    def front(self) -> Any:
        u = self._minigrid
        x, y = int(u.front_pos[0]), int(u.front_pos[1])
        return u.grid.get(x, y) if 0 <= x < u.grid.width and 0 <= y < u.grid.height else None


class UnlockedDoor(_Novelty):
    task = "minigrid:MiniGrid-DoorKey-8x8-v0"
    level = "objects"
    category = "beneficial"
    description = "The door is closed but no longer locked: the key is not needed."

    def reset(self, **kwargs: Any) -> Any:
        out = self.env.reset(**kwargs)
        for _, _, obj in self.cells():
            if isinstance(obj, Door):
                obj.is_locked = False
        return out


class KeyConsumed(_Novelty):
    task = "minigrid:MiniGrid-DoorKey-8x8-v0"
    level = "actions"
    category = "detrimental"
    description = "Unlocking a door uses the key up: it is gone from the agent's hands."

    def step(self, action: Any) -> Any:
        obj = self.front()
        locked = isinstance(obj, Door) and obj.is_locked
        out = self.env.step(action)
        if action == TOGGLE and locked and not obj.is_locked:
            self._minigrid.carrying = None
        return out


class HeavyDoor(_Novelty):
    task = "minigrid:MiniGrid-DoorKey-8x8-v0"
    level = "interactions"
    category = "detrimental"
    description = "A locked door takes two turns of the key: the first toggle does nothing."

    def reset(self, **kwargs: Any) -> Any:
        self.turned: set[int] = set()
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Any:
        obj = self.front()
        if action == TOGGLE and isinstance(obj, Door) and obj.is_locked and (
                id(obj) not in self.turned):
            self.turned.add(id(obj))
            return self.env.step(DONE)  # the time passes, nothing turns
        return self.env.step(action)


class CooledLava(_Novelty):
    task = "minigrid:MiniGrid-LavaCrossingS9N1-v0"
    level = "environments"
    category = "beneficial"
    description = "The lava has cooled into red floor tiles that can be walked on."

    def reset(self, **kwargs: Any) -> Any:
        out = self.env.reset(**kwargs)
        grid = self._minigrid.grid
        for x, y, obj in self.cells():
            if isinstance(obj, Lava):
                grid.set(x, y, Floor("red"))
        return out


class FetchTheKey(_Novelty):
    task = "minigrid:MiniGrid-DoorKey-8x8-v0"
    level = "goals"
    category = "detrimental"
    description = ("The task is now to pick up the key, not to reach the goal square; "
                   "reaching it no longer counts.")

    MISSION = "pick up the yellow key"

    def reset(self, **kwargs: Any) -> Any:
        u = self._minigrid
        space = u.observation_space
        assert isinstance(space, gym.spaces.Dict), "MiniGrid observes a dict"
        space.spaces["mission"] = MissionSpace(mission_func=lambda: self.MISSION)
        obs, info = self.env.reset(**kwargs)
        u.mission = self.MISSION
        return {**obs, "mission": self.MISSION}, info

    def step(self, action: Any) -> Any:
        obs, _, terminated, truncated, info = self.env.step(action)
        u = self._minigrid
        done = u.carrying is not None and u.carrying.type == "key"
        reward = 1 - 0.9 * (u.step_count / u.max_steps) if done else 0.0
        return obs, reward, bool(done or terminated), truncated, info


class SlipperyFloor(_Novelty):
    task = "minigrid:MiniGrid-FourRooms-v0"
    level = "events"
    category = "detrimental"
    description = "A step forward slips one time in four: the agent stays where it was."

    def step(self, action: Any) -> Any:
        if action == FORWARD and self.env.unwrapped.np_random.random() < 0.25:
            return self.env.step(DONE)
        return self.env.step(action)


NOVELTIES = (UnlockedDoor, KeyConsumed, HeavyDoor, CooledLava, FetchTheKey, SlipperyFloor)
"""The suite, in the order `nesyworld generality --suite minigrid` runs it."""
