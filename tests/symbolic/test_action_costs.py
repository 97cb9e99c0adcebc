"""PDDL's :action-costs idiom (symbolic/pddl/action_costs.py): `total-cost` read as action
costs only where every use is the idiom's, as unified-planning's own reader decides."""

from __future__ import annotations

import pytest
import unified_planning.model as upm

from nesyworld.symbolic.pddl.reader import read_pddl

DOMAIN = """(define (domain d) (:requirements :strips :action-costs)
  (:predicates (p) (q))
  (:functions (total-cost) - number)
  (:action a :parameters () :precondition (p)
     :effect (and (q) (increase (total-cost) {cost}))))"""
PROBLEM = """(define (problem x) (:domain d) (:init (p) {init}) (:goal (and (q) {goal}))
  (:metric minimize (total-cost)))"""


def metric(cost: str = "2", init: str = "(= (total-cost) 0)", goal: str = "") -> object:
    problem = read_pddl(DOMAIN.format(cost=cost),
                        PROBLEM.format(init=init, goal=goal))
    (quality,) = problem.quality_metrics
    return quality


def test_the_idiom_is_read_as_action_costs() -> None:
    quality = metric()
    assert isinstance(quality, upm.metrics.MinimizeActionCosts)
    assert str(next(iter(quality.costs.values()))) == "2"


@pytest.mark.parametrize(("change", "why"), [
    ({"init": "(= (total-cost) 5)"}, "a start other than 0"),
    ({"goal": "(<= (total-cost) 10)"}, "a goal reads it"),
    ({"cost": "(total-cost)"}, "an increase by itself"),
])
def test_any_other_use_keeps_it_a_numeric_fluent(change: dict[str, str], why: str) -> None:
    assert isinstance(metric(**change), upm.metrics.MinimizeExpressionOnFinalState), why
