"""The scent observation: Jelly Bean World's diffusion equation, its stability check, and the
"scent" observation kind in the Gymnasium env."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.world import World, load_spec
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.observations.scent_view import ScentField, ScentTracker, scent_sources

ONE_SOURCE = np.array([[0.0], [1.0]])  # type 0 gives nothing, type 1 gives 1


def field_with_source(shape: tuple[int, int] = (9, 9), at: tuple[int, int] = (4, 4)
                      ) -> tuple[ScentField, np.ndarray]:
    grid = np.zeros(shape, np.int16)
    grid[at] = 1
    return ScentField(ONE_SOURCE, 0.4, 0.14, shape), grid


def test_scent_is_strongest_at_the_source_and_fades_with_distance() -> None:
    field, grid = field_with_source()
    field.settle(grid)
    values = field.values[..., 0]
    assert np.unravel_index(values.argmax(), values.shape) == (4, 4)
    row = values[4, 4:]
    assert np.all(np.diff(row) < 0)


def test_one_step_from_nothing_smells_only_at_the_source_then_spreads() -> None:
    field, grid = field_with_source()
    field.step(grid)
    assert np.count_nonzero(field.values) == 1 and field.values[4, 4, 0] == 1.0
    field.step(grid)
    assert field.values[4, 4, 0] == pytest.approx(1.4)  # C + decay * 1
    assert field.values[3, 4, 0] == pytest.approx(0.14)  # diffusion * 1
    assert field.values[2, 4, 0] == 0.0


def test_the_settled_field_is_a_fixed_point_of_the_equation() -> None:
    field, grid = field_with_source((7, 11), (2, 8))
    field.settle(grid)
    before = field.values.copy()
    field.step(grid)
    np.testing.assert_allclose(field.values, before, rtol=1e-9, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(decay=st.floats(0.0, 0.9), share=st.floats(0.0, 0.99), seed=st.integers(0, 10_000))
def test_the_field_never_exceeds_its_bound(decay: float, share: float, seed: int) -> None:
    diffusion = (1.0 - decay) * share / 4.0
    rng = np.random.default_rng(seed)
    grid = rng.integers(0, 2, (6, 6)).astype(np.int16)
    field = ScentField(ONE_SOURCE, decay, diffusion, (6, 6))
    for _ in range(30):
        field.step(grid)
        assert field.values.max() <= field.bound * (1 + 1e-9)


def test_unstable_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="unstable"):
        ScentField(ONE_SOURCE, 0.5, 0.2, (3, 3))


def test_no_sources_smell_of_nothing() -> None:
    env = NesyGridEnv("pogostick", observation="scent")  # pogostick declares no scent
    obs, _ = env.reset(seed=0)
    for a in range(5):
        assert obs.shape == (3,) and not obs.any()
        obs, *_ = env.step(a)


def test_the_agent_smells_more_of_a_tree_it_stands_next_to() -> None:
    env = NesyGridEnv("pogostick_procedural", observation="scent")
    obs, _ = env.reset(seed=0)
    names = env.unwrapped.action_names
    near, *_ = env.step(names.index("approach_oak_log"))
    assert near[0] > obs[0] and near[0] > 0.5
    assert env.observation_space.contains(near)


def test_the_tracker_steps_with_the_world_and_resettles_on_restore() -> None:
    spec = load_spec("pogostick_procedural")
    world = World(spec, seed=1)
    sources = scent_sources(world.types.names, spec.scent.vectors, spec.scent.dims)
    tracker = ScentTracker(world, sources, 0.4, 0.14)
    start = tracker.observe(world.main).copy()
    snap = world.snapshot()
    manual = ScentField(sources, 0.4, 0.14, world.state.grid.shape)
    manual.settle(world.state.grid)
    for name in ("rotate_left", "move_forward", "rotate_right"):
        world.step(name)
        manual.step(world.state.grid)
    tracker.observe(world.main)
    assert tracker.observe(world.main) is not None  # a second look at the same step: no step
    np.testing.assert_allclose(tracker.field.values, manual.values)
    world.restore(snap)
    np.testing.assert_allclose(tracker.observe(world.main), start, rtol=1e-6)


def test_check_env_passes_with_scent_alone_and_inside_dict() -> None:
    check_env(NesyGridEnv("pogostick_procedural", observation="scent"), skip_render_check=True)
    env = NesyGridEnv("pogostick_procedural",
                      observation={"kind": "dict", "dict_kinds": ("lidar", "scent")})
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=2)
    assert set(obs) == {"lidar", "scent"} and obs["scent"].any()


def test_the_vector_env_refuses_the_scent_kind() -> None:
    with pytest.raises(ValueError, match="scent"):
        NesyVectorEnv(2, "pogostick", observation="scent")


SCENTED = """\
extends: pogostick
{scent}
entity_types:
  oak_log: {{scent: {vector}}}
"""


@pytest.mark.parametrize(("scent", "vector", "where", "message"), [
    ("scent: {decay: 0.5, diffusion: 0.2}", "[1, 0, 0]", "scent", "unstable scent"),
    ("scent: {decay: -0.1}", "[1, 0, 0]", "scent.decay", "negative decay"),
    ("", "[1, 0]", "entity_types.oak_log.scent", "wrong type"),
    ("", "[1, -2, 0]", "entity_types.oak_log.scent.1", "negative scent"),
    ("scent: {dims: 2, smell: 1}", "[1, 0]", "scent.smell", "unknown key"),
])
def test_bad_scent_is_located(scent: str, vector: str, where: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as err:
        load_spec(SCENTED.format(scent=scent, vector=vector))
    assert err.value.key_path == where and err.value.location is not None


def test_a_type_inherits_its_category_scent() -> None:
    text = "extends: pogostick\nentity_types:\n  log: {scent: [0, 2, 0]}\n"
    spec = load_spec(text)
    assert spec.scent.vectors["oak_log"] == (0.0, 2.0, 0.0)
    assert "diamond_ore" not in spec.scent.vectors
