"""The Gymnasium and PettingZoo envs: API conformance, rewards, masks, determinism.

Also guards the performance edits made for the env's throughput (approach's search and the
region cache behind its mask): they are checked here against the plain reference
implementations in `nesyworld.world.simulation.pathfinding`.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import nesyworld.world.envs as envs
from nesyworld.domains import find_spec, scripted_solution, shipped_specs
from nesyworld.world.envs import ENV_SPECS, ObservationConfig, env_id, make_aec
from nesyworld.world.envs.aec_env import NesyGridAEC
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.simulation.pathfinding import dilate4, path_to_adjacent, reachable
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

SOLUTION = scripted_solution("pogostick") or []
KINDS = ["lidar", "local_view", "facts", "ascii", "rgb", "dict"]
NESY_IDS = sorted(i for i in gymnasium.registry if i.startswith("nesyworld/"))


def checked(env: gymnasium.Env[Any, Any]) -> None:
    """check_env on the raw env, with its warnings turned into failures."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the render check needs a registered spec to remake the env in each mode
        check_env(env.unwrapped, skip_render_check=env.spec is None)


# ------------------------------------------------------------------------ registration
def test_ids_are_registered_on_import() -> None:
    assert set(ENV_SPECS) <= set(NESY_IDS)
    assert gymnasium.registry["nesyworld/Pogostick-v0"].kwargs == {"spec": "pogostick"}
    assert gymnasium.registry["nesyworld/PogostickFull-v0"].kwargs == {"spec": "pogostick_full"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium warns when an id is registered again
        envs.register_envs()


def test_every_shipped_spec_is_an_id() -> None:
    assert set(ENV_SPECS.values()) == set(shipped_specs())
    assert all(find_spec(name) is not None for name in ENV_SPECS.values())
    assert env_id("pogostick_diamond_block") == "nesyworld/PogostickDiamondBlock-v0"
    assert len(NESY_IDS) >= 12


@pytest.mark.parametrize("env_id", NESY_IDS)
def test_registered_env_passes_check_env(env_id: str) -> None:
    checked(gymnasium.make(env_id))


@pytest.mark.parametrize("kind", KINDS)
def test_every_observation_kind_passes_check_env(kind: str) -> None:
    env = gymnasium.make("nesyworld/Pogostick-v0", observation=kind)
    checked(env)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes(mode: str) -> None:
    env = gymnasium.make("nesyworld/Pogostick-v0", render_mode=mode)
    checked(env)
    env.reset(seed=0)
    frame = env.render()
    if mode == "ansi":
        assert isinstance(frame, str) and len(frame.splitlines()) == 16
    else:
        assert isinstance(frame, np.ndarray) and frame.shape == (256, 256, 3)


def test_spaces_grow_with_the_spec() -> None:
    """Sizes come from the registries: a spec with more types and actions gets bigger
    spaces without any code change."""
    text = find_spec("pogostick").read_text()  # type: ignore[union-attr]
    text = text.replace(
        "  pogo_stick: {class: item, parents: [physobj]}\n",
        "  pogo_stick: {class: item, parents: [physobj]}\n"
        "  copper: {class: item, parents: [physobj]}\n",
    )
    text = text.replace(
        "recipes:\n", "recipes:\n  copper: {inputs: {stick: 1}, outputs: {copper: 1}}\n"
    )
    small, bigger = NesyGridEnv("pogostick"), NesyGridEnv(load_spec(text))
    t = len(small.world.types)
    assert small.observation_space.shape == (10 * t,)
    assert bigger.observation_space.shape == (10 * (t + 1),)
    assert bigger.action_space.n == small.action_space.n + 2  # craft_copper, select_copper
    checked(bigger)


def test_lidar_observation_layout() -> None:
    env = NesyGridEnv("pogostick")
    obs, _ = env.reset(seed=0)
    w, t = env.world, len(env.world.types)
    inv = obs[8 * t : 9 * t]
    assert inv[w.types.id("tree_tap")] == 1 and inv[w.types.id("iron_pickaxe")] == 1
    assert obs[9 * t :].sum() == 1 and obs[9 * t] == 1  # nothing selected: the air slot
    w.state.inventory[w.main, w.types.id("diamond")] = 10_000  # past the cap: clipped
    obs = env._obs.build()
    assert obs[8 * t + w.types.id("diamond")] == ObservationConfig().inventory_cap
    assert env.observation_space.contains(obs)


def test_facts_list_the_symbolic_state(world: World) -> None:
    env = NesyGridEnv(world=world, observation="facts")
    facts, _ = env.reset(seed=0)
    lines = facts.splitlines()
    assert lines[:2] == ["facing(oak_log)", "holding(air)"]
    assert "inventory(water_bucket)=2" in lines and "world(oak_log)=1" in lines
    assert "on_fire(crafting_table)" in lines  # boolean properties become facts
    assert not any(line.startswith("world(air)") for line in lines)
    assert env.observation_space.contains(facts)


# ------------------------------------------------------------------------ the gym env
def test_scripted_solution_terminates_with_success() -> None:
    for seed in range(5):
        env = gymnasium.make("nesyworld/Pogostick-v0")
        env.reset(seed=seed)
        names = env.unwrapped.action_names
        total = 0.0
        for i, name in enumerate(SOLUTION):
            _, reward, terminated, truncated, info = env.step(names.index(name))
            total += float(reward)
            assert info["ok"], (seed, name, info["reason"])
            assert terminated == (i == len(SOLUTION) - 1) and not truncated
        assert info["success"]
        assert total == 1000 - len(SOLUTION)


def test_refused_action_takes_a_step_and_changes_nothing_of_the_agent() -> None:
    env = NesyGridEnv("pogostick")
    _, info = env.reset(seed=1)
    i = env.action_names.index("craft_pogo_stick")
    assert not info["action_mask"][i]
    w, m = env.world, env.world.main
    before = w.state.copy()
    _, reward, terminated, truncated, info = env.step(i)
    assert not info["ok"] and "pogo_stick" in info["reason"] and info["cost"] == 0.0
    assert info["step"] == 1 and reward == -1 and not terminated and not truncated
    st = w.state
    assert np.array_equal(st.pos[m], before.pos[m]) and st.facing[m] == before.facing[m]
    assert np.array_equal(st.inventory[m], before.inventory[m])


def test_silent_refusals_say_only_that_an_action_was_refused() -> None:
    env = NesyGridEnv("pogostick", refusals="silent")
    env.reset(seed=1)
    i = env.action_names.index("craft_pogo_stick")
    *_, info = env.step(i)
    assert not info["ok"] and info["reason"] == ""
    check_env(NesyGridEnv("pogostick", refusals="silent"), skip_render_check=True)
    with pytest.raises(ValueError, match="refusals must be one of explained, silent"):
        NesyGridEnv("pogostick", refusals="quiet")  # type: ignore[arg-type]


def test_give_up_terminates_without_success() -> None:
    env = NesyGridEnv("pogostick")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(env.action_names.index("give_up"))
    assert terminated and not truncated and not info["success"] and reward == -1


def test_truncated_at_max_steps() -> None:
    env = NesyGridEnv("pogostick")
    env.reset(seed=0)
    nop = env.action_names.index("nop")
    for step in range(1, env.world.spec.max_steps + 1):
        _, _, terminated, truncated, info = env.step(nop)
        assert not terminated and truncated == (step == env.world.spec.max_steps)
    assert info["step"] == env.world.spec.max_steps


def trace(env: gymnasium.Env[Any, Any], seed: int, steps: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [obs, info["action_mask"]]
    for a in rng.integers(env.action_space.n, size=steps):  # type: ignore[attr-defined]
        obs, reward, terminated, truncated, info = env.step(a)
        out += [obs, reward, info["action_mask"], info["reason"]]
        if terminated or truncated:
            obs, info = env.reset()
            out.append(obs)
    return out


def test_same_seed_and_actions_give_the_same_observations() -> None:
    a = trace(gymnasium.make("nesyworld/Pogostick-v0"), 7, 300)
    b = trace(gymnasium.make("nesyworld/Pogostick-v0"), 7, 300)
    assert len(a) == len(b)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = trace(gymnasium.make("nesyworld/Pogostick-v0"), 8, 300)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=False))


