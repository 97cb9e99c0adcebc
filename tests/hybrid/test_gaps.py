"""No plan at all: the item the knowledge base can no longer obtain becomes the failure to
learn from (hybrid/recovery/gaps.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.hybrid.recovery.gaps import gap_failure, item_chain, missing_item
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner
from nesyworld.world import World
from nesyworld.world.actions.schema import INVENTORY, CountChange
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")
PLANNER = Planner("fast-downward", cache=PlanCache())


def test_the_goal_chain_reaches_the_raw_materials() -> None:
    chain = item_chain(KB, KB.derivation().goal)
    assert chain["pogo_stick"] == 0
    assert chain["oak_log"] > chain["planks"] > chain["pogo_stick"]


def test_nothing_is_missing_before_the_novelty() -> None:
    world = World(apply_novelties("pogostick", []))
    assert missing_item(KB, PLANNER, abstract(world)) is None


def test_without_trees_the_missing_item_is_the_log() -> None:
    world = World(apply_novelties("pogostick", ["multi_interact_no_trees"]))
    z = abstract(world)
    assert missing_item(KB, PLANNER, z) == "oak_log"
    failure = gap_failure("oak_log", world.snapshot(), z, 0)
    assert failure.operator.schema.effects == (CountChange(INVENTORY, "oak_log", 1),)
    assert "cannot obtain oak_log" in str(failure)


def test_learning_the_missing_item_is_not_a_dead_end() -> None:
    """The closed regime's dead-end test counts the operator being learned: the item a gap
    is chosen for is one every route to the goal needs, so without it the gap would always
    look dead and its recovery would never train."""
    from nesyworld.hybrid.recovery.starts import model_goal_reachable

    world = World(apply_novelties("pogostick", ["multi_interact_no_trees"]))
    z = abstract(world)
    obtain = gap_failure("oak_log", world.snapshot(), z, 0).operator.schema
    assert model_goal_reachable(KB, z, {"planks": 1}) is False
    assert model_goal_reachable(KB, z, {"planks": 1}, learning=obtain) is True
    assert model_goal_reachable(KB, None, {"planks": 1}, learning=obtain) is None


def test_a_state_with_no_way_to_the_goal_is_a_dead_end() -> None:
    from nesyworld.hybrid.boundary.oracle_model import goal_reachable

    alive = World(apply_novelties("pogostick", []))
    dead = World(apply_novelties("pogostick", []))
    grid = dead.state.grid  # every tree (and sapling) gone mid-episode: no log, ever
    for name in ("oak_log", "sapling"):
        if name in dead.types.names:
            grid[grid == dead.types.id(name)] = dead.types.id("air")
    assert goal_reachable(dead.spec, dead.snapshot(), PLANNER) is False
    assert goal_reachable(alive.spec, alive.snapshot(), PLANNER) is True
    assert goal_reachable(alive.spec, None, PLANNER) is None


ROOT = Path(__file__).parents[2] / "domains"
SOLVABLE = [("pogostick", str(p)) for p in sorted((ROOT / "polycraft" / "novelties").glob(
    "*.yaml"))] + [("pogostick", str(p)) for p in sorted((ROOT / "polycraft" / "suite").glob(
        "*.yaml"))] + [(str(ROOT / "workshop" / "birdhouse.yaml"), str(p)) for p in sorted(
            (ROOT / "workshop" / "novelties").glob("*.yaml"))]


@pytest.mark.parametrize(("spec", "novelty"), SOLVABLE, ids=[Path(n).stem for _, n in SOLVABLE])
def test_no_solvable_novelty_starts_in_a_dead_end(spec: str, novelty: str) -> None:
    """The dead-end test must be sound: a model stricter than the world (a trade from two
    cells away, a sapling that grows) never makes a live state look dead."""
    from nesyworld.hybrid.boundary.oracle_model import goal_reachable

    world = World(apply_novelties(spec, [novelty]))
    assert goal_reachable(world.spec, world.snapshot()) is True
