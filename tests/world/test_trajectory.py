"""Trajectories: record, save, load, replay to the same states; tampering is detected."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nesyworld.world import Recorder, Trajectory, World, replay
from nesyworld.world.simulation.trajectory import ReplayMismatch, state_digest


def random_episode(seed: int, steps: int = 120) -> tuple[World, Trajectory]:
    world = World("pogostick")
    rec = Recorder(world, seed)
    rng = np.random.default_rng(seed)
    give_up = world.action_index("give_up")
    for _ in range(steps):
        a = int(rng.integers(len(world.action_names())))
        rec.step("nop" if a == give_up else a)
    return world, rec.trajectory


def test_replay_reaches_every_recorded_state(tmp_path: Path) -> None:
    world, traj = random_episode(7)
    path = tmp_path / "traj.json"
    traj.save(path)
    loaded = Trajectory.load(path)
    assert loaded.actions == traj.actions and len(loaded.digests) == len(traj.actions) + 1
    again = replay(loaded)
    assert again.state.equals(world.state)
    assert state_digest(again.state) == traj.digests[-1]


def test_replay_detects_a_changed_action() -> None:
    _, traj = random_episode(3, steps=40)
    changed = next(i for i, a in enumerate(traj.actions) if a.startswith("move") or a.startswith(
        "rotate"))
    traj.actions[changed] = "rotate_left" if traj.actions[changed] != "rotate_left" else (
        "rotate_right")
    with pytest.raises(ReplayMismatch, match=f"action {changed}"):
        replay(traj)


def test_load_rejects_other_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"format": "something-else"}')
    with pytest.raises(ValueError, match="not a nesyworld trajectory"):
        Trajectory.load(path)


def test_scripted_solution_reaches_goal() -> None:
    from nesyworld.domains import scripted_solution

    plan = scripted_solution("pogostick")
    assert plan is not None and len(plan) == 15
    for seed in range(20):
        world = World("pogostick", seed=seed)
        outcomes = [world.step(a) for a in plan]
        assert all(o.ok for o in outcomes), (seed, [o for o in outcomes if not o.ok])
        assert world.goal_reached()