# ------------------------------------------------------------------------ action masks
def random_states(spec: str | WorldSpec, n_states: int, seed: int) -> list[World]:
    """Worlds in varied states, reached by random play (with a bias to the useful actions
    so inventories fill up and the map changes)."""
    out = []
    rng = np.random.default_rng(seed)
    for k in range(n_states):
        world = World(spec, seed=seed * 1000 + k)
        names = world.action_names()
        useful = [
            i
            for i, n in enumerate(names)
            if n.split("_")[0]
            in ("approach", "break", "select", "craft", "trade", "collect", "place")
        ]
        for _ in range(int(rng.integers(0, 40))):
            pick = useful if rng.random() < 0.6 else range(len(names))
            a = int(rng.choice(list(pick)))
            if names[a] != "give_up":
                world.step(a)
        out.append(world)
    return out


@pytest.mark.parametrize("spec", ["pogostick", "mini"])
def test_action_mask_agrees_with_refusals(spec: str, mini_spec: WorldSpec) -> None:
    """Masked-out actions are refused and change nothing; masked-in ones run, except that
    approach may be refused while another agent blocks its only path."""
    disagreements = []
    for world in random_states(mini_spec if spec == "mini" else spec, 12, seed=5):
        for agent in range(len(world.agent_names)):
            mask = world.action_mask(agent)
            snap = world.snapshot()
            for i, name in enumerate(world.action_names(agent)):
                out = world.act(agent, i)
                if not mask[i] and out.ok:
                    disagreements.append(("masked out but ran", name, world.describe(agent)))
                if mask[i] and not out.ok and not name.startswith("approach_"):
                    disagreements.append(("masked in but refused", name, out.reason))
                if not out.ok:
                    assert world.state.equals(snap.state), name
                world.restore(snap)
    assert not disagreements


