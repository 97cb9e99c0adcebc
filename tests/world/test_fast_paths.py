"""The env's per-step fast paths give exactly what the plain definitions give.

`World.action_mask` groups masks, shares a `MaskContext` and reuses answers that cannot have
changed; approach keeps regions and the map under the agents per static map version; the
lidar observation is redone only when its input changed. Each is checked here against the
slow, obvious computation, over long random runs that also edit the state in place, swap
whole states in and out, and reset.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.domains import find_spec
from nesyworld.world.actions.base import Action, MaskContext
from nesyworld.world.actions.movement import Move
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.observations import lidar
from nesyworld.world.observations.lidar import LidarReader
from nesyworld.world.registry import ACTIONS
from nesyworld.world.simulation.pathfinding import dilate4, label_regions
from nesyworld.world.simulation.walkable import passable_regions
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec


def reference_mask(world: World, agent: int) -> np.ndarray:
    """Every action's `check`, except approach: the documented region rule (types next to
    the agent's walkable region, agents counting as their floor, plus agents near it)."""
    st = world.state
    ground = st.grid.copy()
    ground[st.pos[:, 0], st.pos[:, 1]] = st.under
    walk = world.types.passable[st.grid]
    walk[st.pos[:, 0], st.pos[:, 1]] = True
    labels, _ = label_regions(walk)
    region = labels == labels[tuple(st.pos[agent])]
    seen = set(ground[touching(region)].tolist())
    seen |= {int(st.grid[r, c]) for i, (r, c) in enumerate(st.pos)
             if i != agent and dilate4(region)[r, c]}
    out = []
    for g in world.agent_actions(agent):
        if g.action.registered_name == "approach":
            out.append(g.arg in seen)
        else:
            out.append(g.action.check(world, agent, g.arg) is None)
    return np.array(out, bool)


def shake(world: World, rng: np.random.Generator) -> None:
    """Change the state behind the env's back, the ways tests and tools do."""
    st = world.state
    a = int(rng.integers(len(world.agent_names)))
    pick = rng.integers(4)
    if pick == 0:  # inventories are edited in place
        st.inventory[a, rng.integers(st.inventory.shape[1])] = rng.integers(0, 3)
    elif pick == 1:
        st.selected[a] = rng.integers(st.inventory.shape[1])
    elif pick == 2:
        st.facing[a] = rng.integers(4)
    else:  # a map cell, through the API that keeps the versions right
        r, c = (int(v) for v in rng.integers((1, 1), np.array(st.grid.shape) - 1))
        if not (st.pos == (r, c)).all(axis=1).any():
            world.set_cell((r, c), int(rng.integers(len(world.types))))


@pytest.mark.parametrize("spec", ["pogostick", "pogostick_full", "mini"])
def test_mask_is_every_check_step_after_step(spec: str, mini_spec: WorldSpec) -> None:
    world = World(mini_spec if spec == "mini" else spec, seed=4)
    rng = np.random.default_rng(4)
    snapshots = []
    for step in range(600):
        for agent in range(len(world.agent_names)):
            assert np.array_equal(world.action_mask(agent), reference_mask(world, agent)), (
                step, agent, world.describe(agent))
        roll = rng.random()
        if roll < 0.1:
            shake(world, rng)
        elif roll < 0.15:
            snapshots.append(world.snapshot())
        elif roll < 0.2 and snapshots:
            world.restore(snapshots[int(rng.integers(len(snapshots)))])
        elif roll < 0.22:
            world.reset()
        else:
            legal = np.flatnonzero(world.action_mask())
            names = world.action_names()
            a = int(rng.choice(legal)) if rng.random() < 0.7 else int(rng.integers(len(names)))
            if names[a] != "give_up":
                world.step(a)


def plain_lidar_obs(env: NesyGridEnv) -> np.ndarray:
    w, a = env.world, env.world.main
    st, t, cap = w.state, len(w.types), env.config.inventory_cap
    beams = lidar(st.grid, tuple(st.pos[a]), int(st.facing[a]), t, env.config.lidar_range)
    selected = np.zeros(t, np.float32)
    selected[st.selected[a]] = 1.0
    inventory = np.minimum(st.inventory[a], cap).astype(np.float32)
    return np.concatenate([beams, inventory, selected])


@pytest.mark.parametrize("spec", ["pogostick", "pogostick_full"])
def test_observation_is_the_plain_one_and_never_reused(spec: str) -> None:
    env = NesyGridEnv(spec)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    kept = []
    for _ in range(400):
        assert np.array_equal(obs, plain_lidar_obs(env))
        kept.append((obs, obs.copy()))
        if rng.random() < 0.1:
            shake(env.world, rng)  # the next observation must see this too
            obs = env._obs.build()
            continue
        obs, _, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
        if terminated or truncated:
            obs, _ = env.reset()
    for returned, copy in kept:  # later steps wrote into none of them
        assert np.array_equal(returned, copy)
    assert len({id(o) for o, _ in kept}) == len(kept)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 1, 3]))
