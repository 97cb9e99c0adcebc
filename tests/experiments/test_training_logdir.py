"""`--logdir DIR` on the commands that train: it reaches the trainer, whose runs then write
epochs.csv and TensorBoard events under DIR."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import build_parser, main

TRAINING_COMMANDS = {
    "run": ["pogostick", "--agent", "rapidlearn+"],
    "experiment": ["table2_light"],
    "continual": ["continual_planks"],
    "multiagent": ["coop_pogostick"],
    "matrix": ["x"],
    "generality": ["fire"],
}


@pytest.mark.parametrize("command", sorted(TRAINING_COMMANDS))
def test_every_training_command_takes_logdir(command: str) -> None:
    args = build_parser(command).parse_args([command, *TRAINING_COMMANDS[command],
                                             "--logdir", "some/dir"])
    assert args.logdir == "some/dir"


def test_logdir_reaches_the_trainer_from_the_cli(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from nesyworld.learning.training.logs import LOG_ROOT_ENV

    logdir = tmp_path / "logs"
    code = main(["multiagent", "coop_pogostick", "--steps", "200", "--rounds", "1",
                 "--episodes", "1", "--json", "--logdir", str(logdir)])
    assert code == 0
    capsys.readouterr()
    runs = sorted(logdir.glob("run-*"))
    assert len(runs) == 2  # one training phase per learner
    for run in runs:
        assert (run / "epochs.csv").read_text().startswith("epoch,steps,")
        assert list(run.glob("events.out.tfevents.*"))
        assert (run / "run.json").is_file()
    assert LOG_ROOT_ENV not in os.environ  # the root ends with the command


def test_logdir_on_an_agent_that_does_not_train_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["run", "pogostick", "--logdir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "--logdir: only a hybrid --agent trains" in err
    assert len(err.strip().splitlines()) == 1
