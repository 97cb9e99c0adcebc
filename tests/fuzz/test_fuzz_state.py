"""Saved states: mutated `World.save` files through `World.load` and a few steps.

Every mutant must load and step, or be refused with one located SpecError (world/simulation/
state_file.py); nothing may be an IndexError five steps later.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.world import World

EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 25)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A pogostick state some steps in, one field per line so line edits hit fields."""
    world = World("pogostick", seed=3)
    for name in ("approach_oak_log", "break", "approach_crafting_table", "nop"):
        if name in world.action_names():
            world.step(name)
    path = tmp_path_factory.mktemp("state") / "s.json"
    world.save(path)
    data = json.loads(path.read_text())
    data["state"]["damage"] = [[[1, 1], 1]]
    return json.dumps(data, indent=1)


def _load_and_step(path: Path) -> None:
    world = World.load(path)
    for k in range(5):
        world.step(k % len(world.action_names()))


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_states_load_or_refuse(fuzz, data, saved, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "s.json"
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(fuzz.mutant_bytes(data, saved.encode()))
    else:
        path.write_text(fuzz.mutant(data, saved), encoding="utf-8", errors="surrogatepass")
    fuzz.run("saved state mutated", lambda: _load_and_step(path))
