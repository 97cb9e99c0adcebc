"""nesyworld.symbolic: the world's own planning model. The abstraction from states to facts,
the PDDL task derived from the registries, PDDL text in and out, planners, and the knowledge
base of operators (derived, edited or learned).

This layer imports the world and nothing above it (see docs/ARCHITECTURE.md).

The names below load on first use, so that importing this package stays cheap and its
subpackages can import each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
    from nesyworld.symbolic.derivation.derive import Derivation, DerivationError, derive
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.symbolic.pddl.reader import read_pddl
    from nesyworld.symbolic.pddl.semantics import PDDLError
    from nesyworld.symbolic.pddl.writer import write_pddl
    from nesyworld.symbolic.planning.planners import Planner, PlanResult

_EXPORTS = {
    "SymbolicState": "nesyworld.symbolic.derivation.abstraction",
    "abstract": "nesyworld.symbolic.derivation.abstraction",
    "Derivation": "nesyworld.symbolic.derivation.derive",
    "DerivationError": "nesyworld.symbolic.derivation.derive",
    "derive": "nesyworld.symbolic.derivation.derive",
    "KnowledgeBase": "nesyworld.symbolic.knowledge_base",
    "read_pddl": "nesyworld.symbolic.pddl.reader",
    "PDDLError": "nesyworld.symbolic.pddl.semantics",
    "write_pddl": "nesyworld.symbolic.pddl.writer",
    "PlanResult": "nesyworld.symbolic.planning.planners",
    "Planner": "nesyworld.symbolic.planning.planners",
}
__all__ = [
    "Derivation", "DerivationError", "KnowledgeBase", "PDDLError", "PlanResult", "Planner",
    "SymbolicState", "abstract", "derive", "read_pddl", "write_pddl",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
