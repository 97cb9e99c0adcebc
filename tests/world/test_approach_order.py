"""`approach` with `order: first`: the first thing of the type in map order with a reachable
side, not the nearest (NovelGym's approach; the `fence_first` novelty), in the simulator and
in the batched kernels alike."""

from __future__ import annotations

import numpy as np
import pytest

from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

NORTH, EAST, SOUTH, WEST = range(4)

SPEC = """\
name: order
entity_types:
  air: {class: floor}
  bedrock: {class: block}
  oak_log: {breakable: true, drops: {oak_log: 1}}
  fence: {breakable: true, drops: {fence: 1}}
  agent: {class: actor}
actions:
  approach: {class: approach, order: ORDER}
  break: {class: break}
  nop: {class: nop}
action_sets:
  main: [approach, break, nop]
map:
  ascii: |
    ############
    #.......T..#
    #..........#
    #..FFF.....#
    #..FTF.....#
    #..FFF.....#
    #..........#
    ############
  legend: {".": air, "#": bedrock, T: oak_log, F: fence}
agents:
  player: {type: agent, at: [4, 2], facing: north, action_set: main}
goal:
  inventory: {oak_log: 3}
max_steps: 50
"""


def spec(order: str) -> WorldSpec:
    return load_spec(SPEC.replace("ORDER", order))


def where(world: World) -> tuple[tuple[int, int], int]:
    r, c = world.state.pos[world.main].tolist()
    return (r, c), int(world.state.facing[world.main])


def test_nearest_goes_to_the_nearest_fence() -> None:
    world = World(spec("nearest"), seed=0)
    out = world.step("approach_fence")
    assert out.ok and out.cost == 1.0  # already beside the ring's west edge: turn east
    assert where(world) == ((4, 2), EAST)


def test_first_goes_to_the_first_in_map_order_with_a_reachable_side() -> None:
    """The open tree at (1, 8) comes first in row order though the fenced one is nearer; of
    its sides (N, E, S, W) the first reachable is east, 3 + 7 cells of walk away."""
    world = World(spec("first"), seed=0)
    out = world.step("approach_oak_log")
    assert out.ok and out.cost == 10.0
    assert where(world) == ((1, 9), WEST)


def test_first_opens_a_ring_corner_first_then_an_edge() -> None:
    """NovelGym's fence: the ring's first fence is its top-left corner, so the fenced tree
    takes two breaks wherever the agent starts; from the west, the nearest fence is an edge."""
    world = World(spec("first"), seed=0)
    world.set_cell((1, 8), 0)  # only the fenced tree is left
    assert "no reachable" in world.step("approach_oak_log").reason
    assert world.step("approach_fence").ok and where(world) == ((2, 3), SOUTH)
    assert world.step("break").ok
    assert "no reachable" in world.step("approach_oak_log").reason
    assert world.step("approach_fence").ok and where(world) == ((2, 4), SOUTH)
    assert world.step("break").ok
    assert world.step("approach_oak_log").ok and where(world) == ((3, 4), SOUTH)
    assert world.inventory_dict()["fence"] == 2

    nearest = World(spec("nearest"), seed=0)
    nearest.set_cell((1, 8), 0)
    assert nearest.step("approach_fence").ok and nearest.step("break").ok
    assert nearest.step("approach_oak_log").ok and where(nearest) == ((4, 3), EAST)
    assert nearest.inventory_dict()["fence"] == 1


@pytest.mark.parametrize("order", ["nearest", "first"])
def test_the_batched_kernel_goes_where_the_world_goes(order: str) -> None:
    plan = ["approach_fence", "break", "approach_oak_log", "approach_fence", "break",
            "approach_oak_log", "break", "approach_oak_log", "break", "nop", "break"]
    single, vec = NesyGridEnv(spec(order)), NesyVectorEnv(2, spec=spec(order))
    single.reset(seed=0)
    vec.reset(seed=0)
    assert vec.batch.engine == "compiled", vec.batch.why_not
    for t, name in enumerate(plan):
        index = single.world.action_index(name)
        _, r, _, _, info = single.step(index)
        _, rv, _, _, vinfo = vec.step(np.array([index, index]))
        assert (bool(vinfo["ok"][0]), float(rv[0])) == (bool(info["ok"]), float(r)), (t, name)
        assert vec.batch.export(0).equals(single.world.state), (t, name)


def test_an_unknown_order_is_refused_where_it_is_written() -> None:
    with pytest.raises(SpecError, match=r"actions\.approach\.order.*nearest, first"):
        spec("farthest")
