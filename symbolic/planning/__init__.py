"""Planning: unified-planning problems in numeric and classical form, and a registry
of planner engines with timeouts and a plan cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.symbolic.planning.planners import Planner, PlanResult, register_planner
    from nesyworld.symbolic.planning.problems import (
        FinishedProblem,
        classical_problem,
        numeric_problem,
    )

__getattr__, __all__ = lazy_exports(__name__, {
    "planners": ["Planner", "PlanResult", "register_planner"],
    "problems": ["FinishedProblem", "classical_problem", "numeric_problem"],
})
