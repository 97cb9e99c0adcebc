"""Present a Gymnasium vector env (N copies stepped at once) as a tianshou `BaseVectorEnv`.

Why an adapter and not tianshou's own vector envs: DummyVectorEnv and SubprocVectorEnv step N
single envs one by one (or through pipes), while a native `gymnasium.vector.VectorEnv` steps
all N in one numpy call, which is where its speed comes from. tianshou's Collector, however,
talks to envs one id at a time, and this adapter maps that protocol onto the batched one:

* Resets. The Collector resets each env whose episode ended, by itself, with
  `reset(env_id=[...])`, and never steps an env past the end of an episode. The adapter does
  that with Gymnasium's partial reset, `reset(options={"reset_mask": mask})` (Gymnasium >= 1.1;
  SyncVectorEnv and AsyncVectorEnv support it, and a native vector env must too: one that
  ignores the mask would silently restart every episode). The partial reset also clears a
  NEXT_STEP env's pending autoreset, so the vector env's own autoreset never fires and NEXT_STEP
  and DISABLED envs behave the same. SAME_STEP envs are refused: their step returns the next
  episode's first observation in place of the last one, which the Collector would store as
  `obs_next`.
* Steps of some ids only. A batched env cannot step a subset. The Collector steps all envs
  in `collect(n_step=...)` (training); it steps a strict subset only in
  `collect(n_episode=...)` (evaluation), after it stops using envs that just finished an
  episode when fewer episodes remain than envs ("surplus" envs), and it resets every env
  at the end of that collection before using it again. So the adapter steps idle envs too,
  with their first legal action, discards what they return, and marks them stale: stepping
  a stale env before resetting it raises, so no caller can see an env that moved while it
  was idle. Those extra steps are counted in `idle_steps` (the trainer adds them to the
  evaluation env steps, which count what the envs really did). A vector env that can leave
  some copies where they are has a `hold(mask)` method: the adapter calls it before each step
  with the idle envs, that step leaves them untouched (its results for them are discarded),
  and no idle steps are counted, so the counts are those of single envs stepped one by one
  (the batched recovery env holds them: its env steps are a recovery's cost). What the
  Collector records is unchanged; only an idle env's own state (e.g. its random stream)
  moves on, unless held, which is why evaluation after the first one can differ from
  DummyVectorEnv's on a random env.
* Observations and infos take the form ActionMaskObservation gives one env (built by the
  same function, `masking.mask_observation`), so the policy, the buffer and the success
  bookkeeping cannot tell the two paths apart: an object array of per-env dicts
  {"obs", "mask"}, and infos {"success": bool} (plus "env_id" after a step, as tianshou adds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import iterate
from tianshou.env import BaseVectorEnv
from tianshou.env.utils import gym_new_venv_step_type

from nesyworld.learning.algorithms.masking import mask_observation, masked_observation_space

__all__ = ["VectorEnvAdapter", "VectorEnvFactory", "adapt_vector_env"]

VectorEnvFactory = Callable[[int], VectorEnv]
"""Makes a Gymnasium vector env of the given number of envs."""

IdArg = int | Sequence[int] | np.ndarray | None


def _object_array(items: list[Any]) -> np.ndarray:
    """1-d object array of `items` (np.array would try to stack array-like items)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


