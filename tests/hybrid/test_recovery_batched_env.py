"""The batched recovery env (hybrid/recovery/batched_env.py) against `RecoveryEnv`, copy for
copy: the same observations, masks, rewards, terminations, truncations, successes and wins
given the same seeds and actions, on the Axe, Fence and Fire failures."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from nesyworld.hybrid import PlanningAgent, PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.batched_env import RecoveryVectorEnv
from nesyworld.hybrid.recovery.env import RecoveryEnv, RecoveryEnvConfig
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")


@cache
def failure_of(novelty: str) -> tuple[World, OperatorFailure]:
    """The planning agent under `novelty`, run until an operator fails."""
    env = NesyGridEnv(apply_novelties("pogostick", [novelty]))
    agent = PlanningAgent(env, KB, PlanningConfig(planner="in-process"))
    obs, info = env.reset(seed=0)
    agent.reset(obs, info)
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        agent.observe(obs, float(reward), terminated, truncated, info)
        if agent.failures or terminated or truncated:
            break
    assert agent.failures, f"the {novelty} novelty should break an operator"
    return agent.env.unwrapped.world, agent.failures[0]


def compare(novelty: str, n: int, steps: int, seed: int, horizon: int = 40,
            extra_starts: int = 0) -> RecoveryVectorEnv:
    """Step `n` RecoveryEnvs and a RecoveryVectorEnv of `n` copies with the same random
    legal actions (NEXT_STEP autoreset for the singles too), asserting equality."""
    world, failure = failure_of(novelty)
    config = RecoveryEnvConfig(horizon=horizon)
    args = (world.spec, failure.snapshot, failure, KB, config)
    kwargs = {"starts": [failure] * extra_starts}
    singles = [RecoveryEnv(*args, **kwargs) for _ in range(n)]
    venv = RecoveryVectorEnv(n, *args, **kwargs)
    obs, info = venv.reset(seed=seed)
    pending = [False] * n
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=seed + i)
        np.testing.assert_array_equal(obs[i], o)
        np.testing.assert_array_equal(info["action_mask"][i], inf["action_mask"].astype(bool))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, reward, terminated, truncated, info = venv.step(actions)
        for i, env in enumerate(singles):
            if pending[i]:
                o, inf = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, inf = env.step(actions[i])
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(info["action_mask"][i],
                                          inf["action_mask"].astype(bool))
            assert (reward[i], terminated[i], truncated[i], info["success"][i]) == (
                r, te, tr, inf["success"]), (novelty, i)
            pending[i] = te or tr
    wins = {w for env in singles for w in env.wins}
    assert set(venv.wins) <= wins and bool(venv.wins) == bool(wins)
    assert sum(env.env_steps for env in singles) == venv.env_steps
    return venv


@pytest.mark.parametrize("novelty", ["axe", "fence", "fire"])
def test_copies_match_recovery_envs(novelty: str) -> None:
    compare(novelty, n=4, steps=300, seed=3)


def test_starts_are_drawn_as_recovery_env_draws_them() -> None:
    compare("axe", n=3, steps=200, seed=5, horizon=15, extra_starts=2)


def test_held_copies_stay_where_they_are() -> None:
    """Evaluation's idle copies (`hold`) take no step: their episodes and counts go on as if
    they had not been asked."""
    world, failure = failure_of("axe")
    venv = RecoveryVectorEnv(3, world.spec, failure.snapshot, failure, KB,
                             RecoveryEnvConfig(horizon=20))
    obs, info = venv.reset(seed=0)
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    venv.hold(np.array([False, True, False]))
    after, reward, *_ = venv.step(actions)
    np.testing.assert_array_equal(after[1], obs[1])
    assert reward[1] == 0 and venv.env_steps == 2
    venv.step(actions)  # a hold lasts one step
    assert venv.env_steps == 5


def test_worlds_whose_abstraction_reads_more_than_the_key_are_not_batched() -> None:
    """The Distance novelty's actions reach past the cell in front: the abstraction looks
    ahead, which the key does not hold, so its recoveries keep training on RecoveryEnvs."""
    from nesyworld.hybrid.recovery.abstract_keys import unkeyable

    assert unkeyable(World(apply_novelties("pogostick", ["distance"])))
    for novelty in ("axe", "fence", "fire"):
        assert unkeyable(World(apply_novelties("pogostick", [novelty]))) == ""


def test_the_recovery_factory_is_batched_where_the_world_runs_there() -> None:
    from nesyworld.hybrid.recovery.batched_env import recovery_vector_env_factory

    world, failure = failure_of("axe")
    factory = recovery_vector_env_factory(world.spec, failure.snapshot, failure, KB)
    assert factory is not None
    venv = factory(3)
    assert isinstance(venv, RecoveryVectorEnv) and venv.num_envs == 3


def test_chunks_and_epochs_are_whole_rounds_of_the_copies() -> None:
    from nesyworld.hybrid.recovery.config import RecoveryConfig, batched_train_config

    train = RecoveryConfig().train
    assert batched_train_config(train, 4).collect_chunk == 500
    sixteen = batched_train_config(train, 16)
    assert (sixteen.num_envs, sixteen.collect_chunk, sixteen.epoch_length) == (16, 512, 512)
