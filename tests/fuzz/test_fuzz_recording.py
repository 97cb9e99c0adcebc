"""Recordings: mutated episode recordings and plain trajectories through `read_recording`.

The studio opens files a user picked; each mutant must open or be one located
RecordingError.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.hybrid.recording.reader import read_recording
from nesyworld.world import World
from nesyworld.world.simulation.trajectory import Recorder

EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 25)


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A plain trajectory with a novelty arriving mid-episode and an episode recording made
    from it, with an event and a domain, pretty-printed so line edits hit fields."""
    rec = Recorder(World("pogostick"), seed=1)
    for name in ("approach_oak_log", "break", "nop"):
        rec.step(name)
        if name == "approach_oak_log":
            rec.inject("axe")
    path = tmp_path_factory.mktemp("recording") / "t.json"
    rec.trajectory.save(path)
    episode = read_recording(path)
    episode.events = [{"frame": 1, "step": 1, "kind": "plan", "text": "a plan",
                       "data": {"plan": ["break"]}}]
    episode.domains = [{"frame": 0, "domain": "(define (domain d))"}]
    episode.save(path.with_name("e.json"))
    doc = json.loads(path.with_name("e.json").read_text())
    grids = []
    for i, frame in enumerate(doc["frames"]):  # a grid on one line: edits hit every field
        grids.append(json.dumps(frame["grid"]))
        frame["grid"] = f"@grid{i}@"
    text = json.dumps(doc, indent=1)
    for i, grid in enumerate(grids):
        text = text.replace(f'"@grid{i}@"', grid)
    return [path.read_text(), text]


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_recordings_open_or_refuse(fuzz, data, documents) -> None:
    text = data.draw(st.sampled_from(documents), label="document")
    if data.draw(st.booleans(), label="bytes"):
        raw = fuzz.mutant_bytes(data, text.encode())
    else:
        raw = fuzz.mutant(data, text).encode("utf-8", "surrogatepass")
    fuzz.run("recording mutated", lambda: read_recording(raw, name="r.json"))