class VectorEnvAdapter(BaseVectorEnv):
    """tianshou's vector-env interface over one Gymnasium `VectorEnv`; see the module docstring.

    `max_episode_steps` truncates episodes like the TimeLimit the single-env path wraps each env
    in: a vector env has no per-env wrapper, and the adapter already controls every reset.
    """

    def __init__(
        self,
        venv: VectorEnv,
        success_key: str = "success",
        mask_key: str = "action_mask",
        max_episode_steps: int | None = None,
    ) -> None:
        # BaseVectorEnv.__init__ is not called: it builds one worker per single-env factory.
        if not isinstance(venv, VectorEnv):
            raise TypeError(
                f"expected a gymnasium.vector.VectorEnv, got {type(venv).__name__} "
                "(single-env factories go to train(env_factory=...))"
            )
        action_space = venv.single_action_space
        if not isinstance(action_space, gym.spaces.Discrete):
            raise TypeError(f"nesyworld.learning needs a Discrete action space, got {action_space}")
        mode = venv.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        if AutoresetMode(mode) == AutoresetMode.SAME_STEP:
            raise ValueError(
                "vector envs with autoreset_mode SAME_STEP are not supported (their step "
                "returns the next episode's first observation at an episode's end); "
                "make the env with AutoresetMode.NEXT_STEP or DISABLED"
            )
        if max_episode_steps is not None and max_episode_steps <= 0:
            raise ValueError(f"max_episode_steps must be positive, got {max_episode_steps}")
        self.venv = venv
        self.env_num = int(venv.num_envs)
        # the attributes BaseVectorEnv's own methods and the Collector read
        self.wait_num, self.timeout = self.env_num, None
        self.is_async = self.is_closed = False
        self.waiting_conn, self.waiting_id, self.ready_id = [], [], list(range(self.env_num))
        self.success_key, self.mask_key = success_key, mask_key
        self.max_episode_steps = max_episode_steps
        self.raw_observation_space: gym.Space = venv.single_observation_space
        self.single_action_space: gym.spaces.Discrete = action_space
        self.n_actions = int(action_space.n)
        self.masked_observation_space = masked_observation_space(
            self.raw_observation_space, self.n_actions
        )
        # one copy per env: the Collector's random actions are seeded per env, as by tianshou
        self._action_spaces = [deepcopy(action_space) for _ in range(self.env_num)]
        self._masks = np.ones((self.env_num, self.n_actions), dtype=bool)
        self._needs_reset = np.ones(self.env_num, dtype=bool)
        self._stale = np.zeros(self.env_num, dtype=bool)
        self._elapsed = np.zeros(self.env_num, dtype=np.int64)
        self.idle_steps = 0
        """Env steps taken by envs that were not asked to step (see the module docstring)."""

    def pop_idle_steps(self) -> int:
        steps, self.idle_steps = self.idle_steps, 0
        return steps

    def _ids(self, id: IdArg) -> np.ndarray:
        ids = np.arange(self.env_num) if id is None else np.atleast_1d(np.asarray(id, np.int64))
        if ids.ndim != 1 or ((ids < 0) | (ids >= self.env_num)).any():
            raise IndexError(f"env ids {ids.tolist()} out of range for {self.env_num} envs")
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"env ids {ids.tolist()} repeat an env")
        return ids

    def _convert(
        self, obs: Any, infos: dict[str, Any], ids: np.ndarray
    ) -> tuple[list[dict[str, np.ndarray]], list[dict[str, Any]]]:
        """Per-env masked observations and sanitised infos of envs `ids`; records their masks."""
        all_obs = list(iterate(self.venv.observation_space, obs))
        out_obs, out_infos = [], []
        for i in ids.tolist():
            info: dict[str, Any] = {}
            for key in (self.mask_key, self.success_key):
                present = infos.get(f"_{key}")
                if key in infos and (present is None or present[i]):
                    info[key] = infos[key][i]
            keys = self.n_actions, self.success_key, self.mask_key
            wrapped, small = mask_observation(self.raw_observation_space, all_obs[i], info, *keys)
            self._masks[i] = wrapped["mask"].astype(bool)
            out_obs.append(wrapped)
            out_infos.append(small)
        return out_obs, out_infos

    def _reset(
        self, ids: np.ndarray, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[list[dict[str, np.ndarray]], list[dict[str, Any]]]:
        mask = np.zeros(self.env_num, dtype=bool)
        mask[ids] = True
        options = dict(options or {})  # gymnasium pops "reset_mask" from the dict it is given
        if not mask.all():
            options["reset_mask"] = mask
        obs, infos = self.venv.reset(seed=seed, options=options or None)
        self._needs_reset[mask] = self._stale[mask] = False
        self._elapsed[mask] = 0
        return self._convert(obs, infos, ids)

    def reset(self, env_id: IdArg = None, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        """Reset envs `env_id` (all if None). `seed` (an int) seeds each of them with that
        seed and `options` goes to every env's reset, as with tianshou's DummyVectorEnv."""
        self._assert_is_not_closed()
        ids = self._ids(env_id)
        seed, options = kwargs.pop("seed", None), kwargs.pop("options", None)
        if kwargs:
            raise TypeError(f"unexpected reset arguments {sorted(kwargs)}")
        if seed is not None:
            chosen = set(ids.tolist())
            seed = [int(seed) if i in chosen else None for i in range(self.env_num)]
        obs, infos = self._reset(ids, seed, options)
        return _object_array(obs), _object_array(infos)

    def step(self, action: Any, id: IdArg = None) -> gym_new_venv_step_type:
        self._assert_is_not_closed()
        ids = self._ids(id)
        if action is None:
            raise ValueError("action must not be None (the adapter is not asynchronous)")
        action = np.asarray(action).reshape(-1)
        if len(action) != len(ids):
            raise ValueError(f"{len(action)} actions for {len(ids)} env ids")
        ended = ids[self._needs_reset[ids]].tolist()
        if ended:
            raise RuntimeError(
                f"envs {ended} have ended an episode (or were never reset): reset them first"
            )
        stale = ids[self._stale[ids]].tolist()
        if stale:
            raise RuntimeError(
                f"envs {stale} were stepped while idle (a gymnasium VectorEnv steps all its envs "
                "together): reset them before stepping them again"
            )
        idle = np.ones(self.env_num, dtype=bool)
        idle[ids] = False
        if (idle & self._needs_reset).any():
            self._reset(np.flatnonzero(idle & self._needs_reset))
        actions = self._masks.argmax(axis=1).astype(self.single_action_space.dtype)
        actions[ids] = action
        hold = getattr(self.venv, "hold", None)
        if hold is not None:
            hold(idle)
        obs, rew, term, trunc, infos = self.venv.step(actions)
        term, trunc = np.asarray(term, dtype=bool), np.asarray(trunc, dtype=bool)
        self._elapsed += 1
        if self.max_episode_steps is not None:
            trunc = trunc | (self._elapsed >= self.max_episode_steps)
        self._needs_reset |= term | trunc
        self._stale |= idle
        if hold is None:
            self.idle_steps += int(idle.sum())
        all_ids = np.arange(self.env_num)
        obs_list, info_list = self._convert(obs, infos, all_ids)
        for i, info in enumerate(info_list):
            info["env_id"] = i
        return (
            _object_array([obs_list[i] for i in ids]),
            np.asarray(rew, dtype=np.float64)[ids],
            term[ids],
            trunc[ids],
            _object_array([info_list[i] for i in ids]),
        )

    def seed(self, seed: int | list[int] | None = None) -> list[list[int] | None]:
        """Seed env i with seed + i (or seed[i]) by resetting it, as tianshou's workers do."""
        self._assert_is_not_closed()
        if isinstance(seed, int):
            seeds: list[int | None] = [seed + i for i in range(self.env_num)]
        else:
            seeds = [None] * self.env_num if seed is None else list(seed)
        if len(seeds) != self.env_num:
            raise ValueError(f"{len(seeds)} seeds for {self.env_num} envs")
        for space, s in zip(self._action_spaces, seeds, strict=True):
            space.seed(s)
        # an int or None goes as is: a native vector env may not take a list of seeds
        self._reset(
            np.arange(self.env_num), seed if seed is None or isinstance(seed, int) else seeds
        )
        return [[s] if s is not None else None for s in seeds]

    def get_env_attr(self, key: str, id: IdArg = None) -> list[Any]:
        """Per-env attribute. The spaces are those of what the adapter returns (tianshou's
        workers would give the unwrapped env's); others come from the sub-envs when the vector
        env has them (`get_attr`), else from the vector env itself, one object for all."""
        self._assert_is_not_closed()
        ids = self._ids(id).tolist()
        if key == "action_space":
            return [self._action_spaces[i] for i in ids]
        if key == "observation_space":
            return [self.masked_observation_space for _ in ids]
        get_attr = getattr(self.venv.unwrapped, "get_attr", None)
        if get_attr is not None:
            values = get_attr(key)
            return [values[i] for i in ids]
        value = getattr(self.venv, key)
        return [value for _ in ids]

    def set_env_attr(self, key: str, value: Any, id: IdArg = None) -> None:
        self._assert_is_not_closed()
        unwrapped = self.venv.unwrapped
        if not (hasattr(unwrapped, "set_attr") and hasattr(unwrapped, "get_attr")):
            raise NotImplementedError(f"{type(unwrapped).__name__} has no set_attr")
        values = list(unwrapped.get_attr(key))
        for i in self._ids(id).tolist():
            values[i] = value
        unwrapped.set_attr(key, values)

    def render(self, **kwargs: Any) -> list[Any]:
        self._assert_is_not_closed()
        frames = self.venv.render()
        return list(frames) if isinstance(frames, tuple | list) else [frames]

    def close(self) -> None:
        self._assert_is_not_closed()
        self.venv.close()
        self.is_closed = True


def adapt_vector_env(
    factory: VectorEnvFactory,
    num_envs: int,
    *,
    success_key: str = "success",
    mask_key: str = "action_mask",
    max_episode_steps: int | None = None,
) -> VectorEnvAdapter:
    """`factory(num_envs)` behind a VectorEnvAdapter, checked to hold `num_envs` envs.

    Closes what the factory made if it is unusable, so a failed check leaks no envs.
    """
    venv = factory(num_envs)
    try:
        if not isinstance(venv, VectorEnv):
            raise TypeError(
                f"vector_env_factory({num_envs}) returned {type(venv).__name__}, not a "
                "gymnasium.vector.VectorEnv (single-env factories go to train(env_factory=...))"
            )
        adapter = VectorEnvAdapter(venv, success_key, mask_key, max_episode_steps)
        if adapter.env_num != num_envs:
            raise ValueError(
                f"vector_env_factory({num_envs}) returned a vector env of {adapter.env_num} envs"
            )
    except (TypeError, ValueError):
        close = getattr(venv, "close", None)
        if callable(close):
            close()
        raise
    return adapter
