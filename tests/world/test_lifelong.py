"""Lifelong worlds: the `lifelong:` section, regrowth, schedule rewards, no episode end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.world import World, load_spec
from nesyworld.world.batch.tables import NotCompilable, compile_world
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.spec.lifelong import RewardSchedule
from nesyworld.world.spec.model import WorldSpec

ORCHARD = Path(__file__).parents[2] / "domains" / "lifelong" / "orchard.yaml"

PATCH = """\
name: patch
entity_types:
  air: {class: floor, glyph: "."}
  wall: {class: block, glyph: "#"}
  bush: {glyph: B, breakable: true, drops: {berry: 1}}
  picker: {class: actor, glyph: A}
  berry: {class: item}
actions:
  move_forward: {class: move, direction: forward}
  move_backward: {class: move, direction: backward}
  rotate_left: {class: rotate, direction: left}
  approach: {class: approach}
  break: {class: break}
  nop: {class: nop}
  give_up: {class: give_up}
map:
  ascii: |
    #####
    #.B.#
    #...#
    #####
agents:
  p: {type: picker, at: [2, 2], facing: north}
goal: {inventory: {berry: 1}}
max_steps: 5
lifelong:
  regrow: {bush: {after: 3, where: WHERE}}
  reward_schedule:
    kind: cycle
    period: 4
    phases:
      - {name: sweet, pays: {berry: 1}}
      - {name: sour, pays: {berry: -2}}
"""


def patch(where: str = "same") -> WorldSpec:
    return load_spec(PATCH.replace("WHERE", where))


def test_the_orchard_parses_both_kinds_and_regrowth() -> None:
    spec = load_spec(ORCHARD)
    kinds = [s.kind for s in spec.lifelong.schedules]
    assert kinds == ["cycle", "phases"]
    assert spec.entity_types["berry_bush"].on_break.spawn == "berry_bush"
    assert spec.entity_types["mushroom"].on_break.regrow == "random"
    assert spec.lifelong.phase_name(0) == "berries+early"
    assert spec.lifelong.phase_name(2600) == "apples+late"


def test_schedules_cycle_and_hold_their_last_phase() -> None:
    spec = load_spec(ORCHARD)
    cycle, phases = spec.lifelong.schedules
    assert [cycle.phase_index(s) for s in (0, 499, 500, 999, 1000, 10_500)] == [0, 0, 1, 1, 0, 1]
    assert [phases.phase_index(s) for s in (0, 1999, 2000, 10**9)] == [0, 0, 1, 1]
    assert isinstance(cycle, RewardSchedule)


def test_specs_without_the_section_are_unchanged() -> None:
    spec = load_spec("pogostick")
    assert spec.lifelong is None
    assert all(not (et.on_break and et.on_break.regrow) for et in spec.entity_types.values())


def test_env_never_ends_on_goal_or_max_steps_and_pays_by_phase() -> None:
    env = NesyGridEnv(patch())
    _, info = env.reset(seed=0)
    assert info["phase"] == "sweet"
    names = env.action_names
    rewards, phases = [], []
    for t in range(12):  # max_steps is 5; the goal (1 berry) is reached at once
        action = names.index("break") if t in (0, 4) else names.index("nop")
        _, reward, terminated, truncated, info = env.step(action)
        assert not terminated and not truncated
        rewards.append(reward)
        phases.append(info["phase"])
    assert info["success"]
    # broken at step 0 (sweet: +1); regrown at step 3; broken again at step 4 (sour: -2)
    assert rewards[0] == 1.0 and rewards[4] == -2.0 and sum(rewards) == -1.0
    assert phases[:8] == ["sweet"] * 3 + ["sour"] * 4 + ["sweet"]


def test_episodic_env_still_truncates() -> None:
    text = PATCH.split("lifelong:")[0]
    env = NesyGridEnv(load_spec(text))
    env.reset(seed=0)
    flags = [env.step(env.action_names.index("nop"))[3] for _ in range(5)]
    assert flags[-1] and "phase" not in env.step(0)[4]


def test_same_cell_regrowth_waits_for_an_agent_to_leave() -> None:
    world = World(patch(), seed=0)
    bush = world.types.id("bush")
    world.step("break")
    world.step("move_forward")  # onto the bush's cell
    for _ in range(5):
        world.step("nop")  # due at step 3: the cell is taken, so the regrowth waits
    assert (world.state.grid == bush).sum() == 0 and len(world.state.schedule) == 1
    world.step("move_backward")
    assert world.state.grid[1, 2] == bush and not world.state.schedule


def test_random_regrowth_goes_to_a_free_cell_and_survives_save(tmp_path: Path) -> None:
    world = World(patch("random"), seed=3)
    bush = world.types.id("bush")
    world.step("break")
    world.save(tmp_path / "s.json")
    again = World.load(tmp_path / "s.json", spec=patch("random"))
    assert again.state.equals(world.state) and again.state.schedule[0].regrow == "random"
    for _ in range(3):
        world.step("nop")
    (r, c), = np.argwhere(world.state.grid == bush).tolist()  # exactly one, on a floor cell
    assert 1 <= r <= 2 and 1 <= c <= 3 and [r, c] != world.state.pos[0].tolist()


def test_random_regrowth_moves_things_around() -> None:
    places = set()
    for seed in range(8):
        world = World(patch("random"), seed=seed)
        world.step("break")
        for _ in range(3):
            world.step("nop")
        (r, c), = np.argwhere(world.state.grid == world.types.id("bush")).tolist()
        places.add((r, c))
    assert len(places) > 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 11), min_size=1, max_size=150), st.integers(0, 3))
def test_regrowing_things_are_never_lost(actions: list[int], seed: int) -> None:
    """Things on the map plus pending regrowths stay constant, whatever the agent does."""
    world = World(load_spec(ORCHARD), seed=seed)
    ids = [world.types.id(t) for t in world.spec.lifelong.regrow]
    total = int(world.counts()[ids].sum())
    n = len(world.action_names())
    for a in actions:
        world.step(a % n)
        pending = sum(1 for s in world.state.schedule if s.regrow)
        assert int(world.counts()[ids].sum()) + pending == total


def test_vector_env_falls_back_to_worlds_and_steps_like_the_single_env() -> None:
    """No kernel has lifelong rewards or regrowth: the batched core must step N ordinary
    worlds, with the single env's schedule rewards and no resets, never the episodic ones."""
    spec = load_spec(ORCHARD)
    with pytest.raises(NotCompilable, match="lifelong"):
        compile_world(World(spec))
    vec = NesyVectorEnv(2, spec=spec)
    assert vec.batch.engine == "worlds" and "lifelong" in vec.batch.why_not
    singles = [NesyGridEnv(spec) for _ in range(2)]
    obs, info = vec.reset(seed=5)
    for i, env in enumerate(singles):
        env.reset(seed=5 + i)
    rng = np.random.default_rng(0)
    give_up = vec.action_names.index("give_up")
    paid = 0.0
    for _ in range(400):
        masks = info["action_mask"].copy()
        masks[:, give_up] = False
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
        obs, reward, terminated, truncated, info = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, te, tr, _ = env.step(actions[i])
            assert np.array_equal(obs[i], o) and reward[i] == r
            assert terminated[i] == te is False and truncated[i] == tr is False
        paid += float(np.abs(reward).sum())
    assert paid > 0  # the schedule paid something, so the comparison compared rewards


