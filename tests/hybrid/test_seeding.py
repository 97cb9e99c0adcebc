"""One seeding scheme: a run seed decides the learner's seed and every map of the run, and
the maps of different run seeds are disjoint (hybrid/seeding/scheme.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nesyworld.hybrid import hybrid_configs
from nesyworld.hybrid.recovery.recover import Recovery
from nesyworld.hybrid.seeding import RUNS, SPAN, STREAMS, RunSeeds
from nesyworld.world.envs import NesyGridEnv

runs = st.integers(0, RUNS - 1)
indices = st.integers(0, SPAN - 1)


@given(runs, runs, st.sampled_from(STREAMS), st.sampled_from(STREAMS), indices, indices)
def test_map_seeds_never_collide_across_runs_or_streams(r1: int, r2: int, s1: str, s2: str,
                                                        i1: int, i2: int) -> None:
    a, b = RunSeeds(r1).map(s1, i1), RunSeeds(r2).map(s2, i2)  # type: ignore[arg-type]
    assert (a == b) == ((r1, s1, i1) == (r2, s2, i2))
    assert RunSeeds.owner(a) == (s1, r1, i1)


def test_ten_run_seeds_share_no_adaptation_or_evaluation_map() -> None:
    maps = [RunSeeds(r).adaptation(k) for r in range(10) for k in range(60)]
    maps += [RunSeeds(r).evaluation(k) for r in range(10) for k in range(100)]
    assert len(set(maps)) == len(maps)


def test_different_map_seeds_lay_out_different_maps() -> None:
    """The world turns a map seed into a layout; neighbouring seeds of the scheme (which
    differ in their low bits only) must still give different maps."""
    env = NesyGridEnv("pogostick")
    layouts = set()
    for seed in [RunSeeds(r).evaluation(k) for r in range(3) for k in range(3)]:
        env.reset(seed=seed)
        layouts.add(env.unwrapped.world.state.grid.tobytes())
    assert len(layouts) == 9


def test_learner_seed_and_extra_maps_follow_the_run_seed() -> None:
    recovery, _ = hybrid_configs("rapidlearn+", 7)
    assert recovery.train.seed == RunSeeds(7).learner == 7
    assert recovery.train.env_seed == RunSeeds(7).learner_envs()
    op_a = RunSeeds(7).extra_maps("break_oak_log", 16)
    assert op_a == RunSeeds(7).extra_maps("break_oak_log", 16)  # a run repeats
    assert not set(op_a) & set(RunSeeds(8).extra_maps("break_oak_log", 16))
    assert {RunSeeds.owner(s)[:2] for s in op_a} == {("extra_maps", 7)}
    assert Recovery._map_seeds(7, _failure("break_oak_log"), 16) == op_a


def _failure(name: str):  # type: ignore[no-untyped-def]
    class Op:
        pass

    class Failure:
        operator = Op()

    Failure.operator.name = name  # type: ignore[attr-defined]
    return Failure()


@pytest.mark.parametrize("bad", [-1, RUNS, 1.5, True, "3"])
def test_bad_run_seeds_are_refused_with_the_range(bad: object) -> None:
    with pytest.raises(ValueError, match=r"run seed: expected a whole number in 0\.\."):
        RunSeeds(bad)  # type: ignore[arg-type]


def test_bad_streams_and_indices_are_refused() -> None:
    with pytest.raises(ValueError, match="seed stream: expected one of"):
        RunSeeds(0).map("training", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="evaluation episode index"):
        RunSeeds(0).evaluation(SPAN)
    with pytest.raises(ValueError, match="not a map seed"):
        RunSeeds.owner(5)
