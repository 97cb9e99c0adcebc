"""pyperplan, the teaching planner: solves hand-written STRIPS, declines what it cannot do."""

from __future__ import annotations

from pathlib import Path

from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.pddl.reader import read_pddl
from nesyworld.symbolic.planning.planners import PLANNERS, Planner

DATA = Path(__file__).parent / "data"


def test_pyperplan_solves_a_strips_domain() -> None:
    problem = read_pddl((DATA / "blocksworld_domain.pddl").read_text(),
                        (DATA / "blocksworld_problem.pddl").read_text())
    result = Planner("pyperplan").solve(problem)
    assert "pyperplan" in PLANNERS and result.ok and len(result) > 0


def test_pyperplan_is_unknown_not_unsolvable_on_conditional_effects() -> None:
    result = Planner("pyperplan").plan(derive("pogostick"))
    assert result.status == "unknown" and result.message