def test_info_mask_is_the_worlds_mask_for_the_next_step() -> None:
    env = NesyGridEnv("pogostick")
    _, info = env.reset(seed=2)
    for a in np.random.default_rng(2).integers(env.action_space.n, size=50):
        assert np.array_equal(info["action_mask"], env.world.action_mask())
        assert info["action_mask"].dtype == bool
        _, _, terminated, truncated, info = env.step(a)
        if terminated or truncated:
            _, info = env.reset()


# ------------------------------------------------------------------- the AEC env
def test_aec_api() -> None:
    api_test(make_aec("pogostick"), num_cycles=300)
    api_test(NesyGridAEC("pogostick"), num_cycles=100)


def test_aec_agents_and_spaces() -> None:
    env = NesyGridAEC("pogostick")
    env.reset(seed=0)
    assert env.possible_agents == list(env.world.agent_names)
    assert env.agent_selection == env.possible_agents[0]
    for i, agent in enumerate(env.possible_agents):
        assert env.action_space(agent).n == len(env.world.action_names(i))  # type: ignore[attr-defined]
        assert env.observation_space(agent).contains(env.observe(agent))


def test_aec_with_npcs_driven_by_their_controllers_replays_the_gym_env() -> None:
    """The two envs share one turn order, so playing each NPC with its own controller in the
    AEC env gives exactly the gym env's trajectory and the main agent's rewards."""
    gym_env = NesyGridEnv("pogostick")
    gym_env.reset(seed=4)
    aec = NesyGridAEC("pogostick")
    aec.reset(seed=4)
    main = aec.main_agent
    actions = list(np.random.default_rng(4).integers(gym_env.action_space.n, size=60))
    gym_rewards, aec_rewards = [], []
    for a in actions:
        _, reward, terminated, truncated, _ = gym_env.step(a)
        gym_rewards.append(reward)
        for agent in aec.possible_agents:
            i = aec.possible_agents.index(agent)
            ctrl = aec.world.controllers[i]
            choice = int(a) if agent == main else ctrl.choose()  # type: ignore[union-attr]
            aec.step(aec.world.action_index("nop", i) if choice is None else choice)
        aec_rewards.append(aec.rewards[main])
        assert aec.world.state.equals(gym_env.world.state)
        if terminated or truncated:
            assert aec.terminations[main] == terminated and aec.truncations[main] == truncated
            break
    assert gym_rewards == aec_rewards


