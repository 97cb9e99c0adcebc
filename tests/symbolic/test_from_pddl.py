"""A derivation read from a PDDL domain (symbolic/derivation/from_pddl.py): the vocabulary,
and operators that count over a parameter made ground for the classical form."""

from __future__ import annotations

import pytest

from nesyworld.symbolic.derivation.from_pddl import derivation_from_pddl
from nesyworld.symbolic.pddl.errors import PDDLError
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import INVENTORY, WORLD, CountAtLeast, CountChange

DOMAIN = """(define (domain shelf)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents)
  (:types physobj - object  item - physobj  tool - item)
  (:constants air - physobj  apple pear - item  saw - tool)
  (:predicates (facing ?x - physobj) (holding ?x - physobj) (ripe ?x - physobj))
  (:functions (world ?x - physobj) (inventory ?x - physobj))
  (:action take
    :parameters (?x - item)
    :precondition (>= (world ?x) 1)
    :effect (and (decrease (world ?x) 1) (increase (inventory ?x) 1)))
  (:action wait :parameters () :precondition (facing air) :effect (ripe apple)))
"""


def test_the_vocabulary_is_the_domain_s() -> None:
    d = derivation_from_pddl(DOMAIN, "shelf.pddl", actions={"take": "grab_{?x}"})
    assert [t.name for t in d.types] == ["physobj", "item", "tool"]
    assert [o.name for o in d.objects] == ["air", "apple", "pear", "saw"]
    assert d.properties == ["ripe"]
    assert d.initial.names == ("air", "apple", "pear", "saw")
    assert d.initial.facing == d.initial.holding == 0


def test_a_count_over_a_parameter_is_ground_over_its_type_and_subtypes() -> None:
    d = derivation_from_pddl(DOMAIN, "shelf.pddl", actions={"take": "grab_{?x}"})
    takes = {op.name: op for op in d.operators if op.name.startswith("take")}
    assert set(takes) == {"take_apple", "take_pear", "take_saw"}  # saw is a tool, an item
    op = takes["take_pear"]
    assert op.params == () and op.action == "grab_pear"
    assert op.preconditions == (CountAtLeast(WORLD, "pear", 1),)
    assert CountChange(INVENTORY, "pear", 1) in op.effects


@pytest.mark.parametrize("planner", ["in-process", "fast-downward"])
def test_both_forms_plan_with_it(planner: str) -> None:
    d = derivation_from_pddl(DOMAIN, "shelf.pddl")
    names = d.initial.names
    z = type(d.initial)(names, 0, 0, (0, 1, 1, 0), (0, 0, 0, 0))
    result = Planner(planner).plan(d, z, {"pear": 1})
    assert result.ok and [s.operator for s in result.steps] == ["take_pear"]


def test_a_broken_domain_is_a_located_error() -> None:
    with pytest.raises(PDDLError, match=r"shelf\.pddl:2"):
        derivation_from_pddl(DOMAIN.replace("(:requirements", "(:requirements (", 1),
                             "shelf.pddl")
