"""When the knowledge base has no plan at all: find what it can no longer get, and make that
the failure to learn from.

No operator failed, so there is no failure state to learn an operator from. Instead: chain
back from the goal's items through the operators that produce them and the items those
consume, ask the planner which of these items can still be obtained from here, and take
the deepest that cannot (every item its producers need can still be had, or they need
none): the knowledge base's way to get it is what the novelty broke. Learning a way to
obtain one of it (a bridge to a state from which the knowledge base plans) is then the same
recovery as for a failed operator, with a target of "one more of that item".
"""

from __future__ import annotations

from collections.abc import Mapping

from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import count_thresholds
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import Snapshot
from nesyworld.world.actions.schema import INVENTORY, CountAtLeast, CountChange, OperatorSchema

OBTAIN = "obtain_{item}"


def item_chain(kb: KnowledgeBase, goal: Mapping[str, int]) -> dict[str, int]:
    """Items the goal depends on through the active operators, with their depth (goal items
    0; an item a producer of a depth-d item consumes or requires: d + 1)."""
    producers: dict[str, list[OperatorSchema]] = {}
    for op in kb.active:
        for e in op.effects:
            if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta > 0:
                producers.setdefault(e.arg, []).append(op)
    depth = {item: 0 for item in goal}
    frontier = list(goal)
    while frontier:
        item = frontier.pop(0)
        for op in producers.get(item, []):
            for c in op.preconditions:
                if isinstance(c, CountAtLeast) and c.fluent == INVENTORY and (
                        not c.arg.startswith("?")) and c.arg not in depth:
                    depth[c.arg] = depth[item] + 1
                    frontier.append(c.arg)
    return depth


def missing_item(kb: KnowledgeBase, planner: Planner, state: SymbolicState,
                 goal: Mapping[str, int] | None = None) -> str | None:
    """The deepest item of the goal's chain (`goal`, or the knowledge base's) that the
    knowledge base cannot obtain from `state` (None when every one can, or the planner
    cannot tell)."""
    d = kb.derivation()
    goal = dict(goal if goal is not None else d.goal)
    chain = item_chain(kb, goal)
    needed = {item: n for (fluent, item), n in count_thresholds(d.operators).items()
              if fluent == INVENTORY}
    needed |= goal
    missing = []
    for item, depth in sorted(chain.items(), key=lambda kv: -kv[1]):
        # as many as some operator or the goal asks for: a tool already held is not missing
        if item not in state.names or state.count(INVENTORY, item) >= needed.get(item, 1):
            continue
        verdict = planner.plannable(d, state, {item: needed.get(item, 1)})
        if verdict is None:
            return None
        if verdict is False:
            missing.append((depth, item))
    return max(missing)[1] if missing else None


def gap_failure(item: str, snapshot: Snapshot, state: SymbolicState, step: int
                ) -> OperatorFailure:
    """A failure of the (absent) operator that would obtain one `item`: recovery learns it."""
    name = OBTAIN.format(item=item)
    op = OperatorSchema(name, (), (), (CountChange(INVENTORY, item, 1),), "nop",
                        f"no operator of the knowledge base can obtain {item} from here")
    return OperatorFailure(GroundOperator(op), "precondition",
                           f"no plan: the knowledge base cannot obtain {item} from here", [],
                           [], snapshot, (), step, state, state)
