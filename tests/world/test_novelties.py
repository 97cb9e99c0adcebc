"""Every shipped novelty: its described effect in the simulator, what it does to the
pre-novelty solution (fails when detrimental, still works when beneficial or a nuisance), its
classification, composition, and the domain check on the post-novelty world."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from nesyworld.domains import find_spec, scripted_solution, shipped_novelties
from nesyworld.symbolic.derivation.domain_check import check_domain
from nesyworld.world import World
from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.transforms import CATEGORIES, LEVELS, apply_novelties, load_novelty

# the pogostick task's novelties (domains/polycraft/novelties/); other domains ship their own
NOVELTIES = sorted(n for n, p in shipped_novelties().items()
                   if p.parent.parent.name == "polycraft")
PLAN = scripted_solution("pogostick") or []
TABLE_3 = {"axe", "busy", "chest", "distance", "fence", "fire", "moving",
           "multi_interact_unbreakable", "multi_interact_no_trees", "multi_room",
           "portal_treasure", "random_drop", "space_around"}


def world_after(*novelties: str, seed: int = 0) -> World:
    return World(apply_novelties("pogostick", list(novelties)), seed=seed)


def run_plan(world: World, plan: list[str], retries: int = 6) -> bool:
    """The pre-novelty solution, executed as a plain executor would: an action refused right
    after an approach is retried with the approach (a trader may have stepped away or be busy).
    """
    last_approach = None
    for action in plan:
        for _ in range(retries + 1):
            outcome = world.step(action)
            if outcome.ok or last_approach is None or action.startswith("approach"):
                break
            world.step(last_approach)
        if action.startswith("approach"):
            last_approach = action
        if not outcome.ok:
            return False
    return world.goal_reached()


def success_rate(*novelties: str, seeds: int = 10) -> float:
    return float(np.mean([run_plan(world_after(*novelties, seed=s), PLAN)
                          for s in range(seeds)]))


def test_the_paper_novelties_and_every_level_ship() -> None:
    assert set(NOVELTIES) >= TABLE_3
    levels = {load_novelty(n).level for n in NOVELTIES}
    assert levels == set(LEVELS), f"levels without a novelty: {set(LEVELS) - levels}"


@pytest.mark.parametrize("name", NOVELTIES)
def test_classification(name: str) -> None:
    n = load_novelty(name)
    assert n.category in CATEGORIES and n.level in LEVELS and n.description


@pytest.mark.parametrize("name", NOVELTIES)
def test_pre_novelty_solution_fails_exactly_when_detrimental(name: str) -> None:
    category = load_novelty(name).category
    rate = success_rate(name)
    if category == "detrimental":
        assert rate <= 0.5, f"{name}: the old plan still succeeds at {rate}"
    else:
        assert rate >= 0.9, f"{name} is {category} but the old plan succeeds at only {rate}"


@pytest.mark.parametrize("name", NOVELTIES)
def test_domain_check_passes_after_the_novelty(name: str) -> None:
    report = check_domain(apply_novelties("pogostick", [name]), samples=6)
    assert report.ok, report.to_table()


# --- each novelty's described effect ----------------------------------------------------------
def facing_trader_with_platinum(world: World) -> None:
    world.state.inventory[world.main, world.types.id("block_of_platinum")] = 5
    assert world.step("approach_trader").ok


def check_axe(world: World) -> None:
    assert "select_axe" in world.action_names()
    world.step("approach_oak_log")
    world.step("select_tree_tap")
    assert "needs axe" in world.step("break").reason
    world.step("select_axe")
    assert world.step("break").ok and world.inventory_dict()["oak_log"] == 1


def check_busy(world: World) -> None:
    facing_trader_with_platinum(world)
    outcomes = []
    for _ in range(20):
        world.end_round()
        outcomes.append(world.act(world.main, "trade_block_of_titanium_1"))
    reasons = {o.reason for o in outcomes}
    assert "the trader is busy" in reasons and "" in reasons  # busy some steps, not all


def check_chest(world: World) -> None:
    assert world.step("approach_plastic_chest").ok and world.step("collect").ok
    assert world.step("approach_crafting_table").ok and world.step("craft_pogo_stick").ok
    assert world.goal_reached() and world.state.step == 4  # a 4-step shortcut


def check_distance(world: World) -> None:
    facing_trader_with_platinum(world)
    assert "2 cells ahead" in world.step("trade_block_of_titanium_1").reason
    for _ in range(4):  # step back until the cell behind is free
        if world.step("move_backward").ok:
            break
    assert world.step("trade_block_of_titanium_1").ok


def break_fences_until_a_tree_is_reachable(world: World) -> None:
    for _ in range(12):  # the nearest fence may be a corner, which opens nothing
        assert world.step("approach_fence").ok and world.step("break").ok
        if world.step("approach_oak_log").ok:
            return
    raise AssertionError("breaking fences never opened a tree")


def check_fence(world: World) -> None:
    assert "no reachable" in world.step("approach_oak_log").reason
    break_fences_until_a_tree_is_reachable(world)


def check_fence_first(world: World) -> None:
    """NovelGym's approach order: on this map the first tree's ring opens after two breaks
    (its corner, then an edge)."""
    for _ in range(2):
        assert "no reachable" in world.step("approach_oak_log").reason
        assert world.step("approach_fence").ok and world.step("break").ok
    assert world.step("approach_oak_log").ok
    assert world.inventory_dict()["fence"] == 2


def check_fire(world: World) -> None:
    assert world.step("approach_crafting_table").ok
    world.state.inventory[world.main, world.types.id("planks")] = 5
    world.state.inventory[world.main, world.types.id("stick")] = 1
    assert "on_fire" in world.step("craft_tree_tap").reason
    assert world.step("approach_water_bucket").ok and world.step("collect").ok
    assert world.step("select_water_bucket").ok
    assert world.step("approach_crafting_table").ok and world.step("use").ok
    assert world.step("craft_tree_tap").ok
    assert world.inventory_dict()["bucket"] == 1


def check_fire_floating(world: World) -> None:
    """NovelGym's floating bucket: walking up to it is taking it, nothing is left to collect."""
    assert world.step("approach_crafting_table").ok
    assert "on_fire" in world.step("craft_tree_tap").reason
    assert world.inventory_dict().get("water_bucket", 0) == 0
    assert world.step("approach_water_bucket").ok
    assert world.inventory_dict()["water_bucket"] == 1
    assert world.types.id("water_bucket") not in world.state.grid
    assert world.step("select_water_bucket").ok
    assert world.step("approach_crafting_table").ok and world.step("use").ok
    assert world.inventory_dict()["bucket"] == 1


