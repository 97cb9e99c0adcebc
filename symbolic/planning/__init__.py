"""Planning: unified-planning problems in numeric and classical form, and a registry
of planner engines with timeouts and a plan cache.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.symbolic.planning.planners import Planner, PlanResult, register_planner
    from nesyworld.symbolic.planning.problems import classical_problem, numeric_problem

_EXPORTS = {
    "Planner": "planners",
    "PlanResult": "planners",
    "register_planner": "planners",
    "classical_problem": "problems",
    "numeric_problem": "problems",
}
__all__ = [
    "PlanResult", "Planner", "classical_problem", "numeric_problem", "register_planner",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
