"""Gymnasium's Taxi behind the environment boundary (hybrid/adapters/taxi/): an env whose
observation is one integer, hosted with the same API as MiniGrid."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest

from nesyworld.hybrid import PlanningAgent, PlanningConfig, host_for, run_episode
from nesyworld.hybrid.adapters.taxi.host import TaxiHost, drive, open_moves
from nesyworld.world.actions.schema import INVENTORY, WORLD, Fact


def taxi(seed: int = 0) -> tuple[gym.Env, TaxiHost]:  # type: ignore[type-arg]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make("Taxi-v4")
    env.reset(seed=seed)
    host = host_for(env)
    assert isinstance(host, TaxiHost)
    return env, host


def test_the_detector_decodes_where_the_passenger_waits_and_goes() -> None:
    env, host = taxi()
    _, _, passenger, destination = env.unwrapped.decode(env.unwrapped.s)  # type: ignore[attr-defined]
    z = host.detect()
    stands = ("red_stand", "green_stand", "yellow_stand", "blue_stand")
    assert z.holds(Fact("destination", (stands[destination],)))
    assert z.holds(Fact("waiting_at", (stands[passenger],)))
    assert z.count(WORLD, "passenger") == 1 and z.count(INVENTORY, "delivered") == 0


def test_walls_block_the_drive_and_the_drive_is_shortest() -> None:
    env, _ = taxi()
    desc = env.unwrapped.desc  # type: ignore[attr-defined]
    assert "east" not in dict(open_moves(desc, 0, 1))  # R: | the wall right of (0, 1)
    assert "east" in dict(open_moves(desc, 2, 1))
    env.unwrapped.s = env.unwrapped.encode(0, 0, 1, 2)  # type: ignore[attr-defined]
    moves = []
    for a in drive(env, (0, 4)):  # the state is read afresh before each move
        assert isinstance(a, str)
        moves.append(a)
        env.step(("south", "north", "east", "west").index(a))
    assert tuple(env.unwrapped.decode(env.unwrapped.s))[:2] == (0, 4)  # type: ignore[attr-defined]
    assert len(moves) == 8  # down and around the wall, then up


def test_the_planning_agent_delivers_on_twenty_maps() -> None:
    env, host = taxi()
    agent = PlanningAgent(env, config=PlanningConfig(planner="in-process"), host=host)
    results = [run_episode(env, agent, seed=s) for s in range(20)]
    assert all(r.success for r in results) and not any(r.failures for r in results)
    assert all(r.reward > 0 for r in results)


def test_snapshots_and_copies() -> None:
    _, host = taxi()
    before, snap = host.detect(), host.snapshot()
    host.step("north")
    host.step("pickup")
    host.restore(snap)
    assert host.detect() == before
    twin = host.copy()
    twin.step("south")
    assert host.detect() == before


@pytest.mark.parametrize("planner", ["in-process", "fast-downward"])
def test_both_planners_plan_the_ride(planner: str) -> None:
    from nesyworld.symbolic.planning.planners import Planner

    _, host = taxi(3)
    result = Planner(planner).plan(host.knowledge().derivation(), host.detect(), host.goal())
    assert result.ok
    assert [s.operator for s in result.steps][-1].startswith("drop_off")
