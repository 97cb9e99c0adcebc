"""The recovery wall-time benchmark's bookkeeping, with the runs stubbed (a real run of the
same `run_one` is in test_adaptation_experiment.py)."""

from __future__ import annotations

import json

import pytest

from nesyworld.experiments.adaptation.run import AdaptationRunSpec
from nesyworld.experiments.benchmarks import adaptation_walltime


def test_settings_alternate_and_rows_keep_adapted_runs_apart(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    order: list[tuple[int, float | None]] = []

    def run_one(spec: AdaptationRunSpec) -> dict:
        order.append((spec.seed, spec.novelty_bias))
        assert spec.planner == "in-process" and spec.novelty == "fire"
        adapted = not (spec.novelty_bias == 0 and spec.seed == 1)
        return {"t_adapt": 1_000 * (spec.seed + 1) if adapted else None,
                "adaptation_seconds": 2.0 * (spec.seed + 1)}

    monkeypatch.setattr(adaptation_walltime, "run_one", run_one)
    monkeypatch.setattr(adaptation_walltime, "reference_seconds", lambda: 0.5)
    assert adaptation_walltime.main(["--novelties", "fire", "--seeds", "2", "--compare-bias",
                                   "0", "--json"]) == 0
    # each seed runs both settings, the first one flipping from seed to seed
    assert order == [(0, None), (0, 0.0), (1, 0.0), (1, None)]
    rows = {r["setting"]: r for r in json.loads(capsys.readouterr().out)}
    default = rows["rapidlearn+ in-process closed"]
    without = rows["rapidlearn+ bias0 in-process closed"]
    assert (default["runs"], default["adapted"], default["t_adapt_mean"]) == (2, 2, 1_500)
    assert default["seconds"] == "2.0-4.0" and default["ratio_median"] == 6.0
    # the run that did not adapt counts as a run, never in the means or times
    assert (without["runs"], without["adapted"], without["t_adapt_mean"]) == (2, 1, 1_000)
    assert without["seconds"] == "2.0-2.0"