def check_moving(world: World) -> None:
    trader = world.agent_names.index("trader_103")
    start = tuple(world.state.pos[trader])
    for _ in range(20):
        world.step("nop")
    assert tuple(world.state.pos[trader]) != start


def check_multi_interact_unbreakable(world: World) -> None:
    world.step("approach_oak_log")
    assert "cannot be broken" in world.step("break").reason
    assert world.step("approach_trader").ok and world.step("trade_oak_log_1").ok
    assert world.inventory_dict()["oak_log"] == 1


def check_multi_interact_no_trees(world: World) -> None:
    assert world.counts()[world.types.id("oak_log")] == 0
    assert world.step("approach_trader").ok
    assert world.step("trade_oak_log_1").ok and world.step("trade_rubber_1").ok


def check_multi_room(world: World) -> None:
    wall = world.state.grid[1:15, 7]
    names = {world.types.names[t] for t in wall}
    assert "door" in names and "bedrock" in names


def check_portal_treasure(world: World) -> None:
    world.step("approach_oak_log")
    assert "cannot be broken" in world.step("break").reason
    assert world.step("approach_portal").ok and world.step("select_treasure").ok
    assert world.step("use").ok and world.inventory_dict()["oak_log"] == 4


def check_random_drop(world: World) -> None:
    world.step("approach_oak_log")
    trees = world.counts()[world.types.id("oak_log")]
    logs = [world.step("break").ok for _ in range(30)]
    assert all(logs) and world.counts()[world.types.id("oak_log")] == trees
    assert 0 < world.inventory_dict().get("oak_log", 0) < 30


def check_space_around(world: World) -> None:
    assert world.counts()[world.types.id("oak_log")] == 0
    world.step("select_sapling")
    placed = None
    for _ in range(60):  # wander until a sapling can be placed
        outcome = world.step("place")
        if outcome.ok:
            placed = world.front(world.main)
            break
        assert "too close" in outcome.reason or "not empty" in outcome.reason
        world.step(["move_forward", "rotate_left", "move_right"][world.state.step % 3])
    assert placed is not None
    for _ in range(12):
        world.step("nop")
    assert world.types.names[world.state.grid[placed]] == "oak_log"


def check_rival_lumberjack(world: World) -> None:
    trees = world.counts()[world.types.id("oak_log")]
    for _ in range(400):
        world.step("nop")
    assert world.counts()[world.types.id("oak_log")] < trees


