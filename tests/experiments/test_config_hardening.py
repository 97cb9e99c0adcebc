"""Study configs wrong in type, range or shape: each refused by its loader as one located
SpecError line, before anything runs or allocates (issue 22)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nesyworld.experiments.config_files import config_kind
from nesyworld.experiments.config_reading import MAX_SEEDS
from nesyworld.experiments.continual.config import load_continual
from nesyworld.experiments.matrix.config import load_matrix
from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.world.errors import SpecError

EXPERIMENT = "domain: pogostick\nagents: [planning]\nnovelties: [axe]\nseeds: 2\n"
MATRIX = "scenarios: [pogostick]\nnovelties: [axe]\nagents: [planning]\nseeds: 1\n"
CONTINUAL = "tasks: [continual_log]\nseeds: 1\n"


def refused(load: Callable[[Path], object], text: str, tmp_path: Path) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:"), message
    return message


@pytest.mark.parametrize(("text", "words"), [
    (EXPERIMENT.replace("seeds: 2", "seeds: 2147483648"), "out of range"),
    (EXPERIMENT.replace("seeds: 2", f"seeds: {MAX_SEEDS + 1}"), "out of range"),
    (EXPERIMENT.replace("seeds: 2", "seeds: [1, -1]"), "out of range"),
    (EXPERIMENT.replace("seeds: 2", "seeds: [99999999999]"), "out of range"),
    (EXPERIMENT.replace("seeds: 2", "seeds: [1, 1]"), "listed twice"),
    (EXPERIMENT + "workers: 0\n", "out of range"),
    (EXPERIMENT + "workers: 100000\n", "out of range"),
    (EXPERIMENT + "workers: two\n", "an integer"),
    (EXPERIMENT + "protocol: {eval_episodes: 2147483647}\n", "out of range"),
    (EXPERIMENT + "protocol: {reward_threshold: .inf}\n", "finite"),
    (EXPERIMENT + "protocol: {pretrained: 'x/{agent}_{run}.pt'}\n", "unknown template field"),
    (EXPERIMENT + "protocol: {pretrained: 'x/{agent'}\n", "invalid file name template"),
    (EXPERIMENT + "protocol: {pretrained: 'x/{seed:q}'}\n", "invalid file name template"),
    (EXPERIMENT + "protocol: {speed: 1}\n", "unknown key"),
    (EXPERIMENT + "protocol: {pre_stop_reward: 900}\n", "pre_full_budget: false beside it"),
    (EXPERIMENT + "protocol: {pre_stop_reward: .nan, pre_full_budget: false}\n", "finite"),
    (EXPERIMENT + "protocol: {pre_stop_epochs: 0}\n", "out of range"),
    (EXPERIMENT + "name: \"a\\nb\"\n", "invalid name"),
    (EXPERIMENT.replace("[axe]", "[" + ", ".join(f"n{i}" for i in range(1001)) + "]"),
     "too many"),
    (EXPERIMENT.replace("[axe]", "['" + "x" * 5000 + "']"), "invalid name"),
    (EXPERIMENT.replace("pogostick", '"a\\0b"'), "invalid name"),
    (EXPERIMENT + "colour: red\n", "expected one of agents, backend"),
])
def test_experiment_fields(text: str, words: str, tmp_path: Path) -> None:
    assert words in refused(load_experiment, text, tmp_path)


@pytest.mark.parametrize(("text", "words"), [
    (MATRIX + "episodes: 0\n", "out of range"),
    (MATRIX + "episodes: 9999999999\n", "out of range"),
    (MATRIX.replace("[pogostick]", "['" + "y" * 3000 + "']"), "invalid name"),
    (MATRIX.replace("seeds: 1", "seeds: [[1]]"), "an integer"),
])
def test_matrix_fields(text: str, words: str, tmp_path: Path) -> None:
    assert words in refused(load_matrix, text, tmp_path)


@pytest.mark.parametrize(("text", "words"), [
    (CONTINUAL + "budget: -1\n", "out of range"),
    (CONTINUAL + "eval_episodes: 99999999\n", "out of range"),
    (CONTINUAL + "train: {num_envs: 100000}\n", "out of range"),
    (CONTINUAL + "train: {collect_chunk: 2147483647}\n", "out of range"),
    (CONTINUAL + "train: {lr: 1000}\n", "out of range"),
    (CONTINUAL.replace("[continual_log]", "[" + ", ".join(["continual_log"] * 65) + "]"),
     "too many tasks"),
    (CONTINUAL.replace("[continual_log]", "[{spec: continual_log, budget: 1.5}]"),
     "an integer"),
    (CONTINUAL.replace("[continual_log]", "['" + "z" * 5000 + ".yaml']"), "invalid name"),
])
def test_continual_fields(text: str, words: str, tmp_path: Path) -> None:
    assert words in refused(load_continual, text, tmp_path)


@pytest.mark.parametrize("load", [load_experiment, load_matrix, load_continual])
@pytest.mark.parametrize("source", ["q" * 5000, "a\x00b", "no/such/dir/c.yaml"])
def test_sources_the_file_system_refuses_are_spec_errors(load: Callable[[str], object],
                                                         source: str) -> None:
    with pytest.raises(SpecError):
        load(source)


def test_config_kind_of_an_unreadable_file_is_left_to_the_loader(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"# \xff\xfe\nscenarios: [a]\n")
    assert config_kind(path) == "matrix"
    assert config_kind(tmp_path / "missing.yaml") == "experiment"


def test_the_shipped_configs_still_load() -> None:
    assert load_experiment("table2").protocol.pretrained.endswith("{agent}_{seed}.pt")
    assert load_matrix("matrix").episodes == 2
