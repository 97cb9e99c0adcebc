"""PDDL's :action-costs idiom: `total-cost`, increased by actions and minimised.

unified-planning reads a domain that uses `total-cost` only this way as action costs
(`MinimizeActionCosts`) rather than as a numeric fluent, and so must our reader
(symbolic/pddl/semantics.py), or the two readers' problems would not compare equal and a
classical planner would be refused a numeric problem.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction

from lark import Tree

from nesyworld.symbolic.pddl.declarations import Domain

__all__ = ["TOTAL_COST", "count_total_cost", "is_total_cost", "top_level_cost_increases",
           "uses_action_costs"]

TOTAL_COST = "total-cost"


def uses_action_costs(domain: Domain, sections: Mapping[str, list[Tree]]) -> bool:
    """Whether ``total-cost`` is used only as PDDL's :action-costs idiom.

    Same conditions as UP's reader, checked on the trees before anything is built: a 0-ary
    function ``total-cost``, only ever increased unconditionally at the top of effects, set
    to 0 (or not at all) in :init, absent from goals, and the metric minimizes it.
    """
    sig = domain.fluents.get(TOTAL_COST)
    metrics = sections.get("metric_def", [])
    if sig is None or not sig.numeric or sig.params or len(metrics) != 1:
        return False
    optimization, target = metrics[0].children
    if str(optimization.children[0]).lower() != "minimize" or not is_total_cost(target):
        return False
    for action in domain.actions:
        allowed = sum(
            1
            for part in action.children[1:]
            if part.data == "effect_def"
            for _ in top_level_cost_increases(part.children[0])
        )
        if count_total_cost(action) != allowed:
            return False
    for goal in sections.get("goal_def", []):
        if count_total_cost(goal):
            return False
    for init in sections.get("init_def", []):
        for item in init.find_data("numeric_init"):
            if is_total_cost(item.children[1]):
                value = item.children[2]
                if value.data != "number" or Fraction(str(value.children[0])) != 0:
                    return False
    return True


def is_total_cost(node: Tree) -> bool:
    """``(total-cost)`` or a bare ``total-cost`` in a numeric position."""
    kids = node.children
    return node.data in ("fluent_term", "bare_name") and len(kids) == 1 and kids[0] == TOTAL_COST


def count_total_cost(tree: Tree) -> int:
    return sum(
        1
        for node in tree.iter_subtrees()
        if node.data in ("fluent_term", "bare_name") and node.children[0] == TOTAL_COST
    )


def top_level_cost_increases(node: Tree) -> Iterator[Tree]:
    """The unconditional ``(increase (total-cost) v)`` effects where v leaves total-cost alone."""
    if node.data == "and_effect":
        for kid in node.children:
            yield from top_level_cost_increases(kid)
    elif node.data == "numeric_effect":
        op, target, value = node.children
        increase = str(op.children[0]).lower() == "increase"
        if increase and is_total_cost(target) and not count_total_cost(value):
            yield node
