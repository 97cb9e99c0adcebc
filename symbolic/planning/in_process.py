"""The in-process engine's side of `Planner`: ground a derived task once, search it many times.

A derived task is the same ground task for every state of one domain, except for the ladder
caps (counts above what the recipes need widen a ladder: symbolic/planning/problems.py) and
the objects: a state may name things the derivation's registry does not (a type perceived
since a novelty, such as a fence), and the problem gets an object, hence ground actions, for
each. So tasks are kept by (domain, caps, objects), and a later question only writes its
state and goal as atoms of that task, without building a unified-planning problem (about
25 ms on the pogostick task, more than the search). A task ground without an object the state
names would drop that object's facts as irrelevant (facing(fence), say) and could call a
solvable task unsolvable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from unified_planning.model import Problem

from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.planning.compiled_task import MAX_NODES, CompiledTask
from nesyworld.symbolic.planning.problems import classical_atoms, classical_problem, count_caps
from nesyworld.symbolic.planning.strips import StripsTask, ground

Steps = list[tuple[str, tuple[str, ...]]]


def _steps(task: StripsTask, plan: list[int]) -> Steps:
    return [(task.actions[k].name, task.actions[k].args) for k in plan]


def solve_problem(problem: Problem, max_nodes: int = MAX_NODES) -> Steps | None:
    """Ground and search any classical problem (one read from PDDL, say); None: no plan."""
    task = ground(problem)
    plan = CompiledTask(task, max_nodes=max_nodes).solve(task.init, task.goal)
    return None if plan is None else _steps(task, plan)


def vocabulary(d: Derivation) -> tuple[object, ...]:
    """What the grounding depends on besides the operators and the caps: the types, the
    properties and the objects, including the names the state adds to the registry's
    (`_base` in symbolic/planning/problems.py makes each an object of the root type)."""
    registered = {o.name for o in d.objects}
    extra = tuple(sorted({n for n in d.initial.names if n not in registered}))
    return tuple(d.types), tuple(d.objects), tuple(d.properties), extra


@dataclass
class GroundTasks:
    """Loaded searches by (domain key, ladder caps); `ground_calls` counts the cold ones."""

    max_nodes: int = MAX_NODES
    searches: dict[tuple[object, ...], CompiledTask] = field(default_factory=dict)
    ground_calls: int = 0

    def solve(self, d: Derivation) -> Steps | None:
        """Plan `d`'s task from its initial state to its goal; None: provably no plan."""
        caps = count_caps(d)
        key = (d.domain_key(), tuple(sorted(caps.items())), vocabulary(d))
        search = self.searches.get(key)
        if search is None:
            search = CompiledTask(ground(classical_problem(d, caps=caps)), max_nodes=self.max_nodes)
            self.searches[key] = search
            self.ground_calls += 1
        state = search.task.state(*classical_atoms(d, caps))
        if state is None:
            return None
        plan = search.solve(*state)
        return None if plan is None else _steps(search.task, plan)

    def close(self) -> None:
        self.searches.clear()
