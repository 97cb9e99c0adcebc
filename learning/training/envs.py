"""The training and evaluation vector envs of `train`: N single envs in tianshou's vector envs,
or one native Gymnasium vector env behind `VectorEnvAdapter`.

Both paths hand the policy the same observations and infos (ActionMaskObservation for single
envs, the same encoding inside the adapter) and apply `TrainConfig.max_episode_steps` the same
way (a TimeLimit per single env, the adapter's own limit for a vector env).
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
from tianshou.env import BaseVectorEnv, DummyVectorEnv, SubprocVectorEnv

from nesyworld.learning.algorithms.masking import ActionMaskObservation
from nesyworld.learning.config import TrainConfig
from nesyworld.learning.training.vector_adapter import (
    VectorEnvAdapter,
    VectorEnvFactory,
    adapt_vector_env,
)

__all__ = ["EnvFactory", "make_envs"]

EnvFactory = Callable[[], gym.Env]


def _make_venv(fns: list[EnvFactory], kind: str) -> BaseVectorEnv:
    return SubprocVectorEnv(fns) if kind == "subprocess" else DummyVectorEnv(fns)


def _wrapped_factory(env_factory: EnvFactory, config: TrainConfig, success_key: str) -> EnvFactory:
    def make() -> gym.Env:
        env = env_factory()
        if config.max_episode_steps is not None:
            env = gym.wrappers.TimeLimit(env, max_episode_steps=config.max_episode_steps)
        return ActionMaskObservation(env, success_key=success_key)

    return make


def make_envs(
    env_factory: EnvFactory | None,
    vector_env_factory: VectorEnvFactory | None,
    config: TrainConfig,
    success_key: str,
    venvs: list[BaseVectorEnv],
) -> tuple[gym.Space, gym.Space]:
    """Append the training and the evaluation vector envs to `venvs` (so that the caller closes
    whatever was made, even when a later one fails); return the raw observation and action space.
    """
    n_eval_envs = min(config.num_envs, config.eval_episodes)
    if vector_env_factory is not None:
        adapters: list[VectorEnvAdapter] = []
        limit = config.max_episode_steps
        for n in (config.num_envs, n_eval_envs):
            adapter = adapt_vector_env(
                vector_env_factory, n, success_key=success_key, max_episode_steps=limit
            )
            adapters.append(adapter)
            venvs.append(adapter)
        return adapters[0].raw_observation_space, adapters[0].single_action_space
    assert env_factory is not None
    # The spaces come from a probe env made here (never reset or stepped): tianshou's
    # `get_env_attr` reads `env.unwrapped`, which misses any wrapper that changes the spaces.
    probe = env_factory()
    spaces = probe.observation_space, probe.action_space
    probe.close()
    make = _wrapped_factory(env_factory, config, success_key)
    for n in (config.num_envs, n_eval_envs):
        venvs.append(_make_venv([make] * n, config.vector_env))
    return spaces
