"""Trajectories: mutated `nesyworld play --record` files through `Trajectory.load` and replay.

A mutant must replay, or be refused with a located SpecError, or be caught as a
ReplayMismatch (the recorded digests no longer match what the actions do).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.world import World
from nesyworld.world.simulation.trajectory import Recorder, Trajectory, replay

EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 25)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> str:
    rec = Recorder(World("pogostick"), seed=2)
    for name in ("approach_oak_log", "break", "nop", "turn_left"):
        if name in rec.world.action_names():
            rec.step(name)
    path = tmp_path_factory.mktemp("trajectory") / "t.json"
    rec.trajectory.save(path)
    return path.read_text()


def _load_and_replay(path: Path) -> None:
    replay(Trajectory.load(path))


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_trajectories_replay_or_refuse(fuzz, data, recorded, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "t.json"
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(fuzz.mutant_bytes(data, recorded.encode()))
    else:
        path.write_text(fuzz.mutant(data, recorded), encoding="utf-8", errors="surrogatepass")
    fuzz.run("trajectory mutated", lambda: _load_and_replay(path))