# ------------------------------------------------- behaviour kept by the speed-ups
def test_approach_takes_the_reference_shortest_path() -> None:
    for world in random_states("pogostick", 10, seed=11):
        m = world.main
        for name in world.action_names():
            if not name.startswith("approach_"):
                continue
            st = world.state  # restore() below replaces the state object
            tid = world.types.id(name.removeprefix("approach_"))
            start = (int(st.pos[m, 0]), int(st.pos[m, 1]))
            targets = st.grid == tid
            targets[start] = False
            expected = path_to_adjacent(world.passable_mask(), start, targets)
            snap = world.snapshot()
            out = world.act(m, name)
            assert out.ok == (expected is not None), name
            if expected is not None:
                path, facing = expected
                assert tuple(world.state.pos[m]) == (path[-1] if path else start)
                assert world.state.facing[m] == facing and out.cost == max(1.0, len(path))
            world.restore(snap)


def touching(mask: np.ndarray) -> np.ndarray:
    """Cells with a 4-neighbour in the mask."""
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def test_approach_mask_matches_the_reachable_region(mini_spec: WorldSpec) -> None:
    """The mask: types with a cell next to the agent's walkable region (agents counting as
    the floor they stand on), plus other agents inside or next to it."""
    for world in random_states("pogostick", 10, seed=3) + random_states(mini_spec, 5, seed=3):
        st = world.state
        ground = st.grid.copy()
        ground[st.pos[:, 0], st.pos[:, 1]] = st.under
        walk = world.types.passable[ground]
        for agent in range(len(world.agent_names)):
            mask = world.action_mask(agent)
            region = reachable(walk, tuple(int(v) for v in st.pos[agent]))
            seen = set(ground[touching(region)].tolist())
            seen |= {
                int(st.grid[r, c])
                for i, (r, c) in enumerate(st.pos)
                if i != agent and dilate4(region)[r, c]
            }
            for i, name in enumerate(world.action_names(agent)):
                if name.startswith("approach_"):
                    tid = world.types.id(name.removeprefix("approach_"))
                    assert mask[i] == (tid in seen), name


def test_approach_to_a_floor_type_is_masked_in() -> None:
    """Regression: the mask used to consider only blocks around the region, so approach to
    a walkable target (a spec may list one in `targets`) was masked out yet ran."""
    text = find_spec("pogostick").read_text()  # type: ignore[union-attr]
    text = text.replace("  bedrock:", '  carpet: {class: floor, glyph: "~"}\n  bedrock:')
    text = text.replace(
        "approach: {class: approach}", "approach: {class: approach, targets: [carpet, oak_log]}"
    )
    text = text.replace("  objects:\n", "  objects:\n    carpet: {quantity: 3, room: main}\n")
    spec = load_spec(text)
    for seed in range(5):
        world = World(spec, seed=seed)
        i = world.action_index("approach_carpet")
        assert world.action_mask()[i]
        assert world.act(world.main, i).ok
