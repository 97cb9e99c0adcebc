"""The batched core against the single env: the same seeds must give the same trajectories.

Each copy of a `NesyVectorEnv` is stepped beside a `NesyGridEnv` of the same spec, seeded
alike, with the same actions (mostly legal ones, so that crafting, breaking, placing and
schedules happen, and some refused ones). Observations, rewards, flags, masks and the whole
world state must agree at every step, across autoresets, on every shipped domain, every
shipped novelty and the hand-made map that exercises every action class.
"""

from __future__ import annotations

import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import nesyworld.world.envs  # noqa: F401  (registers the ids)
from nesyworld.domains import shipped_novelties, shipped_specs
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.novelty.transforms import apply_novelties
from nesyworld.world.spec.model import WorldSpec

PLUGIN_NOVELTIES = {"busy", "random_drop", "space_around"}  # classes without a kernel


def side_by_side(spec: WorldSpec | str, n: int = 3, steps: int = 160,
                 seed: int = 7) -> NesyVectorEnv:
    """Step both, compare everything at every step; the vector env, for further checks."""
    vec = NesyVectorEnv(n, spec=spec)
    singles = [NesyGridEnv(spec) for _ in range(n)]
    obs, info = vec.reset(seed=seed)
    pairs = [s.reset(seed=seed + i) for i, s in enumerate(singles)]
    rng = np.random.default_rng(seed)
    ended = np.zeros(n, bool)
    for t in range(steps):
        for i, (o, inf) in enumerate(pairs):
            where = f"env {i} at step {t}"
            np.testing.assert_array_equal(obs[i], o, err_msg=where)
            np.testing.assert_array_equal(info["action_mask"][i], inf["action_mask"],
                                          err_msg=where)
            assert vec.batch.export(i).equals(singles[i].world.state), where
        masks = info["action_mask"]
        actions = np.array([
            rng.choice(np.flatnonzero(m)) if rng.random() < 0.8 and m.any()
            else rng.integers(len(m)) for m in masks], np.int64)
        obs, reward, terminated, truncated, info = vec.step(actions)
        pairs = []
        for i, single in enumerate(singles):
            if ended[i]:  # NEXT_STEP autoreset: this step restarted the episode
                o, inf = single.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, inf = single.step(actions[i])
                assert info["ok"][i] == inf["ok"] and info["cost"][i] == inf["cost"]
            assert (reward[i], terminated[i], truncated[i]) == (r, te, tr), f"env {i} step {t}"
            assert info["success"][i] == inf["success"] and info["step"][i] == inf["step"]
            pairs.append((o, inf))
        ended = terminated | truncated
    return vec


@pytest.mark.parametrize("name", sorted(shipped_specs()))
def test_shipped_domains_step_alike(name: str) -> None:
    vec = side_by_side(name)
    if vec.batch.spec.map.generate is not None:  # a fresh map per episode: the worlds engine
        assert vec.batch.engine == "worlds" and "map.generate" in vec.batch.why_not
    elif vec.batch.spec.lifelong is not None:  # regrowth and reward schedules: the same
        assert vec.batch.engine == "worlds" and "lifelong" in vec.batch.why_not
    else:
        assert vec.batch.engine == "compiled"


@pytest.mark.parametrize("novelty", sorted(n for n, p in shipped_novelties().items()
                                             if p.parent.parent.name == "polycraft"))
def test_shipped_novelties_step_alike(novelty: str) -> None:
    vec = side_by_side(apply_novelties("pogostick", [novelty]))
    if novelty in PLUGIN_NOVELTIES:
        assert vec.batch.engine == "worlds" and "no batched kernel" in vec.batch.why_not
    else:
        assert vec.batch.engine == "compiled", vec.batch.why_not


def test_every_action_class_steps_alike(mini_spec: WorldSpec) -> None:
    """The hand-made map: a tree with on_break saplings, a burning station, gold walled off."""
    vec = side_by_side(mini_spec, n=4, steps=300)
    assert vec.batch.engine == "compiled"


