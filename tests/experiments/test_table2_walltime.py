"""The table 2 wall-time extrapolation: its model responds to the measured rates as it
should (the measuring itself is the benchmark's job, not the tests')."""

from __future__ import annotations

import pytest

from nesyworld.experiments.benchmarks.table2_walltime import NOVELTIES, estimate

RATES = {"train_steps_per_s": 500.0, "act_steps_per_s": 1000.0, "planning_steps_per_s": 100.0}
RECOVERY = {n: 30.0 for n in NOVELTIES} | {"chest": 0.0}


def test_rl_dominates_and_scales_with_training_speed() -> None:
    slow = estimate(RATES, RECOVERY)
    fast = estimate({**RATES, "train_steps_per_s": 1000.0}, RECOVERY)
    assert slow["runs"] == 200
    rl, hybrid = slow["cpu_hours_by_agent"]["transfer_rl"], slow["cpu_hours_by_agent"][
        "rapidlearn+"]
    assert rl > 50 * hybrid  # 4M pre-novelty steps per run against one short recovery
    assert fast["cpu_hours_by_agent"]["transfer_rl"] < rl
    assert slow["wall_hours_on_2_cores"] == pytest.approx(slow["cpu_hours"] / 2, abs=0.1)
    assert slow["wall_hours_with_shared_pretraining"] < slow["wall_hours_on_2_cores"]


def test_hybrid_hours_follow_the_recovery_cost() -> None:
    cheap = estimate(RATES, RECOVERY)["cpu_hours_by_agent"]["rapidlearn+"]
    dear = estimate(RATES, {n: 300.0 for n in NOVELTIES})["cpu_hours_by_agent"]["rapidlearn+"]
    assert dear > cheap
