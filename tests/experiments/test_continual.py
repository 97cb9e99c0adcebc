"""Continual task sequences: the metrics on hand-made matrices, the config's located errors,
and a tiny end-to-end run through the CLI (matrix, report files, resume)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.continual.config import load_continual, shipped_continual_configs
from nesyworld.experiments.continual.metrics import (
    backward_transfer,
    continual_metrics,
    forgetting_per_task,
)
from nesyworld.experiments.continual.run import read_progress
from nesyworld.world.errors import SpecError

# --- metrics ---------------------------------------------------------------------------------

RATES = st.integers(0, 10).map(lambda k: k / 10)


@st.composite
def matrices(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(2, 5))
    return np.array(draw(st.lists(st.lists(RATES, min_size=n, max_size=n), min_size=n,
                                  max_size=n)))


def test_metrics_of_a_hand_made_matrix() -> None:
    r = [[0.9, 0.1, 0.0],   # after task 0
         [0.5, 0.8, 0.2],   # after task 1: task 0 dropped from 0.9 to 0.5
         [0.3, 0.8, 1.0]]   # after task 2: task 0 at 0.3 (best 0.9), task 1 kept 0.8
    m = continual_metrics(r, initial=[0.0, 0.1, 0.0])
    assert m.forgetting_per_task == pytest.approx((0.6, 0.0))
    assert m.forgetting == pytest.approx(0.3)
    assert m.average_final == pytest.approx(0.7)
    assert m.backward_transfer == pytest.approx(((0.3 - 0.9) + (0.8 - 0.8)) / 2)
    assert m.forward_transfer == pytest.approx(((0.1 - 0.1) + (0.2 - 0.0)) / 2)


def test_one_task_has_nothing_to_forget() -> None:
    m = continual_metrics([[0.7]])
    assert m.average_final == pytest.approx(0.7)
    assert math.isnan(m.forgetting) and math.isnan(m.backward_transfer)
    with pytest.raises(ValueError, match="square"):
        continual_metrics([[0.1, 0.2]])


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_forgetting_is_never_negative_and_zero_when_nothing_dropped(r: np.ndarray) -> None:
    f = forgetting_per_task(r)
    assert (f >= 0).all() and f.shape == (len(r) - 1,)
    # running max down each column: every task ends at its best, so nothing was forgotten
    kept = np.maximum.accumulate(r, axis=0)
    assert (forgetting_per_task(kept) == 0).all()
    assert backward_transfer(kept) >= 0


@settings(max_examples=60, deadline=None)
@given(matrices(), st.data())
def test_a_drop_on_a_task_shows_as_its_forgetting(r: np.ndarray, data: st.DataObject) -> None:
    j = data.draw(st.integers(0, len(r) - 2))
    r = r.copy()
    r[j, j] = 1.0          # learned task j fully...
    r[-1, j] = 0.0         # ...and lost it by the end
    f = forgetting_per_task(r)
    assert f[j] == pytest.approx(1.0)
    assert continual_metrics(r).forgetting >= 1.0 / (len(r) - 1) - 1e-9
    assert backward_transfer(r) < 0 or len(r) > 2


# --- config ----------------------------------------------------------------------------------

GOOD = """name: tiny
tasks: [continual_log, continual_diamond]
budget: 40
eval_episodes: 1
seeds: 1
train: {num_envs: 2, epoch_length: 40, collect_chunk: 20}
"""


def test_shipped_config_loads() -> None:
    assert "continual" in shipped_continual_configs()
    config = load_continual("continual")
    assert [t.name for t in config.tasks] == ["continual_log", "continual_diamond",
                                             "continual_planks"]
    assert config.agent == "rl" and all(t.budget > 0 for t in config.tasks)


def test_task_entries_override_budget_and_name(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("continual_diamond",
                                 "{spec: continual_log, name: again, budget: 0}"))
    config = load_continual(path)
    assert [(t.name, t.spec, t.budget) for t in config.tasks] == [
        ("continual_log", "continual_log", 40), ("again", "continual_log", 0)]


@pytest.mark.parametrize(("text", "where", "expected"), [
    (GOOD.replace("continual_diamond", "nowhere"), "2:24",
     "unknown task 'nowhere' (at 'tasks.1')"),
    (GOOD.replace("budget: 40", "budget: -5"), "3:9", "value out of range (at 'budget')"),
    (GOOD.replace("continual_diamond]", "{spec: continual_diamond, budget: -1}]"), "2:58",
     "(at 'tasks.1.budget')"),
    (GOOD.replace("[continual_log, continual_diamond]", "[]"), "2:8", "empty task sequence"),
    (GOOD.replace("tasks: [continual_log, continual_diamond]\n", ""), "1:1",
     "missing key 'tasks'"),
    (GOOD.replace("continual_diamond", "sandwich"), "2:24",
     "task 'sandwich' has other observation or action spaces than task 'continual_log'"),
    (GOOD.replace("continual_diamond", "continual_log"), "2:24", "listed twice"),
    (GOOD + "agent: dqn\n", "7:8", "unknown agent 'dqn'"),
    (GOOD.replace("collect_chunk: 20", "collect_chunk: 20, gamma: 1"), "6:59",
     "unknown key 'gamma'"),
    (GOOD.replace("eval_episodes: 1", "eval_episodes: 0"), "4:16",
     "value out of range (at 'eval_episodes')"),
])
def test_config_errors_say_where_and_what(tmp_path: Path, text: str, where: str,
                                         expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_continual(path)
    assert str(err.value).startswith(f"{path}:{where}: "), str(err.value)
    assert expected in str(err.value), str(err.value)


# --- end to end ------------------------------------------------------------------------------

def test_tiny_sequence_end_to_end_and_resume(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(GOOD)
    out = tmp_path / "out"
    assert main(["continual", str(path), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    matrix = np.array(summary["seeds"]["0"]["matrix"])
    assert matrix.shape == (2, 2) and ((matrix >= 0) & (matrix <= 1)).all()
    assert summary["tasks"] == ["continual_log", "continual_diamond"]
    assert summary["seeds"]["0"]["env_steps"] == [40, 40]
    expected = continual_metrics(matrix, summary["seeds"]["0"]["initial"])
    assert summary["metrics"]["forgetting"]["mean"] == pytest.approx(expected.forgetting)
    assert (out / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((out / "continual.json").read_text())["mean_matrix"] == matrix.tolist()
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "seed0_stage0.pt", "seed0_stage1.pt"]

    # a rerun finds every stage done: nothing retrained, the same numbers, a rich table
    config = load_continual(path)
    assert len(read_progress(out, config)) == 3
    assert main(["continual", str(path), "--out", str(out)]) == 0
    assert len(read_progress(out, config)) == 3
    shown = capsys.readouterr().out
    assert "after training on" in shown and "forgetting" in shown

    # another config's directory is refused, not mixed in
    path.write_text(GOOD.replace("eval_episodes: 1", "eval_episodes: 2"))
    assert main(["continual", str(path), "--out", str(out)]) == 2
    assert "another continual config" in capsys.readouterr().err


def test_a_stopped_run_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    """Drop the last stage from the progress file: the rerun redoes only that stage, from
    the checkpoint of the stage before."""
    from nesyworld.experiments.continual.run import run_continual

    path = tmp_path / "tiny.yaml"
    path.write_text(GOOD.replace("budget: 40", "budget: 0"))  # evaluation only: fast
    config = load_continual(path)
    out = tmp_path / "out"
    first = run_continual(config, out)
    lines = (out / "progress.jsonl").read_text().splitlines()
    # the last row cut off mid-write, as a kill would leave it
    (out / "progress.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:30])
    seen: list[int] = []
    again = run_continual(config, out, progress=lambda rec: seen.append(rec.stage))
    assert seen == [1]
    assert [r.success for r in again] == [r.success for r in first]
    assert [(r.stage, r.success) for r in read_progress(out, config)] == [
        (r.stage, r.success) for r in first]


def test_unknown_config_name_says_what_exists() -> None:
    with pytest.raises(SpecError, match=r"shipped continual configs \(continual"):
        load_continual("nope")


def test_stages_train_on_their_own_maps_with_the_chosen_agent(tmp_path: Path) -> None:
    from nesyworld.experiments.continual.run import rl_config

    path = tmp_path / "icm.yaml"
    path.write_text(GOOD + "agent: rl+icm\n")
    config = load_continual(path)
    first, second = (rl_config(config, task, 0, i) for i, task in enumerate(config.tasks))
    assert first.icm is not None and first.train.step_budget == 40
    assert first.train.env_seed != second.train.env_seed  # each stage its own maps
    assert first.train.seed == second.train.seed == 0  # one learner seed: the run seed
    assert not first.train.stop_on_convergence  # a fixed budget per task
