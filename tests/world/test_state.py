"""State: seeded determinism, snapshot/restore, save/load, and invariants of random play.

Every trajectory here is played round by round with the `play` fixture (main agent acts,
each NPC acts, the clock ticks), which is checked to be the same as `run_actions`.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.world.simulation.world import World, run_actions


def script(world: World, seed: int, n: int) -> list[str]:
    """n random action names of the main agent (give_up excluded, it is not a move)."""
    names = [a for a in world.action_names() if a != "give_up"]
    rng = np.random.default_rng(seed)
    return [names[int(i)] for i in rng.integers(len(names), size=n)]


def trajectory(world: World, names: list[str], play) -> list:
    out = []
    for name in names:
        play(world, name)
        out.append(world.state.copy())
    return out


def same_states(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x.equals(y) for x, y in zip(a, b, strict=True))


# ------------------------------------------------------------------------- determinism


def test_same_seed_same_trajectory(pogostick_spec, play):
    w1, w2 = World(pogostick_spec, seed=11), World(pogostick_spec, seed=11)
    assert w1.state.equals(w2.state)
    names = script(w1, 0, 150)
    rival = w1.agent_names.index("pogoist_102")
    start = w1.state.pos[rival].copy()
    moved = False
    for name in names:
        o1, n1 = play(w1, name)
        o2, n2 = play(w2, name)
        assert o1 == o2 and n1 == n2
        assert w1.state.equals(w2.state)
        moved |= not np.array_equal(w1.state.pos[rival], start)
    assert moved, "the rival NPC never moved: the test does not cover NPC moves"
    assert w1.rng.bit_generator.state == w2.rng.bit_generator.state


def test_different_seeds_give_different_layouts(pogostick_spec):
    grids = [World(pogostick_spec, seed=s).state.grid for s in range(5)]
    for i in range(5):
        for j in range(i + 1, 5):
            assert not np.array_equal(grids[i], grids[j]), (i, j)
    # but the same things are placed
    counts = {tuple(np.bincount(g.ravel(), minlength=40)) for g in grids}
    assert len(counts) == 1


def test_reset_with_seed_equals_a_fresh_world(pogostick_spec, play):
    fresh = World(pogostick_spec, seed=5)
    reused = World(pogostick_spec, seed=99)
    trajectory(reused, script(reused, 1, 30), play)
    reused.reset(seed=5)
    assert reused.state.equals(fresh.state)
    names = script(fresh, 2, 40)
    assert same_states(trajectory(fresh, names, play), trajectory(reused, names, play))


def test_play_fixture_is_run_actions(pogostick_spec, play):
    w1, w2 = World(pogostick_spec, seed=4), World(pogostick_spec, seed=4)
    for name in script(w1, 3, 60):
        out = run_actions(w1, [name])
        main, _ = play(w2, name)
        assert out == [main]
        assert w1.state.equals(w2.state)


# ------------------------------------------------------------------- snapshot, restore


def test_snapshot_restore_round_trip(pogostick_spec, play):
    world = World(pogostick_spec, seed=21)
    trajectory(world, script(world, 4, 20), play)
    snap = world.snapshot()
    saved = world.state.copy()
    names = script(world, 5, 50)
    first = trajectory(world, names, play)
    assert not first[-1].equals(saved)  # 50 actions did change something
    world.restore(snap)
    assert world.state.equals(saved)
    assert world.state is not snap.state  # restoring again must still work
    second = trajectory(world, names, play)
    assert same_states(first, second)
    world.restore(snap)
    assert world.state.equals(saved)


def test_snapshot_is_not_aliased_with_the_live_state(world, play):
    snap = world.snapshot()
    before = snap.state.copy()
    for name in ["break", "craft_planks", "rotate_right", "move_forward"]:
        play(world, name)
    assert snap.state.equals(before)


# ----------------------------------------------------------------------- save and load


def test_save_load_round_trip_with_generator(tmp_path, pogostick_spec, play):
    world = World(pogostick_spec, seed=8)
    trajectory(world, script(world, 6, 25), play)
    path = tmp_path / "state.json"
    world.save(path)
    saved = world.state.copy()
    names = script(world, 7, 40)
    original = trajectory(world, names, play)

    loaded = World.load(path)
    assert loaded.spec.name == "pogostick"
    assert loaded.state.equals(saved)
    assert same_states(trajectory(loaded, names, play), original)

    other = World(pogostick_spec, seed=1234)
    other.load_state(path)
    assert other.state.equals(saved)
    assert same_states(trajectory(other, names, play), original)


def test_save_load_keeps_props_schedule_and_flags(tmp_path, world, play, cells):
    world.state.props[cells.table]["on_fire"] = False
    play(world, "break")  # schedules a sapling at the tree's cell
    play(world, "give_up")
    assert world.state.schedule and world.state.gave_up
    path = tmp_path / "mini.json"
    world.save(path)
    assert json.loads(path.read_text())["format"] == "nesyworld.state/1"
    loaded = World.load(path, spec=world.spec)
    assert loaded.state.equals(world.state)
    assert loaded.state.props[cells.table] == {"on_fire": False}
    assert loaded.state.gave_up
    for w in (world, loaded):
        w.end_round()
        w.end_round()
    assert loaded.state.grid[cells.tree] == loaded.types.id("sapling")
    assert loaded.state.equals(world.state)


def test_load_state_rejects_other_json(tmp_path, world):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="not a nesyworld state file"):
        world.load_state(path)


# ---------------------------------------------------------------- random-play invariants


def expected_count_change(world: World, agent: int, index: int) -> np.ndarray:
    """How the map's type counts should change if this action succeeds."""
    delta = np.zeros(len(world.types), np.int64)
    g = world.agent_actions(agent)[index]
    kind = g.action.registered_name
    cell = world.front(agent)
    if cell is None or kind not in ("break", "place", "collect", "use"):
        return delta
    here = int(world.state.grid[cell])
    et = world.spec.entity_types[world.types.names[here]]
    if kind == "break":
        delta[here] -= 1
        delta[world.types.id(et.leaves)] += 1
    elif kind == "place":
        delta[here] -= 1
        delta[int(world.state.selected[agent])] += 1
    else:
        rule = getattr(et, kind)
        if rule is not None and rule.removes:
            delta[here] -= 1
            delta[world.types.id(rule.becomes)] += 1
    return delta


