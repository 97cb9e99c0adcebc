"""Trajectories: mutated `nesyworld play --record` files through `Trajectory.load` and replay.

One of the files records novelties (a shipped one before the first action, one with
transformations after the second), so mutants hit their steps and definitions too.

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


NOVELTY = """novelty: pricey
category: nuisance
level: actions
inject: {step: 2}
changes:
  entity_types:
    acorn: {class: item, parents: [physobj], properties: {ripe: true}}
transforms:
  - {kind: scale_costs, factor: 2.5, actions: [nop, break]}
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A plain trajectory, and one with two novelties arriving mid-episode."""
    out = []
    for novelties in (False, True):
        rec = Recorder(World("pogostick"), seed=2)
        if novelties:
            rec.inject("axe")
        for i, name in enumerate(("approach_oak_log", "break", "nop", "turn_left")):
            if novelties and i == 2:
                rec.inject(NOVELTY)
            if name in rec.world.action_names():
                rec.step(name)
        path = tmp_path_factory.mktemp("trajectory") / "t.json"
        rec.trajectory.save(path)
        out.append(path.read_text())
    assert '"injections"' in out[1]
    return out


def _load_and_replay(path: Path) -> None:
    replay(Trajectory.load(path))


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_trajectories_replay_or_refuse(fuzz, data, recorded, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "t.json"
    text = data.draw(st.sampled_from(recorded), label="document")
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(fuzz.mutant_bytes(data, text.encode()))
    else:
        path.write_text(fuzz.mutant(data, text), encoding="utf-8", errors="surrogatepass")
    fuzz.run("trajectory mutated", lambda: _load_and_replay(path))
