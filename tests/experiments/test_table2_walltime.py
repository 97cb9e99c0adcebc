"""The table 2 wall-time extrapolation: its model responds to the measured rates as it
should (the measuring itself is the benchmark's job, not the tests')."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nesyworld.experiments.benchmarks.table2_walltime import (
    NOVELTIES,
    MeasuredRuns,
    estimate,
    measured_runs,
)

RATES = {"train_steps_per_s": 500.0, "act_steps_per_s": 1000.0, "planning_steps_per_s": 100.0}
RECOVERY = {n: 30.0 for n in NOVELTIES} | {"chest": 0.0}
MASKED_AGENTS = ("rapidlearn+", "rapidlearn", "transfer_rl+icm", "transfer_rl")


def _masked(*args: Any) -> dict[str, Any]:
    """The grid with table2_masked's RL baselines (their measured runs are the masked ones)."""
    return estimate(*args, configs=("table2", "table2_masked"), agents=MASKED_AGENTS)


def test_rl_dominates_and_scales_with_training_speed() -> None:
    slow = _masked(RATES, RECOVERY)
    fast = _masked({**RATES, "train_steps_per_s": 1000.0}, RECOVERY)
    assert slow["runs"] == 200
    hours = slow["modelled_cpu_hours_by_agent"]
    rl, hybrid = hours["transfer_rl"], hours["rapidlearn+"]
    assert rl > 50 * hybrid  # 4M pre-novelty steps per run against one short recovery
    assert fast["modelled_cpu_hours_by_agent"]["transfer_rl"] < rl
    assert slow["wall_hours_on_2_cores"] == pytest.approx(slow["cpu_hours"] / 2, abs=0.1)
    assert slow["wall_hours_with_shared_pretraining"] < slow["wall_hours_on_2_cores"]


def test_hybrid_hours_follow_the_recovery_cost() -> None:
    key = "modelled_cpu_hours_by_agent"
    cheap = _masked(RATES, RECOVERY)[key]["rapidlearn+"]
    dear = _masked(RATES, {n: 300.0 for n in NOVELTIES})[key]["rapidlearn+"]
    assert dear > cheap


def _record(agent: str, novelty: str, seed: int, pre_steps: int, cpu: float,
            protocol: str = "paper") -> dict[str, Any]:
    """A protocol record as the sweep writes it: pre points, the injection, post points
    converging 9,600 env steps after the novelty, `cpu` seconds in all; its wall time is
    longer (it waited for a lock)."""
    pre = [{"phase": "pre", "epoch": k, "env_steps": pre_steps * k // 5, "actions": 0,
            "cpu_seconds": 1.0, "success_rate": 1.0, "mean_steps": 20.0, "episodes": 100,
            "converged": k == 5, "mean_reward": 980.0} for k in range(1, 6)]
    post = [{"phase": "post", "epoch": k, "env_steps": pre_steps + 4800 * k, "actions": 0,
             "cpu_seconds": cpu if k == 2 else 2.0, "success_rate": 1.0 if k else 0.0,
             "mean_steps": 20.0, "episodes": 100, "converged": k == 2,
             "mean_reward": 980.0 if k else -400.0}
            for k in range(3)]
    return {"key": f"{agent}/pogostick/{novelty}/{seed}", "status": "ok", "error": "",
            "spec": {"agent": agent, "domain": "pogostick", "novelty": novelty, "seed": seed,
                     "protocol": {"name": protocol}},
            "novelty": {"env_steps": pre_steps, "actions": 0, "cpu_seconds": 1.0},
            "curve": pre + post, "detections": [], "wall_seconds": cpu + 500.0}


def test_measured_runs_count_as_measured_and_shorten_pre_training(tmp_path: Path) -> None:
    path = tmp_path / "table2.jsonl"
    records = [_record("transfer_rl", "axe", 0, 120_000, 600.0),
               _record("rapidlearn+", "axe", 0, 0, 50.0),
               _record("transfer_rl", "fire_floating", 0, 0, 90.0),  # loaded the pair's checkpoint
               _record("transfer_rl", "fence", 1, 999, 1.0, protocol="light")]  # not the paper's
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    again = tmp_path / "again.jsonl"  # the Axe run recorded again: it counts once, as last seen
    again.write_text(json.dumps(_record("transfer_rl", "axe", 0, 120_000, 600.0)) + "\n")
    runs = measured_runs([path, again])
    assert set(runs.cpu) == {("transfer_rl", "axe", 0), ("rapidlearn+", "axe", 0),
                              ("transfer_rl", "fire_floating", 0)}
    assert runs.pre_steps == {"transfer_rl": [120_000]}
    assert runs.post_steps[("transfer_rl", "axe")] == [9600]
    none, some = _masked(RATES, RECOVERY), _masked(RATES, RECOVERY, runs)
    assert some["runs_measured"] == 3
    assert some["measured_cpu_hours"] == pytest.approx(740 / 3600, abs=0.01)
    assert some["pre_training_steps"] == {"transfer_rl": 120_000}
    # 120k measured pre-training steps instead of the 4M budget
    assert (some["modelled_cpu_hours_by_agent"]["transfer_rl"]
            < none["modelled_cpu_hours_by_agent"]["transfer_rl"] / 10)
    # transfer_rl+icm has no measured pre-training: still the budget
    assert (some["modelled_cpu_hours_by_agent"]["transfer_rl+icm"]
            == none["modelled_cpu_hours_by_agent"]["transfer_rl+icm"])
    assert _masked(RATES, RECOVERY, MeasuredRuns()) == none


def test_the_paper_comparable_grid_takes_the_unmasked_baselines() -> None:
    """The paper's four agents, table2's own: its unmasked RL baselines are modelled as the
    masked ones of table2_masked (the paper's T_adapt, the 4M budget) until runs of their own
    are measured."""
    paper_grid = estimate(RATES, RECOVERY)
    masked = _masked(RATES, RECOVERY)
    assert paper_grid["runs"] == 200
    hours, masked_hours = (paper_grid["modelled_cpu_hours_by_agent"],
                           masked["modelled_cpu_hours_by_agent"])
    assert set(hours) == {"rapidlearn+", "rapidlearn", "transfer_rl+icm_unmasked",
                          "transfer_rl_unmasked"}
    assert hours["transfer_rl_unmasked"] == masked_hours["transfer_rl"] > 0
    assert paper_grid["wall_hours_with_shared_pretraining"] == pytest.approx(
        masked["wall_hours_with_shared_pretraining"])
