"""Training logs: a CSV row and TensorBoard scalars per epoch, from a tiny training run."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from nesyworld.learning import ICMConfig, PPOConfig, train
from nesyworld.learning.training import EpochLog


def test_a_tiny_run_writes_csv_and_tensorboard_events(grid: SimpleNamespace,
                                                     tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    config = grid.fast_config(step_budget=600, epoch_length=200, stop_on_convergence=False,
                              logdir=str(logdir))
    result = train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), ICMConfig())
    rows = list(csv.DictReader((logdir / "epochs.csv").open()))
    assert [int(r["epoch"]) for r in rows] == [e.epoch for e in result.epochs] == [1, 2, 3]
    assert [int(r["steps"]) for r in rows] == [200, 400, 600]
    assert float(rows[-1]["success_rate"]) == result.epochs[-1].success_rate
    assert "loss_icm_loss" in rows[0] and rows[0]["loss_actor_loss"] != ""

    events = list(logdir.glob("events.out.tfevents.*"))
    assert len(events) == 1
    accumulator = EventAccumulator(str(logdir))
    accumulator.Reload()
    tags = set(accumulator.Tags()["scalars"])
    assert {"eval/success_rate", "eval/mean_reward", "train/success_rate",
            "speed/steps_per_second", "loss/actor_loss", "loss/icm_loss"} <= tags
    success = accumulator.Scalars("eval/success_rate")
    assert [s.step for s in success] == [200, 400, 600]
    assert [s.value for s in success] == [e.success_rate for e in result.epochs]


def test_a_continued_run_appends_to_the_same_csv(grid: SimpleNamespace,
                                                tmp_path: Path) -> None:
    config = grid.fast_config(step_budget=200, epoch_length=200, stop_on_convergence=False,
                              logdir=str(tmp_path))
    first = train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None)
    train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None,
          init=first.checkpoint())
    lines = (tmp_path / "epochs.csv").read_text().splitlines()
    assert len(lines) == 3 and lines[0].startswith("epoch,steps,")  # one header, two epochs


def test_epoch_log_without_tensorboard_writes_only_the_csv(tmp_path: Path) -> None:
    from nesyworld.learning.training.trainer import EpochRecord

    record = EpochRecord(epoch=1, steps=10, epoch_steps=10, success_rate=0.5, mean_reward=1.0,
                         mean_length=3.0, eval_episodes=2, eval_steps=6, train_episodes=1,
                         train_success_rate=0.0, train_mean_reward=0.0, steps_per_second=5.0,
                         wall_seconds=1.0, converged=False, losses={"loss": float("nan")})
    with EpochLog(tmp_path, tensorboard=False) as log:
        log.write(record)
    assert not list(tmp_path.glob("events.*"))
    assert (tmp_path / "epochs.csv").read_text().splitlines()[1].startswith("1,10,10,0.5,")


def test_under_a_log_root_each_run_gets_its_own_folder(grid: SimpleNamespace,
                                                      tmp_path: Path) -> None:
    """What `--logdir` sets: runs without their own logdir log to root/run-NNN, each with
    epochs.csv, tianshou TensorboardLogger events and a run.json; the root is unset after."""
    import json
    import os

    from nesyworld.learning.training.logs import LOG_ROOT_ENV, log_root

    config = grid.fast_config(step_budget=200, epoch_length=200, stop_on_convergence=False)
    with log_root(tmp_path / "root") as root:
        assert root is not None
        for _ in range(2):
            train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None)
    assert LOG_ROOT_ENV not in os.environ
    runs = sorted(p.name for p in (tmp_path / "root").iterdir())
    assert runs == ["run-001", "run-002"]
    for run in runs:
        folder = tmp_path / "root" / run
        assert (folder / "epochs.csv").read_text().count("\n") == 2
        assert len(list(folder.glob("events.out.tfevents.*"))) == 1
        meta = json.loads((folder / "run.json").read_text())
        assert meta["config"]["step_budget"] == 200 and meta["icm"] is None
    accumulator = EventAccumulator(str(tmp_path / "root" / "run-001"))
    accumulator.Reload()
    # tianshou's logger writes each scope's x axis beside its scalars
    assert {"eval/env_step", "eval/success_rate", "loss/actor_loss"} <= set(
        accumulator.Tags()["scalars"])
    assert train(grid.GridWorld, config, PPOConfig(hidden_sizes=(16,)), None)  # no root: no log
    assert len(list((tmp_path / "root").iterdir())) == 2
