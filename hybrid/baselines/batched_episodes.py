"""Evaluation episodes of a trained policy on the batched core, all seeds at once.

Why: the protocol plays ~100 evaluation episodes per epoch, and `run_episode` plays them one
env at a time, with a Python step and a one-row forward pass per env step; for the RL
baselines that loop was most of the table 2 grid's wall time. Here one `NesyVectorEnv` holds
one copy per seed, every copy steps in one compiled call, and the policy sees every running
copy's observation in one forward pass.

The episodes are the ones `run_episode(env, agent, seed)` would play: copy i is reset with
`seeds[i]` (a `NesyVectorEnv` copy matches `NesyGridEnv` step for step for the same seed and
spec), and the actions come from the same probabilities `Policy.action_probabilities` gives
(greedy: the same argmax; sampled: the same distribution, drawn from another stream).

`steady_world` says when that holds for an acting env that is not a plain `NesyGridEnv`: a
`NoveltyInjector` whose schedule would change the world during the evaluation (a novelty due
at a later episode, or one arriving mid-episode) cannot be replayed by one vector env.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv

from nesyworld.hybrid.baselines.vector_envs import VectorForbidActions
from nesyworld.hybrid.execution.episode import EpisodeResult
from nesyworld.learning import Policy
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.novelty.injection import NoveltyInjector

BatchActor = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""(observations (k, d), legal-action masks (k, n)) -> actions (k,), one row per copy."""

TRANSPARENT_WRAPPERS: tuple[type[gym.Wrapper], ...] = (
    gym.wrappers.OrderEnforcing, gym.wrappers.PassiveEnvChecker)
"""Wrappers that change no observation, reward, mask or episode end (gym.make adds them), so
an env behind them can still be replayed on the batched core."""


def policy_actions(policy: Policy, obs: np.ndarray, mask: np.ndarray, greedy: bool,
                   rng: np.random.Generator) -> np.ndarray:
    """One action per row from one forward pass of `policy`'s actor
    (`Policy.batch_probabilities`): greedy actions are its argmax, sampled ones follow its
    distribution by inverse CDF on one uniform draw per row, so a zero-probability action is
    never chosen."""
    probs = policy.batch_probabilities(obs, mask)
    if greedy:
        return probs.argmax(axis=1)
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(len(probs))[:, None] * cdf[:, -1:]
    return np.minimum((cdf > u).argmax(axis=1), probs.shape[1] - 1)


def play_batched(env: VectorEnv, seeds: Sequence[int], act: BatchActor,
                 max_episode_steps: int | None = None) -> list[EpisodeResult]:
    """One episode per seed, copy i of `env` (which has one copy per seed) reset with
    `seeds[i]`; results in the order of `seeds`.

    An episode ends when its copy terminates or truncates, or after `max_episode_steps`
    steps (None: only the env's own limit). Finished copies are still stepped (the core
    steps every copy) with action 0 and their autoreset episodes ignored; only running copies
    go through `act`. `EpisodeResult.wall_seconds` is the whole evaluation's wall time shared
    evenly, since the episodes ran together: summed, they give the evaluation's time.
    """
    n = len(seeds)
    if env.num_envs != n:
        raise ValueError(f"{n} seeds for a vector env of {env.num_envs} copies")
    start = time.perf_counter()
    # a seed per copy (the VectorEnv base class annotates one int)
    obs, info = env.reset(seed=[int(s) for s in seeds])  # type: ignore[arg-type]
    mask = np.asarray(info["action_mask"], bool)
    running = np.ones(n, bool)
    steps = np.zeros(n, np.int64)
    returns = np.zeros(n, np.float64)
    success = np.zeros(n, bool)
    actions = np.zeros(n, np.int64)
    limit = np.iinfo(np.int64).max if max_episode_steps is None else int(max_episode_steps)
    while running.any():
        actions[:] = 0
        actions[running] = act(obs[running], mask[running])
        obs, reward, terminated, truncated, info = env.step(actions)
        mask = np.asarray(info["action_mask"], bool)
        steps[running] += 1
        returns[running] += np.asarray(reward, np.float64)[running]
        ended = running & (np.asarray(terminated) | np.asarray(truncated) | (steps >= limit))
        success[ended] = np.asarray(info["success"], bool)[ended]
        running &= ~ended
    share = (time.perf_counter() - start) / n if n else 0.0
    return [EpisodeResult(int(seed), bool(success[i]), int(steps[i]), float(returns[i]), share)
            for i, seed in enumerate(seeds)]


def evaluate_policy(env: gym.Env, policy: Policy, seeds: Sequence[int],
                    forbidden: Sequence[str], greedy: bool, rng: np.random.Generator,
                    max_episode_steps: int | None = None, action_masks: bool = True
                    ) -> list[EpisodeResult]:
    """`play_batched` on one copy per seed of `env`'s current world, with `env`'s observation
    config and the `forbidden` actions masked as `ForbidActions` masks them (with
    `action_masks=False`, every other action offered: `RLConfig.action_masks`); `policy`
    acts as `policy_actions` says. The caller checks `steady_world` and that the world is
    the one the episodes play in (after a novelty: reset `env` first)."""
    inner: Any = env.unwrapped
    copies = NesyVectorEnv(len(seeds), spec=inner.world.spec, observation=inner.config)
    venv = VectorForbidActions(copies, tuple(forbidden), action_masks)
    if tuple(copies.action_names) != tuple(inner.action_names):
        raise RuntimeError("the batched copies name their actions otherwise than the env")

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return policy_actions(policy, obs, mask, greedy, rng)

    try:
        return play_batched(venv, seeds, act, max_episode_steps)
    finally:
        venv.close()


def steady_world(env: gym.Env, episodes: int) -> bool:
    """Whether the next `episodes` episodes of `env`, reset one after another as
    `run_episode` does, all play in the world of the first reset, with nothing between the
    policy and that world's LiDAR, rewards and masks.

    True for a `NesyGridEnv` behind at most a `NoveltyInjector` and Gymnasium's checking
    wrappers, when the injector's schedule brings no novelty after the first of these resets
    (one due at reset, such as the protocol's ``{episode: 0}``, arrives at the first) and
    none mid-episode. Any other wrapper might change what the agent sees: not replayable.
    """
    injector: NoveltyInjector | None = None
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, NoveltyInjector) and injector is None:
            injector = layer
        elif not isinstance(layer, TRANSPARENT_WRAPPERS):
            return False
        layer = layer.env
    if not isinstance(layer, NesyGridEnv):
        return False
    if injector is None:
        return True
    first, last = injector.episode + 1, injector.episode + episodes
    for novelty in injector.novelties:
        due = novelty.inject.episode
        if novelty.inject.mid_episode and due <= last:
            return False
        if first < due <= last:
            return False
    return True


def skip_episodes(env: gym.Env, episodes: int) -> None:
    """Count `episodes` episodes as played by `env`'s `NoveltyInjector` (if any), as if
    `run_episode` had reset it once for each: its schedule counts resets. Negative counts
    take back resets that played no episode."""
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, NoveltyInjector):
            layer.episode += episodes
            return
        layer = layer.env
