"""World specs: mutated shipped specs through the loader, then `World`, reset and a few steps.

Text mutants go through `load_spec_text` under the shipped file's own name, so a relative
`extends:` still resolves and nothing is written anywhere; byte mutants (invalid UTF-8, NUL
bytes, cut multi-byte characters) need a real file, written under pytest's temp directory.
A spec that loads must also run: a value the loader accepts may not crash the World later.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.domains import shipped_specs
from nesyworld.world import World
from nesyworld.world.spec.loader import load_spec, load_spec_text
from nesyworld.world.spec.model import WorldSpec

SPECS = sorted(shipped_specs().values())
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 20)
STEPS = 4


def _play(spec: WorldSpec) -> None:
    """Build the World, reset it and take a few steps with actions it offers (a legal one
    when the mask has any), NPCs and scheduled events included."""
    world = World(spec, seed=0)
    world.reset(seed=0)
    for step in range(STEPS):
        n = len(world.action_names())
        legal = [i for i, ok in enumerate(world.action_mask()) if ok]
        world.step(legal[step % len(legal)] if legal else step % max(n, 1))


@pytest.fixture(scope="module", autouse=True)
def compiled_kernels() -> None:
    """Compile (or load) the numba kernels before the clock starts: a first compile can take
    longer than the harness's hang limit, and it is no property of any input."""
    for path in SPECS:
        world = World(load_spec(path), seed=0)
        for i in range(len(world.action_names())):  # every action's kernels, approach's too
            world.step(i)


def test_specs_to_fuzz_are_shipped_specs() -> None:
    assert len(SPECS) >= 10
    assert all("novelties" not in p.parts and "suite" not in p.parts for p in SPECS)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_specs_load_or_refuse(fuzz, data) -> None:
    path = data.draw(st.sampled_from(SPECS), label="spec")
    text = fuzz.mutant(data, path.read_text(encoding="utf-8"))
    fuzz.run(f"{path.name} mutated", lambda: _play(load_spec_text(text, path)))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz_spec_bytes")


@settings(max_examples=max(EXAMPLES // 2, 1), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_spec_bytes_load_or_refuse(fuzz, data, scratch: Path) -> None:
    path = data.draw(st.sampled_from(SPECS), label="spec")
    mutated = scratch / path.name
    mutated.write_bytes(fuzz.mutant_bytes(data, path.read_bytes()))
    fuzz.run(f"{path.name} bytes mutated", lambda: _play(load_spec(mutated)))
