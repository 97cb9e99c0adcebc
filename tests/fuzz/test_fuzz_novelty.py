"""Novelties: mutated shipped novelties through `load_novelty`, `apply_novelties` onto the spec
they were written for, then the World built, reset and stepped; mid-episode ones also through
the `NoveltyInjector` past their step."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.world import World
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
from nesyworld.world.novelty.transforms import apply_novelties, load_novelty

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ROOT / "domains"
NOVELTIES = [(p, "pogostick") for p in sorted((DOMAINS / "polycraft" / "novelties").glob("*.yaml"))
             + sorted((DOMAINS / "polycraft" / "suite").glob("*.yaml"))]
NOVELTIES += [(p, "birdhouse") for p in sorted((DOMAINS / "workshop" / "novelties").glob("*.yaml"))]
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 15)
STEPS = 6


def _play(path: Path, spec: str) -> None:
    novelty = load_novelty(path)
    world = World(apply_novelties(spec, [novelty]), seed=0)
    world.reset(seed=0)
    names = world.action_names()
    for step in range(STEPS):
        world.step(step % len(names))
    if novelty.inject.mid_episode and novelty.inject.step is not None and novelty.inject.step < 4:
        env = NoveltyInjector(NesyGridEnv(spec), [novelty])
        env.reset(seed=0)
        for _ in range(STEPS):
            env.step(0)


def _warm_up() -> None:
    """Compile or load the simulator's kernels before the alarm runs: the first World of a
    process may take longer than a fuzz call is allowed to."""
    for spec in ("pogostick", "birdhouse"):
        world = World(apply_novelties(spec, []), seed=0)
        world.reset(seed=0)
        world.step(0)


_warm_up()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_novelties_apply_or_refuse(fuzz, data, tmp_path_factory) -> None:
    path, spec = data.draw(st.sampled_from(NOVELTIES), label="novelty")
    text = fuzz.mutant(data, path.read_text(encoding="utf-8"))
    mutated = tmp_path_factory.mktemp("novelty") / path.name
    mutated.write_text(text, encoding="utf-8", errors="surrogatepass")
    fuzz.run(f"{path.name} mutated", lambda: _play(mutated, spec))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_corrupted_novelty_bytes_apply_or_refuse(fuzz, data, tmp_path_factory) -> None:
    path, spec = data.draw(st.sampled_from(NOVELTIES), label="novelty")
    mutated = tmp_path_factory.mktemp("novelty") / path.name
    mutated.write_bytes(fuzz.mutant_bytes(data, path.read_bytes()))
    fuzz.run(f"{path.name} corrupted", lambda: _play(mutated, spec))
