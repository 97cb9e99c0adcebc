"""nesyworld.symbolic: the world's own planning model. The abstraction from states to facts,
the PDDL task derived from the registries, PDDL text in and out, planners, and the knowledge
base of operators (derived, edited or learned).

This layer imports the world and nothing above it (see docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
    from nesyworld.symbolic.derivation.derive import Derivation, DerivationError, derive
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.symbolic.pddl.errors import PDDLError
    from nesyworld.symbolic.pddl.reader import read_pddl
    from nesyworld.symbolic.pddl.writer import write_pddl
    from nesyworld.symbolic.planning.planners import Planner, PlanResult

__getattr__, __all__ = lazy_exports(__name__, {
    "derivation.abstraction": ["SymbolicState", "abstract"],
    "derivation.derive": ["Derivation", "DerivationError", "derive"],
    "knowledge_base": ["KnowledgeBase"],
    "pddl.reader": ["read_pddl"],
    "pddl.errors": ["PDDLError"],
    "pddl.writer": ["write_pddl"],
    "planning.planners": ["Planner", "PlanResult"],
})
