"""Observation noise: what it corrupts, that a seed reproduces it, that 0 changes nothing,
that the spec's `observation:` section sets it with located errors, and that the compiled
vector env refuses it instead of ignoring it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.domains import find_spec
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.observations import N_BEAMS
from nesyworld.world.observations.builder import ObservationConfig
from nesyworld.world.spec.loader import load_spec

ACTIONS = ("approach_oak_log", "break", "rotate_left", "move_forward", "approach_crafting_table",
           "craft_planks", "rotate_right", "move_forward")


def rollout(observation: dict | None, seed: int = 3, spec: str | Path = "pogostick"
            ) -> tuple[list, NesyGridEnv]:
    env = NesyGridEnv(spec, observation=observation)
    obs, _ = env.reset(seed=seed)
    seen = [obs]
    for name in ACTIONS:
        seen.append(env.step(env.action_names.index(name))[0])
    return seen, env


def noisy_spec(tmp_path: Path, noise: object) -> Path:
    path = tmp_path / "noisy.yaml"
    path.write_text(f"extends: {find_spec('pogostick')}\nname: noisy\n"
                    f"observation:\n  noise: {noise}\n")
    return path


@pytest.mark.parametrize("kind", ["lidar", "facts"])
def test_noise_zero_is_byte_identical(kind: str) -> None:
    exact, _ = rollout({"kind": kind})
    zero, _ = rollout({"kind": kind, "noise": 0.0})
    for a, b in zip(exact, zero, strict=True):
        assert (a.tobytes() == b.tobytes()) if kind == "lidar" else a == b


@pytest.mark.parametrize("kind", ["lidar", "facts"])
def test_a_seed_reproduces_the_noise_and_another_seed_changes_it(kind: str) -> None:
    a, _ = rollout({"kind": kind, "noise": 0.4}, seed=5)
    b, _ = rollout({"kind": kind, "noise": 0.4}, seed=5)
    exact, _ = rollout({"kind": kind}, seed=5)
    same = [np.array_equal(x, y) if kind == "lidar" else x == y for x, y in zip(a, b, strict=True)]
    assert all(same)
    differs = [not np.array_equal(x, y) if kind == "lidar" else x != y
               for x, y in zip(a, exact, strict=True)]
    assert sum(differs) >= len(a) // 2


def test_noise_never_touches_the_world() -> None:
    """The noise has its own generator: NPC moves and layouts are those of an exact run."""
    _, exact = rollout(None, seed=2)
    _, noisy = rollout({"noise": 0.9}, seed=2)
    assert np.array_equal(exact.world.state.grid, noisy.world.state.grid)
    assert np.array_equal(exact.world.state.pos, noisy.world.state.pos)


@settings(max_examples=25, deadline=None)
@given(noise=st.floats(0.05, 1.0), seed=st.integers(0, 10_000))
def test_noisy_lidar_stays_a_valid_reading(noise: float, seed: int) -> None:
    env = NesyGridEnv("pogostick", observation={"noise": noise})
    exact_env = NesyGridEnv("pogostick")
    obs, _ = env.reset(seed=seed)
    exact, _ = exact_env.reset(seed=seed)
    assert env.observation_space.contains(obs)
    n = len(env.world.types) * N_BEAMS
    assert np.array_equal(obs[n:], exact[n:])  # inventory and selected item stay exact
    beams = obs[:n].reshape(-1, N_BEAMS)
    for b in range(N_BEAMS):  # 0 or a whole number of cells along that beam
        cells = beams[:, b] / (math.sqrt(2.0) if b % 2 else 1.0)
        assert np.allclose(cells, np.round(cells), atol=1e-4)


def test_lidar_noise_rate_is_the_probability() -> None:
    env = NesyGridEnv("pogostick", observation={"noise": 0.3})
    n = len(env.world.types) * N_BEAMS
    builder = env._obs
    builder.noise_rng = np.random.default_rng(0)
    env.world.reset(0)
    exact = NesyGridEnv("pogostick")
    exact.world.reset(0)
    truth = exact.observe()[:n]
    # a corrupted reading can land on the true value, so the changed share is a bit below p
    changed = np.mean([np.mean(builder.build()[:n] != truth) for _ in range(200)])
    assert 0.2 < changed < 0.3


def test_facts_noise_keeps_facing_and_holding_and_names_known_types() -> None:
    env = NesyGridEnv("pogostick", observation={"kind": "facts", "noise": 1.0})
    exact = NesyGridEnv("pogostick", observation="facts")
    text, _ = env.reset(seed=1)
    truth, _ = exact.reset(seed=1)
    lines, true_lines = text.split("\n"), truth.split("\n")
    assert lines[0].startswith("facing(") and lines[0] != true_lines[0]
    assert lines[1].startswith("holding(") and lines[1] != true_lines[1]
    assert len(lines) < len(true_lines)  # at p = 1 about half the count lines are dropped
    names = set(env.world.types.names)
    for line in lines:
        assert line.split("(", 1)[1].split(")", 1)[0] in names
    assert env.observation_space.contains(text)


def test_dict_observation_gets_noise_on_its_lidar_only() -> None:
    cfg = {"kind": "dict", "dict_kinds": ("lidar", "local_view"), "noise": 0.5}
    noisy, _ = NesyGridEnv("pogostick", observation=cfg).reset(seed=0)
    exact, _ = NesyGridEnv("pogostick", observation={**cfg, "noise": None}).reset(seed=0)
    assert not np.array_equal(noisy["lidar"], exact["lidar"])
    assert np.array_equal(noisy["local_view"]["view"], exact["local_view"]["view"])


def test_config_refuses_bad_noise_and_kinds_without_noise() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        ObservationConfig(noise=1.5)
    with pytest.raises(ValueError, match="defined for lidar and facts"):
        NesyGridEnv("pogostick", observation={"kind": "ascii", "noise": 0.2})


def test_spec_observation_section_sets_the_noise(tmp_path: Path) -> None:
    path = noisy_spec(tmp_path, 0.5)
    assert load_spec(path).observation_noise == 0.5
    assert load_spec("pogostick").observation_noise == 0.0
    from_spec, _ = NesyGridEnv(path).reset(seed=4)
    exact, _ = NesyGridEnv("pogostick").reset(seed=4)
    assert not np.array_equal(from_spec, exact)
    overridden, _ = NesyGridEnv(path, observation={"noise": 0.0}).reset(seed=4)
    assert overridden.tobytes() == exact.tobytes()


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "lots", "true"])
def test_spec_noise_out_of_range_is_a_located_error(tmp_path: Path, bad: str) -> None:
    path = noisy_spec(tmp_path, bad)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    err = info.value
    assert err.location is not None and err.location.line == 4
    assert f"{path.name}:4:" in str(err)
    assert "a number between 0 and 1" in str(err)


def test_spec_observation_unknown_key_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"extends: {find_spec('pogostick')}\nobservation:\n  nosie: 0.1\n")
    with pytest.raises(SpecError, match=r"bad.yaml:3:3: unknown key 'nosie'"):
        load_spec(path)


def test_vector_env_refuses_noise_instead_of_ignoring_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"noise 0\.2"):
        NesyVectorEnv(2, "pogostick", observation={"noise": 0.2})
    with pytest.raises(ValueError, match="SyncVectorEnv"):
        NesyVectorEnv(2, noisy_spec(tmp_path, 0.3))
    NesyVectorEnv(2, "pogostick", observation={"noise": 0.0})  # exact: still compiled


def test_aec_env_noise_is_reproduced_by_a_seed() -> None:
    from nesyworld.world.envs import make_aec

    def first_obs(seed: int) -> list[np.ndarray]:
        env = make_aec("pogostick", observation={"noise": 0.5})
        env.reset(seed=seed)
        return [env.observe(a) for a in env.possible_agents]

    a, b, c = first_obs(7), first_obs(7), first_obs(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
