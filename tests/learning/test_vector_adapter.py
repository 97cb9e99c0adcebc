"""The native vector-env path: `VectorEnvAdapter` over a Gymnasium VectorEnv acts like tianshou's
DummyVectorEnv over the same single envs, and `train(vector_env_factory=...)` learns through it
with exact step counts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from tianshou.env import DummyVectorEnv

from nesyworld.learning import PPOConfig, TrainResult, VectorEnvAdapter, train
from nesyworld.learning.algorithms.masking import ActionMaskObservation

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED]


def _random_start(grid: SimpleNamespace) -> type:
    """The gridworld starting on a random cell of its top two rows (so seeds matter)."""

    class RandomStart(grid.GridWorld):  # type: ignore[misc, name-defined]
        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            super().reset(seed=seed)
            self.pos = (int(self.np_random.integers(2)), int(self.np_random.integers(5)))
            return self._obs(), {"action_mask": self.action_mask()}

    return RandomStart


def _assert_same(expected: tuple, actual: tuple) -> None:
    """Same values, dtypes and per-env dicts in two vector-env outputs."""
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual, strict=True):
        assert e.shape == a.shape and e.dtype == a.dtype
        if e.dtype != object:
            np.testing.assert_array_equal(e, a)
            continue
        for de, da in zip(e, a, strict=True):
            assert de.keys() == da.keys()
            for key in de:
                ve, va = np.asarray(de[key]), np.asarray(da[key])
                assert ve.dtype == va.dtype
                np.testing.assert_array_equal(ve, va)


def _pair(grid: SimpleNamespace, n: int, mode: AutoresetMode, limit: int | None, **kw: Any):
    """A DummyVectorEnv of wrapped single envs and an adapter over a SyncVectorEnv of the same."""
    env_cls = _random_start(grid)

    def single() -> gym.Env:
        env = env_cls(**kw)
        env = env if limit is None else gym.wrappers.TimeLimit(env, max_episode_steps=limit)
        return ActionMaskObservation(env)

    dummy = DummyVectorEnv([single] * n)
    venv = SyncVectorEnv([lambda: env_cls(**kw)] * n, autoreset_mode=mode)
    return dummy, VectorEnvAdapter(venv, max_episode_steps=limit)


def _scripted(obs: dict, rng: np.random.Generator, greedy: bool) -> int:
    """Right along the top rows, down the right column, left along the bottom (reaches the
    goal from any start of RandomStart); or a random legal action."""
    legal = np.flatnonzero(obs["mask"])
    if not greedy:
        return int(rng.choice(legal))
    row = int(np.argmax(obs["obs"])) // 5
    for action in (3, 1) if row < 4 else (2,):
        if obs["mask"][action]:
            return action
    return int(legal[0])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("limit", [None, 5])
def test_adapter_matches_dummy_vector_env(
    grid: SimpleNamespace, mode: AutoresetMode, limit: int | None
) -> None:
    """Same seeds, same actions: same observations, masks, rewards, dones and infos, through
    the partial resets of the envs whose episodes end (as the Collector does them)."""
    dummy, adapter = _pair(grid, 3, mode, limit, max_steps=16)
    assert dummy.seed(7) == adapter.seed(7)
    first = adapter.reset()
    _assert_same(dummy.reset(), first)
    obs, lengths = list(first[0]), np.zeros(3, int)
    rng = np.random.default_rng(0)
    ended: list[int] = []
    successes = 0
    for _ in range(80):
        actions = np.array([_scripted(o, rng, greedy=i == 0) for i, o in enumerate(obs)])
        out = adapter.step(actions)
        _assert_same(dummy.step(actions), out)
        lengths += 1
        done = np.flatnonzero(out[2] | out[3])
        successes += sum(info["success"] for info in out[4])
        obs = list(out[0])
        if done.size:
            reset_out = adapter.reset(env_id=done)
            _assert_same(dummy.reset(env_id=done), reset_out)
            for j, i in enumerate(done):
                obs[i] = reset_out[0][j]
            ended.extend(lengths[done].tolist())
            lengths[done] = 0
    assert len(ended) >= 10 and max(ended) == (limit or 16)
    # env 0 reaches the goal within 13 steps, but not within 5
    assert successes >= 3 if limit is None else successes == 0


@pytest.mark.parametrize("mode", MODES)
def test_stepping_some_ids_leaves_the_others_stale(grid: SimpleNamespace, mode: str) -> None:
    """A batched env steps all its envs: the ones not asked (idle) take their first legal
    action, are counted in idle_steps, restart by themselves when their episode ends, and
    cannot be stepped again before a reset."""
    counters = [[0] for _ in range(3)]
    envs = iter(counters)
    venv = SyncVectorEnv(
        [lambda: grid.GridWorld(max_steps=4, counter=next(envs))] * 3, autoreset_mode=mode
    )
    adapter = VectorEnvAdapter(venv)
    dummy = DummyVectorEnv([lambda: ActionMaskObservation(grid.GridWorld(max_steps=4))] * 3)
    adapter.seed(0)
    dummy.seed(0)
    _assert_same(dummy.reset(), adapter.reset())
    ids = np.array([0, 2])
    for t in range(10):  # idle env 1 ends episodes at idle steps 4 and 8 and is reset
        actions = np.array([[3, 3, 2, 2][t % 4], [1, 0, 1, 0][t % 4]])
        out = adapter.step(actions, id=ids)
        _assert_same(dummy.step(actions, id=ids), out)
        assert [info["env_id"] for info in out[4]] == [0, 2]
        if t % 4 == 3:
            assert out[3].all()  # truncated after 4 steps: reset as the Collector would
            _assert_same(dummy.reset(env_id=ids), adapter.reset(env_id=ids))
    assert adapter.pop_idle_steps() == 10 and adapter.idle_steps == 0
    assert [c[0] for c in counters] == [10, 10, 10]
    with pytest.raises(RuntimeError, match=r"envs \[1\] were stepped while idle"):
        adapter.step(np.array([1]), id=[1])
    _assert_same(dummy.reset(env_id=[1]), adapter.reset(env_id=[1]))
    _assert_same(dummy.step(np.array([1]), id=[1]), adapter.step(np.array([1]), id=[1]))


def test_info_keys_missing_in_some_envs(grid: SimpleNamespace) -> None:
    """An env that gives no mask (or no success flag) has all actions legal (and no success),
    as for a single env, although the batched info array holds zeros in its row."""

    class NoInfo(grid.GridWorld):  # type: ignore[misc, name-defined]
        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            return super().reset(seed=seed)[0], {}

        def step(self, action: int) -> Any:
            return (*super().step(action)[:4], {})

    dummy = DummyVectorEnv(
        [lambda: ActionMaskObservation(grid.GridWorld()), lambda: ActionMaskObservation(NoInfo())]
    )
    adapter = VectorEnvAdapter(SyncVectorEnv([grid.GridWorld, NoInfo]))
    first = adapter.reset()
    _assert_same(dummy.reset(), first)
    assert first[0][1]["mask"].tolist() == [1] * 5
    _assert_same(dummy.step(np.array([1, 3])), adapter.step(np.array([1, 3])))


def test_ended_episodes_must_be_reset(grid: SimpleNamespace) -> None:
    adapter = VectorEnvAdapter(SyncVectorEnv([lambda: grid.GridWorld(max_steps=1)] * 2))
    with pytest.raises(RuntimeError, match=r"envs \[0, 1\] have ended an episode"):
        adapter.step(np.array([1, 1]))  # never reset
    adapter.reset()
    adapter.step(np.array([1, 3]))
    with pytest.raises(RuntimeError, match=r"envs \[1\] have ended an episode"):
        adapter.step(np.array([3]), id=[1])


def test_spaces_and_attributes(grid: SimpleNamespace) -> None:
    adapter = VectorEnvAdapter(SyncVectorEnv([grid.GridWorld] * 2))
    single = ActionMaskObservation(grid.GridWorld())
    assert adapter.observation_space == [single.observation_space] * 2
    assert adapter.action_space == [gym.spaces.Discrete(5)] * 2
    assert adapter.action_space[0] is not adapter.action_space[1]  # seeded per env
    assert adapter.get_env_attr("max_steps", id=1) == [50]
    adapter.set_env_attr("max_steps", 3, id=[0])
    assert adapter.get_env_attr("max_steps") == [3, 50]
    adapter.close()
    assert adapter.venv.closed


# ---- train() on native vector envs ----------------------------------------------------------


def test_train_on_native_vector_env_counts_steps_exactly(
    grid: SimpleNamespace, native_chain: type
) -> None:
    """A native numpy vector env (conftest's NativeChain): learnt, its own step counters equal
    env_steps and eval_env_steps, and the adapter never leaves a reset to the env's autoreset."""
    made: list[Any] = []

    def factory(n: int) -> VectorEnv:
        made.append(native_chain(n))
        return made[-1]

    # 3 evaluation episodes on 2 envs: the last one runs alone while the other env idles
    config = grid.fast_config(
        step_budget=2001, epoch_length=300, collect_chunk=128, eval_episodes=3
    )
    result = train(config=config, ppo=PPOConfig(), vector_env_factory=factory)
    train_env, eval_env = made
    assert (train_env.num_envs, eval_env.num_envs) == (2, 2)
    assert result.converged and result.epochs[-1].mean_reward == 1000 - (native_chain.LENGTH - 2)
    assert result.env_steps == train_env.steps == sum(e.epoch_steps for e in result.epochs)
    assert result.eval_env_steps == eval_env.steps == sum(e.eval_steps for e in result.epochs)
    collected = sum(round(e.mean_length * e.eval_episodes) for e in result.epochs)
    assert eval_env.steps > collected  # the idle env's steps are counted too
    assert train_env.autoresets == eval_env.autoresets == 0
    assert train_env.closed and eval_env.closed


def test_train_on_sync_vector_env_matches_single_envs(
    trained: TrainResult, grid: SimpleNamespace
) -> None:
    """The gridworld through SyncVectorEnv trains exactly as through DummyVectorEnv (the
    `trained` fixture: same seed, same config), so it learns the task to the optimum."""
    result = train(
        config=grid.fast_config(seed=0),
        ppo=PPOConfig(),
        vector_env_factory=lambda n: SyncVectorEnv([grid.GridWorld] * n),
    )
    assert result.converged and result.env_steps == trained.env_steps <= 6_000

    def curve(r: TrainResult) -> list[tuple]:
        return [(e.steps, e.success_rate, e.mean_reward, e.mean_length, e.train_episodes,
                 e.train_mean_reward, e.eval_steps) for e in r.epochs]  # fmt: skip

    assert curve(result) == curve(trained)
    success, steps = grid.greedy_rollout(result.policy.act)
    assert success and steps <= grid.SHORTEST_PATH + 2


def test_time_limit_of_native_vector_envs(grid: SimpleNamespace) -> None:
    config = grid.fast_config(max_episode_steps=10, step_budget=250, stop_on_convergence=False)
    result = train(
        config=config,
        ppo=PPOConfig(hidden_sizes=(16,)),
        vector_env_factory=lambda n: SyncVectorEnv([grid.GridWorld] * n),
    )
    assert result.epochs[0].mean_length == 10 and result.epochs[0].success_rate == 0


# ---- bad input -----------------------------------------------------------------------------


def test_bad_vector_env_factories(grid: SimpleNamespace, native_chain: type) -> None:
    config = grid.fast_config(step_budget=100)
    with pytest.raises(TypeError, match="exactly one of env_factory and vector_env_factory"):
        train(grid.GridWorld, config, vector_env_factory=native_chain)
    with pytest.raises(TypeError, match="exactly one of env_factory and vector_env_factory"):
        train(config=config)
    with pytest.raises(TypeError, match=r"returned GridWorld, not a gymnasium.vector.VectorEnv"):
        train(config=config, vector_env_factory=lambda n: grid.GridWorld())
    made: list[VectorEnv] = []

    def three_envs(n: int) -> VectorEnv:
        made.append(SyncVectorEnv([grid.GridWorld] * 3))
        return made[-1]

    with pytest.raises(ValueError, match=r"vector_env_factory\(2\) returned a vector env of 3"):
        train(config=config, vector_env_factory=three_envs)
    assert len(made) == 1 and made[0].closed

    def right_for_training_only(n: int) -> VectorEnv:
        made.append(SyncVectorEnv([grid.GridWorld] * 2))
        return made[-1]

    with pytest.raises(ValueError, match=r"vector_env_factory\(1\) returned a vector env of 2"):
        train(config=grid.fast_config(eval_episodes=1), vector_env_factory=right_for_training_only)
    assert len(made) == 3 and all(v.closed for v in made)  # the training env is closed too


def test_unsupported_vector_envs(grid: SimpleNamespace) -> None:
    same_step = SyncVectorEnv([grid.GridWorld] * 2, autoreset_mode=AutoresetMode.SAME_STEP)
    with pytest.raises(ValueError, match="SAME_STEP are not supported"):
        VectorEnvAdapter(same_step)
    continuous = SyncVectorEnv([lambda: gym.make("MountainCarContinuous-v0")])
    with pytest.raises(TypeError, match="needs a Discrete action space"):
        VectorEnvAdapter(continuous)
    with pytest.raises(TypeError, match="got GridWorld"):
        VectorEnvAdapter(grid.GridWorld())  # type: ignore[arg-type]
