"""Novelties injected into the Gymnasium view between episodes and mid-episode; spaces grow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from nesyworld.world.envs import NesyGridEnv, NoveltyInjector


def write(tmp_path: Path, name: str, inject: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    axe = Path(__file__).resolve().parents[2] / "domains/polycraft/novelties/axe.yaml"
    text = axe.read_text().replace("novelty: axe", f"novelty: {name}")
    path.write_text(text.replace("changes:", f"inject: {inject}\nchanges:", 1))
    return path


def test_episode_injection_grows_the_spaces(tmp_path: Path) -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick"), [write(tmp_path, "axe2", "{episode: 2}")])
    sizes, versions, arrivals = [], [], []
    for _ in range(4):
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        sizes.append(env.action_space.n)
        versions.append(info["space_version"])
        arrivals.append(info.get("novelty"))
    assert sizes[0] == sizes[1] < sizes[2] == sizes[3]  # select_axe appeared at episode 2
    assert versions == [0, 0, 1, 1] and arrivals == [None, None, ["axe2"], None]
    assert "select_axe" in env.unwrapped.action_names


def test_mid_episode_injection_keeps_the_state(tmp_path: Path) -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["lightning"])
    obs, info = env.reset(seed=1)
    world = env.unwrapped.world
    names = env.unwrapped.action_names
    seen = None
    for step in range(1, 12):
        action = names.index("approach_crafting_table") if step == 1 else names.index("nop")
        obs, _, _, _, info = env.step(action)
        names = env.unwrapped.action_names
        if "novelty" in info:
            seen = (step, info["novelty"], info["space_version"])
            assert env.observation_space.contains(obs)
            assert len(info["action_mask"]) == env.action_space.n
    assert seen == (8, ["lightning"], 1)
    props = next(iter(world.state.props.values()))
    assert props["on_fire"] is True and "trade_water_bucket_1" in names
    obs, info = env.reset(seed=1)  # the next episode starts before the event again
    assert not any(p.get("on_fire") for p in env.unwrapped.world.state.props.values())
    assert "trade_water_bucket_1" not in env.unwrapped.action_names


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped")
def test_injector_passes_the_env_checker(tmp_path: Path) -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["fence"])
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, np.ndarray) and env.observation_space.contains(obs)