def check_lightning(world: World) -> None:
    """Mid-episode: the table is fine until step 8, then on fire."""
    novelty = load_novelty("lightning")
    assert novelty.inject.mid_episode and novelty.inject.step == 8
    base = World("pogostick", seed=world._seed)
    base.state.inventory[base.main, base.types.id("planks")] = 10
    base.state.inventory[base.main, base.types.id("stick")] = 2
    assert base.step("approach_crafting_table").ok and base.step("craft_tree_tap").ok
    while base.state.step < 8:
        base.step("nop")
    base.transition_to(apply_novelties("pogostick", ["lightning"]))
    assert "on_fire" in base.step("craft_tree_tap").reason
    assert base.step("approach_trader").ok and base.step("trade_water_bucket_1").ok
    base.step("select_water_bucket")
    assert base.step("approach_crafting_table").ok and base.step("use").ok
    assert base.step("craft_tree_tap").ok


EFFECTS: dict[str, Callable[[World], None]] = {
    name.removeprefix("check_"): fn for name, fn in globals().items()
    if name.startswith("check_") and callable(fn)
}


@pytest.mark.parametrize("name", NOVELTIES)
def test_described_effect(name: str) -> None:
    assert name in EFFECTS, f"no effect test for novelty '{name}'"
    EFFECTS[name](world_after(name, seed=1))


def test_composition_fence_then_axe_needs_both() -> None:
    world = world_after("fence", "axe", seed=2)
    assert "no reachable" in world.step("approach_oak_log").reason
    break_fences_until_a_tree_is_reachable(world)
    assert "needs axe" in world.step("break").reason
    assert world.step("select_axe").ok and world.step("break").ok


def test_bad_novelty_files_get_located_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("novelty: x\ncategory: awful\nlevel: objects\n")
    with pytest.raises(SpecError, match=r"bad.yaml:2:11: unknown category"):
        load_novelty(bad)
    bad.write_text("novelty: x\ncategory: nuisance\nlevel: objects\nchanges:\n"
                   "  actions:\n    trade: {class: no_such_trade}\n")
    with pytest.raises(SpecError, match=r"bad.yaml:6:20: unknown action class 'no_such_trade'"):
        apply_novelties("pogostick", [bad])


NO_TITANIUM = """\
novelty: no_titanium
category: detrimental
level: objects
description: the trader no longer sells titanium
changes:
  trades:
    block_of_titanium_1: null
"""


def test_an_error_a_novelty_causes_points_into_the_novelty(tmp_path: Path) -> None:
    """Without the trade no pogo stick can be made: the check fails on the base spec's goal,
    but the novelty is what to fix, so the error is located there (and names both)."""
    novelty = tmp_path / "no_titanium.yaml"
    novelty.write_text(NO_TITANIUM)
    with pytest.raises(SpecError) as info:
        apply_novelties("pogostick", ["axe", novelty])
    err = info.value
    assert err.location is not None and err.location.file == str(novelty)
    assert err.location.line == NO_TITANIUM.splitlines().index("  trades:") + 1
    assert "novelty 'no_titanium' makes the spec invalid" in str(err)
    assert "pogostick.yaml:" in str(err) and "goal.inventory.pogo_stick" in str(err)


def test_an_error_the_base_spec_has_itself_stays_in_the_base(tmp_path: Path) -> None:
    base = tmp_path / "broken.yaml"
    base.write_text(find_spec("pogostick").read_text().replace(
        "block_of_titanium_1: {trader: trader", "block_of_titanium_1: {trader: no_such_type"))
    with pytest.raises(SpecError) as info:
        apply_novelties(base, ["axe"])
    assert info.value.location is not None and info.value.location.file == str(base)
    assert "novelty" not in info.value.message


def test_deleting_what_the_spec_does_not_have_is_a_located_error(tmp_path: Path) -> None:
    """`null` deletes; deleting a name the spec lacks is a typo, and a silent no-op would
    leave the user believing the novelty took effect."""
    novelty = tmp_path / "typo.yaml"
    text = NO_TITANIUM.replace("block_of_titanium_1: null", "block_of_titanum_1: null")
    novelty.write_text(text)
    with pytest.raises(SpecError, match="nothing to delete: 'block_of_titanum_1'") as info:
        apply_novelties("pogostick", [novelty])
    assert info.value.location is not None and info.value.location.file == str(novelty)
    assert info.value.location.line == len(text.splitlines())
    assert "block_of_titanium_1" in info.value.expected