def expected_schedule_change(world: World) -> np.ndarray:
    st = world.state
    grid = st.grid.copy()
    for s in st.schedule:
        if s.due <= st.step + 1 and grid[s.cell] == s.expect:
            grid[s.cell] = s.type_id
    n = len(world.types)
    return np.bincount(grid.ravel(), minlength=n) - np.bincount(st.grid.ravel(), minlength=n)


def check_invariants(world: World, agent_ids: np.ndarray) -> None:
    st = world.state
    cells = {(int(r), int(c)) for r, c in st.pos}
    assert len(cells) == len(st.pos), "two agents on one cell"
    for i, (r, c) in enumerate(st.pos):
        assert st.grid[r, c] == world.types.id(world.spec.agents[world.agent_names[i]].type)
    assert np.isin(st.grid, agent_ids).sum() == len(st.pos), "agent type outside an agent"
    assert (st.inventory >= 0).all(), "negative inventory"
    assert st.grid.min() >= 0 and st.grid.max() < len(world.types)
    assert ((st.selected >= 0) & (st.selected < len(world.types))).all()
    assert ((st.facing >= 0) & (st.facing < 4)).all()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(["mini", "pogostick"]),
    seed=st.integers(0, 2**16),
    actions=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
)
def test_random_play_keeps_invariants(mini_spec, pogostick_spec, which, seed, actions):
    world = World(mini_spec if which == "mini" else pogostick_spec, seed=seed)
    agent_ids = np.array(sorted({world.types.id(a.type) for a in world.spec.agents.values()}))
    non_agent = np.setdiff1d(np.arange(len(world.types)), agent_ids)
    check_invariants(world, agent_ids)
    n_actions = len(world.action_names())

    def checked_act(agent: int, index: int) -> None:
        expected = expected_count_change(world, agent, index)
        before = world.counts()
        out = world.act(agent, index)
        change = world.counts() - before
        if not out.ok:
            assert not change.any(), out
        else:
            assert np.array_equal(change[non_agent], expected[non_agent]), (out, change)
        check_invariants(world, agent_ids)

    for a in actions:
        # one round, in the order of run_actions / World.step_npcs
        checked_act(world.main, a % n_actions)
        for i, ctrl in enumerate(world.controllers):
            if ctrl is not None:
                choice = ctrl.choose()
                if choice is not None:
                    checked_act(i, choice)
        expected = expected_schedule_change(world)
        before = world.counts()
        world.end_round()
        assert np.array_equal((world.counts() - before)[non_agent], expected[non_agent])
        check_invariants(world, agent_ids)


def test_load_of_a_state_saved_from_yaml_text(tmp_path, world, play):
    play(world, "break")
    path = tmp_path / "mini.json"
    world.save(path)
    try:
        loaded = World.load(path)
    except Exception as exc:
        assert "spec=" in str(exc), str(exc)
    else:
        assert loaded.state.equals(world.state)