def test_episodes_end_and_restart_alike() -> None:
    """Enough steps that random play gives up or times out many times over."""
    side_by_side("pogostick", n=2, steps=900, seed=3)


def test_make_vec_builds_the_batched_env() -> None:
    env = gymnasium.make_vec("nesyworld/Pogostick-v0", num_envs=5,
                             vectorization_mode="vector_entry_point")
    assert isinstance(env.unwrapped, NesyVectorEnv)
    obs, info = env.reset(seed=0)
    assert obs.shape == (5, *env.single_observation_space.shape)
    assert info["action_mask"].shape == (5, env.single_action_space.n)
    assert info["_action_mask"].all()
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("actions, expected", [
    (np.zeros(4, np.int64), "shape (3,)"),
    (np.zeros((3, 1), np.int64), "shape (3,)"),
    (np.int64(0), "shape (3,)"),
    (np.zeros(3, np.float32), "dtype float32"),
    (np.zeros(3, bool), "dtype bool"),
    (np.array([0, 1, 999]), "action 999 of env 2"),
    (np.array([0, -1, 0]), "action -1 of env 1"),
])
def test_bad_action_batches_are_refused_with_what_was_expected(actions: np.ndarray,
                                                               expected: str) -> None:
    vec = NesyVectorEnv(3)
    vec.reset(seed=0)
    before = [vec.batch.export(i) for i in range(3)]
    with pytest.raises(ValueError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        vec.step(actions)
    assert all(vec.batch.export(i).equals(s) for i, s in enumerate(before)), "nothing changed"


@pytest.mark.parametrize("engine", ["compiled", "worlds"])
def test_a_partial_reset_observes_every_copy_as_a_full_one_would(engine: str) -> None:
    """A partial reset observes only the copies it restarted; the others' rows must still be
    what a full observation of every copy gives."""
    vec = NesyVectorEnv(4, engine=engine)
    vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, _, _, _, info = vec.step(rng.integers(0, vec.single_action_space.n, 4))
    obs, info = vec.reset(options={"reset_mask": np.array([False, True, False, True])})
    full_obs, full_mask = np.zeros_like(obs), np.zeros_like(info["action_mask"])
    vec.batch.lidar_into(full_obs, vec.config.inventory_cap, vec.config.lidar_range)
    vec.batch.action_mask_into(full_mask)
    np.testing.assert_array_equal(obs, full_obs)
    np.testing.assert_array_equal(info["action_mask"], full_mask)


def test_partial_reset_and_explicit_seeds() -> None:
    vec = NesyVectorEnv(3)
    vec.reset(seed=[10, 11, 12])
    first = [vec.batch.export(i) for i in range(3)]
    vec.step(np.zeros(3, np.int64))
    stepped = [vec.batch.export(i) for i in range(3)]
    vec.reset(seed=[None, 11, None], options={"reset_mask": np.array([False, True, False])})
    assert vec.batch.export(1).equals(first[1])  # re-seeded: the same map and key again
    assert not vec.batch.export(0).equals(first[0])  # stepped, and not reset
    assert vec.batch.export(2).equals(stepped[2])  # masked out: untouched
    single = NesyGridEnv("pogostick")
    single.reset(seed=12)
    single.step(0)
    assert stepped[2].equals(single.world.state)  # seed 12, one step: as the single env
    with pytest.raises(ValueError, match="reset_mask"):
        vec.reset(options={"reset_mask": [1, 0, 1]})


def test_plain_python_kernels_agree_without_numba() -> None:
    """NESYWORLD_NUMBA=0: the same kernels run uncompiled and still match the single env."""
    code = ("from tests.world.test_batch import side_by_side; "
            "from nesyworld.world.kernels import HAVE_NUMBA; assert not HAVE_NUMBA; "
            "side_by_side('pogostick', n=2, steps=40)")
    env = {**os.environ, "NESYWORLD_NUMBA": "0"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                              os.path.abspath(__file__)))))
    assert done.returncode == 0, done.stderr[-3000:]
