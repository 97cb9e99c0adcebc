"""Fixtures for the learning tests: a tiny masked gridworld (no nesyworld world/symbolic code).

5x5 grid, start (0, 0) top-left, goal (4, 0) bottom-left, a wall on row 2 from column 0 to 3:

    S . . . .
    . . . . .
    # # # # .
    . . . . .
    G . . . .

Actions 0-3 move up/down/left/right; action 4 is an "illegal" action that is always masked out.
Moves off the grid or into the wall are masked too, and every masked action raises if taken,
so a masking bug surfaces as an exception inside training. The detour (right, then back left)
means no fixed action preference reaches the goal: the policy must depend on the state.
Reward +1000 on reaching the goal, -1 for every other step; truncated after `max_steps` steps.
Observation: one-hot position (25 floats). Shortest path: 12 steps, optimal return 1000 - 11.

`NativeChain` is a tiny native Gymnasium vector env (numpy, all envs stepped at once).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nesyworld.learning import PPOConfig, TrainConfig, TrainResult, train

SIZE = 5
START = (0, 0)
GOAL = (SIZE - 1, 0)
WALL = frozenset((2, c) for c in range(SIZE - 1))
SHORTEST_PATH = 12
OPTIMAL_RETURN = 1000.0 - (SHORTEST_PATH - 1)
MOVES = {0: (-1, 0), 1: (1, 0), 2: (0, -1), 3: (0, 1)}
ILLEGAL_ACTION = 4


class IllegalActionError(RuntimeError):
    """Raised when the env is given an action its own mask forbids."""


class GridWorld(gym.Env):
    """See the module docstring. `counter` (a one-element list) counts every step taken."""

    def __init__(self, max_steps: int = 50, counter: list[int] | None = None) -> None:
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(SIZE * SIZE,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(5)
        self.max_steps = max_steps
        self.counter = counter
        self.pos = START
        self.t = 0

    def _obs(self) -> np.ndarray:
        obs = np.zeros(SIZE * SIZE, dtype=np.float32)
        obs[self.pos[0] * SIZE + self.pos[1]] = 1.0
        return obs

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(5, dtype=bool)
        for a, (dr, dc) in MOVES.items():
            r, c = self.pos[0] + dr, self.pos[1] + dc
            mask[a] = 0 <= r < SIZE and 0 <= c < SIZE and (r, c) not in WALL
        return mask

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.pos, self.t = START, 0
        return self._obs(), {"action_mask": self.action_mask()}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        action = int(action)
        if not self.action_mask()[action]:
            raise IllegalActionError(f"action {action} is masked at {self.pos}")
        if self.counter is not None:
            self.counter[0] += 1
        dr, dc = MOVES[action]
        self.pos = (self.pos[0] + dr, self.pos[1] + dc)
        self.t += 1
        success = self.pos == GOAL
        reward = 1000.0 if success else -1.0
        truncated = not success and self.t >= self.max_steps
        info = {"action_mask": self.action_mask(), "success": success}
        return self._obs(), reward, success, truncated, info


class NativeChain(VectorEnv):
    """N corridors of LENGTH cells stepped together in numpy, the way a native vector env is
    written: NEXT_STEP autoreset, partial resets by `reset_mask`, batched infos with `_key`
    masks. Start at 0; action 1 moves right, 0 left (masked at 0), 2 is always masked (and
    raises, like the gridworld). +1000 on reaching the end, else -1; truncated at 20 steps."""

    LENGTH, MAX_STEPS = 6, 20

    def __init__(self, num_envs: int) -> None:
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
        self.num_envs = num_envs
        self.single_observation_space = gym.spaces.Discrete(self.LENGTH)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = gym.spaces.Discrete(3)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.pos = np.zeros(num_envs, np.int64)
        self.t = np.zeros(num_envs, np.int64)
        self.pending = np.zeros(num_envs, bool)
        self.steps = self.autoresets = 0

    def _infos(self, success: np.ndarray | None = None) -> dict[str, Any]:
        mask = np.zeros((self.num_envs, 3), bool)
        mask[:, 0], mask[:, 1] = self.pos > 0, True
        infos = {"action_mask": mask, "_action_mask": np.ones(self.num_envs, bool)}
        if success is not None:
            infos.update(success=success, _success=success.copy())
        return infos

    def reset(self, *, seed: Any = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        chosen = (options or {}).get("reset_mask", np.ones(self.num_envs, bool))
        self.pos[chosen] = self.t[chosen] = 0
        self.pending[chosen] = False
        return self.pos.copy(), self._infos()

    def step(self, actions: Any) -> tuple[Any, ...]:
        actions, active = np.asarray(actions), ~self.pending
        legal = self._infos()["action_mask"][np.arange(self.num_envs), actions]
        if not legal[active].all():
            raise RuntimeError(f"illegal actions {actions} at {self.pos}")
        self.autoresets += int(self.pending.sum())  # NEXT_STEP: these restart, action ignored
        self.pos[self.pending] = self.t[self.pending] = 0
        self.pos[active] += np.where(actions == 1, 1, -1)[active]
        self.t[active] += 1
        self.steps += int(active.sum())
        success = active & (self.pos == self.LENGTH - 1)
        trunc = active & ~success & (self.t >= self.MAX_STEPS)
        self.pending = success | trunc
        rew = np.where(active, np.where(success, 1000.0, -1.0), 0.0)
        return self.pos.copy(), rew, success, trunc, self._infos(success)


def fast_config(**overrides: Any) -> TrainConfig:
    """A TrainConfig for tests: in-process envs, short epochs, no progress bar.

    Two evaluation episodes suffice: the env and the greedy evaluation are deterministic.
    """
    base: dict[str, Any] = {
        "step_budget": 10_000,
        "epoch_length": 250,
        "collect_chunk": 250,
        "num_envs": 2,
        "vector_env": "dummy",
        "eval_episodes": 2,
        "progress": False,
        "seed": 0,
    }
    base.update(overrides)
    return TrainConfig(**base)


def greedy_rollout(
    policy: Callable[[np.ndarray, np.ndarray], int], max_steps: int = 50
) -> tuple[bool, int]:
    """Run `policy(obs, mask)` on a fresh GridWorld: (reached the goal, steps taken)."""
    env = GridWorld(max_steps=max_steps)
    obs, info = env.reset()
    for t in range(1, max_steps + 1):
        obs, _, terminated, truncated, info = env.step(policy(obs, info["action_mask"]))
        if terminated or truncated:
            return bool(info["success"]), t
    return False, max_steps


@pytest.fixture
def grid() -> SimpleNamespace:
    """The gridworld module's public names (conftest modules are not importable by tests)."""
    return SimpleNamespace(
        GridWorld=GridWorld,
        IllegalActionError=IllegalActionError,
        ILLEGAL_ACTION=ILLEGAL_ACTION,
        SHORTEST_PATH=SHORTEST_PATH,
        OPTIMAL_RETURN=OPTIMAL_RETURN,
        fast_config=fast_config,
        greedy_rollout=greedy_rollout,
    )


@pytest.fixture
def native_chain() -> type[NativeChain]:
    return NativeChain


@pytest.fixture(scope="session")
def trained() -> TrainResult:
    """One PPO training run on the gridworld, shared by the learning and checkpoint tests.

    Wall time is measured inside `train` (TrainResult.wall_seconds), including the one-off
    numba compilation tianshou does on first use in a process (about 5 s).
    """
    return train(GridWorld, fast_config(seed=0), PPOConfig(), None)