def test_lidar_reader_is_lidar_after_any_changes(seed: int, max_range: int | None) -> None:
    rng = np.random.default_rng(seed)
    h, w, n_types = int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 5))
    grid = rng.integers(0, n_types, (h, w)).astype(np.int16)
    out = np.full(n_types * 8, -1.0, np.float32)
    reader = LidarReader(out, max_range)
    pos, facing = (0, 0), 0
    for _ in range(30):
        change = rng.integers(3)
        if change == 0:
            grid[rng.integers(h), rng.integers(w)] = rng.integers(n_types)
        elif change == 1:
            pos = (int(rng.integers(h)), int(rng.integers(w)))
        else:
            facing = int(rng.integers(4))
        reader.read(grid, pos, facing)
        assert np.array_equal(out, lidar(grid, pos, facing, n_types, max_range))


class _Types:
    def __init__(self, passable: np.ndarray) -> None:
        self.passable = passable

    def __len__(self) -> int:
        return len(self.passable)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_regions_are_the_labelled_components(seed: int) -> None:
    """The bit-set flood fill finds the same regions as `label_regions`, and the same types
    touching them (cells with a 4-neighbour in the region, single-cell regions included)."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 10)), int(rng.integers(1, 12))
    passable = np.array([True, False, True, False])
    grid = rng.integers(0, len(passable), (h, w)).astype(np.int16)
    state = SimpleNamespace(grid=grid, pos=np.zeros((0, 2), np.int32),
                            under=np.zeros(0, np.int16), static_version=0)
    world: Any = SimpleNamespace(state=state, types=_Types(passable))
    labels, _ = label_regions(passable[grid])
    regions = passable_regions(world)
    for r, c in zip(*np.nonzero(labels >= 0), strict=True):
        region = regions.of(int(r) * w + int(c))
        cells = labels == labels[r, c]
        assert region.cells == sum(1 << i for i in np.flatnonzero(cells).tolist())
        expected = np.zeros(len(passable), bool)
        expected[grid[touching(cells)]] = True
        assert np.array_equal(region.touching, expected)


def touching(cells: np.ndarray) -> np.ndarray:
    """Cells with a 4-neighbour in `cells`."""
    out = np.zeros_like(cells)
    out[1:] |= cells[:-1]
    out[:-1] |= cells[1:]
    out[:, 1:] |= cells[:, :-1]
    out[:, :-1] |= cells[:, 1:]
    return out


# ------------------------------------------------------------- plugins keep working
class StuckMove(Move):
    """Changes `check` but not the `mask` it inherits: its own check must decide."""

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        return "stuck"


class WaitForEvenStep(Action):
    """Only a `check`, reading what no context has (the clock)."""

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        return None if world.state.step % 2 == 0 else "odd step"

    def apply(self, world: World, agent: int, arg: Any) -> float:
        return self.cost


class BadMask(Action):
    def mask(self, world: World, agent: int, args: Any, ctx: Any = None) -> list[bool]:
        return [True, True]  # one argument, two answers


PLUGINS: dict[str, type[Action]] = {"test_stuck_move": StuckMove,
                                    "test_wait_for_even_step": WaitForEvenStep,
                                    "test_bad_mask": BadMask}


@pytest.fixture
def plugin_world(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, str]], World]:
    """A pogostick world whose main agent also has the given {action: plugin class}."""
    for name, cls in PLUGINS.items():
        monkeypatch.setitem(ACTIONS._classes, name, cls)
        monkeypatch.setattr(cls, "registered_name", name, raising=False)

    def make(extra: dict[str, str]) -> World:
        text = find_spec("pogostick").read_text()  # type: ignore[union-attr]
        lines = "".join(f"  {a}: {{class: {c}}}\n" for a, c in extra.items())
        text = text.replace("  nop: {class: nop}\n", "  nop: {class: nop}\n" + lines, 1)
        text = text.replace("  main: [move_*,", f"  main: [{', '.join(extra)}, move_*,", 1)
        return World(load_spec(text), seed=0)

    return make


def test_plugin_classes_are_masked_by_their_own_checks(
        plugin_world: Callable[[dict[str, str]], World]) -> None:
    world = plugin_world({"stuck": "test_stuck_move", "wait_even": "test_wait_for_even_step"})
    stuck, wait = world.action_index("stuck"), world.action_index("wait_even")
    for _ in range(6):
        mask = world.action_mask()
        assert not mask[stuck]
        assert mask[wait] == (world.state.step % 2 == 0)
        assert np.array_equal(mask, reference_mask(world, world.main))
        world.step(world.action_index("nop"))


def test_a_mask_with_the_wrong_length_is_an_error(
        plugin_world: Callable[[dict[str, str]], World]) -> None:
    world = plugin_world({"bad": "test_bad_mask"})
    with pytest.raises(ValueError, match=r"BadMask\.mask gave 2 values for 1 arguments"):
        world.action_mask()


def test_mask_context_is_what_the_state_says(world: World) -> None:
    st = world.state
    ctx = MaskContext.of(world, world.main)
    r, c = (int(v) for v in st.pos[world.main])
    assert (ctx.row, ctx.col, ctx.facing) == (r, c, int(st.facing[world.main]))
    assert ctx.front == world.front(world.main)
    assert ctx.front_type == (world.front_type(world.main) if ctx.front else -1)
    assert ctx.inventory == st.inventory[world.main].tolist()
    assert ctx == MaskContext.of(world, world.main)