def _error(tmp_path: Path, old: str, new: str) -> SpecError:
    text = PATCH.replace("WHERE", "same")
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    return info.value


@pytest.mark.parametrize("old, new, where, expected", [
    ("kind: cycle", "kind: seasonal", ":29:11:", "one of phases"),
    ("period: 4", "period: -4", ":30:13:", "an integer >= 1"),
    ("period: 4", "period: 0", ":30:13:", "an integer >= 1"),
    ("    period: 4\n", "", ":29:5:", "period:"),
    ("where: same", "where: nearby", ":27:36:", "same or random"),
    ("after: 3", "after: -1", ":27:26:", "an integer >= 1"),
    ("bush: {after", "wall: {after", ":27:12:", "breakable"),
    ("berry: -2", "banana: -2", ":33:29:", "a concrete type"),
    ("berry: -2", "berry: lots", ":33:36:", "a number"),
    ("  reward_schedule:", "  reward_sched:", ":28:3:", "one of regrow, reward_schedule"),
    ("- {name: sour, pays", "- {name: sour, until: 9, pays", ":33:22:", "the cycle's period"),
])
def test_bad_lifelong_sections_are_located(tmp_path: Path, old: str, new: str, where: str,
                                           expected: str) -> None:
    err = _error(tmp_path, old, new)
    assert f"bad.yaml{where}" in str(err), str(err)
    assert expected in str(err)


def test_phases_must_increase(tmp_path: Path) -> None:
    old = """    kind: cycle
    period: 4
    phases:
      - {name: sweet, pays: {berry: 1}}"""
    new = """    kind: phases
    phases:
      - {name: first, until: 10, pays: {berry: 1}}
      - {name: sweet, until: 10, pays: {berry: 1}}"""
    err = _error(tmp_path, old, new)
    assert "bad.yaml:32:" in str(err) and "an integer >= 11" in str(err)
