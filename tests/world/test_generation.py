"""Procedural levels (`map.generate`): one map per seed, connected rooms, guaranteed objects,
located errors, the batched core's fallback, and the shipped procedural spec from the CLI."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.experiments.cli.main import main
from nesyworld.world import World, load_spec
from nesyworld.world.batch.core import BatchWorld
from nesyworld.world.errors import SpecError
from nesyworld.world.kernels.layout import count_regions, neighbour_table
from nesyworld.world.simulation.catalog import TypeCatalog
from nesyworld.world.simulation.layout import fixed_grid
from nesyworld.world.simulation.procedural import generate, realize

SPEC = "pogostick_procedural"


@pytest.fixture(scope="module")
def spec():  # type: ignore[no-untyped-def]
    return load_spec(SPEC)


def grid_of(spec, seed: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    return World(spec, seed=seed).state.grid.copy()


@settings(max_examples=25, deadline=None)
@given(key=st.integers(0, 2**32 - 1))
def test_the_same_key_draws_the_same_map(spec, key: int) -> None:  # type: ignore[no-untyped-def]
    a, b = realize(spec, key), realize(spec, key)
    assert a.map == b.map
    assert a.map.generate is None and len(a.map.doors) == spec.map.generate.rooms - 1


@settings(max_examples=25, deadline=None)
@given(key=st.integers(0, 2**32 - 1))
def test_every_map_is_connected_and_has_what_the_goal_needs(spec, key: int
                                                            ) -> None:  # type: ignore[no-untyped-def]
    out = realize(spec, key)
    types = TypeCatalog.from_spec(out)
    base = fixed_grid(out, types)
    h, w = base.shape
    assert count_regions(types.passable[base.ravel()], neighbour_table(h, w)) == 1
    counts = {p.type: p.quantity for p in out.map.objects}
    for item, n in spec.map.generate.min_counts.items():
        assert counts[item] >= n


def test_same_seed_same_world_and_different_seeds_differ(spec) -> None:  # type: ignore[no-untyped-def]
    assert np.array_equal(grid_of(spec, 3), grid_of(spec, 3))
    grids = {grid_of(spec, s).tobytes() for s in range(8)}
    assert len(grids) == 8
    walls = {realize(spec, k).map.walls for k in range(8)}
    assert len(walls) > 1  # the rooms themselves change, not only where things stand


def test_resets_draw_fresh_maps_and_reseeding_repeats_them(spec) -> None:  # type: ignore[no-untyped-def]
    world = World(spec, seed=5)
    first = world.state.grid.copy()
    world.reset()
    assert not np.array_equal(first, world.state.grid)
    world.reset(seed=5)
    assert np.array_equal(first, world.state.grid)


def test_a_split_never_butts_onto_a_door() -> None:
    gen = load_spec(SPEC).map.generate
    for key in range(200):
        drawn = generate(gen, True, key)
        if drawn is None:
            continue
        doors = {d.at for d in drawn.doors}
        for wall in drawn.walls:
            (r0, c0), (r1, c1) = wall.start, wall.end
            ends = ([(r0, c0 - 1), (r0, c1 + 1)] if r0 == r1 else [(r0 - 1, c0), (r1 + 1, c0)])
            assert not doors & set(ends)


def test_the_batched_core_falls_back_to_worlds_with_the_same_maps(spec) -> None:  # type: ignore[no-untyped-def]
    batch = BatchWorld(spec, num_envs=3, seed=11)
    assert batch.engine == "worlds" and "map.generate" in batch.why_not
    for i in range(3):
        assert np.array_equal(batch.export(i).grid, grid_of(spec, 11 + i))
    with pytest.raises(Exception, match=r"map\.generate"):
        BatchWorld(spec, num_envs=1, engine="compiled")


def test_the_planning_agent_solves_generated_maps() -> None:
    from nesyworld.hybrid import PlanningAgent, PlanningConfig, run_episode
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world.envs import NesyGridEnv

    env = NesyGridEnv(SPEC)
    agent = PlanningAgent(env, KnowledgeBase.from_world(SPEC), PlanningConfig(mode="macro"))
    assert run_episode(env, agent, seed=4).success


def test_show_draws_the_seeded_map(capsys: pytest.CaptureFixture[str], spec) -> None:  # type: ignore[no-untyped-def]
    assert main(["show", SPEC, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "+" in out  # doors between the generated rooms
    first = out
    assert main(["show", SPEC, "--seed", "3"]) == 0
    assert capsys.readouterr().out == first


BASE = """\
extends: pogostick
map:
  size: null
  rooms: null
  objects: null
  generate:
{body}
"""


@pytest.mark.parametrize(("body", "where", "message"), [
    ("    size: [12, 12]\n    densities: {oak_log: -0.1}", "map.generate.densities.oak_log",
     "density out of range"),
    ("    size: [12, 12]\n    densities: {oak_log: 0.6, diamond_ore: 0.5}",
     "map.generate.densities", "densities sum over 1"),
    ("    size: [4, 12]", "map.generate.size", "map too small"),
    ("    size: [8, 8]\n    rooms: 5", "map.generate.size", "too small for 5 rooms"),
    ("    size: [12, 12]\n    densities: {unicorn: 0.1}", "map.generate.densities.unicorn",
     "unknown entity type"),
    ("    size: [12, 12]\n    rooms: 2", "map.generate.door", "unknown entity type 'door'"),
    ("    size: [12, 12]\n    rooms: 2\n    door: bedrock", "map.generate.door",
     "blocks movement"),
    ("    size: [12, 12]\n    rooms: 5\n    door: air", "map.generate.rooms",
     "5 rooms do not fit"),
])
def test_bad_generate_blocks_are_located(body: str, where: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as err:
        load_spec(BASE.format(body=body))
    assert err.value.key_path == where
    assert err.value.location is not None and err.value.location.line >= 5


def test_an_inherited_hand_made_layout_is_refused_with_the_way_out() -> None:
    text = "extends: pogostick\nmap:\n  generate: {size: [12, 12]}\n"
    with pytest.raises(SpecError, match="cannot be combined") as err:
        load_spec(text)
    assert "null" in str(err.value) and err.value.location is not None


def test_novelty_objects_join_every_generated_map_and_layouts_are_refused() -> None:
    from nesyworld.world.novelty.transforms import apply_novelties

    chest = apply_novelties(SPEC, ["chest"])
    for seed in (0, 1):
        world = World(chest, seed=seed)
        assert (world.state.grid == world.types.id("plastic_chest")).sum() == 1
    with pytest.raises(SpecError, match="cannot be combined") as err:
        apply_novelties(SPEC, ["multi_room"])
    assert "multi_room.yaml" in str(err.value.location)
