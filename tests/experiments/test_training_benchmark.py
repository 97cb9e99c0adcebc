"""The training benchmark, run tiny: every row is a real measurement of a real training run,
beside the minimal PPO measured in the same run, with its ratio oriented as the table says,
and beside its FLOP ceiling (roofline.py). No speed is asserted."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from nesyworld.experiments.benchmarks import training


def test_every_row_is_measured(capsys: pytest.CaptureFixture[str]) -> None:
    training.main(["--steps", "80", "--envs", "2", "--minibatch", "16", "--repeats", "1",
                   "--json"])
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"]
    assert [r["name"].split(",")[0] for r in rows] == [
        "PPO training", "PPO+ICM training", "PPO training", "recovery training",
        "recovery training", "recovery training"]
    # what recovery trains on (the batched recovery env), alone and with the update thread,
    # then the RecoveryEnvs of before
    assert "copies on the batched core" in rows[3]["name"]
    assert "update thread" not in rows[3]["name"]
    assert "copies on the batched core" in rows[4]["name"]
    assert "with the update thread" in rows[4]["name"]
    assert "2 RecoveryEnvs" in rows[5]["name"]
    assert rows[4]["env_only"] == rows[3]["env_only"]  # the same envs, measured once
    assert all("minibatch 128 x8" in r["name"] for r in rows[3:])
    for row in rows:
        assert math.isfinite(row["ours"]) and row["ours"] > 0, row
        assert math.isfinite(row["reference"]) and row["reference"] > 0, row
        assert row["reference_name"].startswith("minimal PPO"), row
        assert row["env_only"] is not None and row["env_only"] > 0, row
        assert row["ratio"] == pytest.approx(row["ours"] / row["reference"]), row
        assert row["mflop_per_step"] > 0, row
        for ceiling, of, rate in (("ceiling", "of_ceiling", "ours"),
                                  ("reference_ceiling", "reference_of_ceiling", "reference")):
            assert math.isfinite(row[ceiling]) and row[ceiling] > 0, row
            assert row[of] == pytest.approx(row[rate] / row[ceiling]), row


def test_the_ppo_rows_train_on_the_threads_asked_for() -> None:
    from nesyworld.experiments.benchmarks.training_cases import ppo_settings

    for threads in (1, 2):
        rows = ppo_settings(64, 2, 32, threads=threads)
        assert [s.train.torch_threads for s in rows] == [threads] * 3


def test_the_recovery_rows_train_on_the_threads_asked_for() -> None:
    from nesyworld.symbolic.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.from_world(training.SPEC)
    for threads in (1, 2):
        rows = training.recovery_settings(kb, 64, threads)
        assert [s.train.torch_threads for s in rows] == [threads] * 3
        assert [s.train.update_thread for s in rows] == [False, True, False]
        assert rows[1].train == replace(rows[0].train, update_thread=True)
        assert "copies on the batched core" in rows[0].name and "RecoveryEnvs" in rows[2].name
