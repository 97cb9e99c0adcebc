"""The planning benchmark's comparison of an engine call on a plain Problem and on a
FinishedProblem: both calls really plan, in the engine's own form."""

from __future__ import annotations

from typing import Any

import pytest
from unified_planning.model import Problem

from nesyworld.experiments.benchmarks import planning
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.planning.planners import PLANNERS
from nesyworld.symbolic.planning.problems import FinishedProblem


def test_kind_once_times_alternates_plain_and_finished_calls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[type, Any]] = []
    oneshot = planning.engine_call

    def spy(info: Any, problem: Any) -> tuple[Any, float]:
        result, seconds = oneshot(info, problem)
        seen.append((type(problem), result.status.name))
        return result, seconds

    monkeypatch.setattr(planning, "engine_call", spy)
    plain, finished = planning.kind_once_times(PLANNERS["fast-downward"],
                                               derive("pogostick", seed=0), 1)
    assert plain > 0 and finished > 0
    # Fast Downward's classical form, plain then finished, three times; every call planned
    assert [t for t, _ in seen] == [Problem, FinishedProblem] * 3
    assert {status for _, status in seen} <= {"SOLVED_OPTIMALLY", "SOLVED_SATISFICING"}
