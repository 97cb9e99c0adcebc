"""From the world's registries to a planning task: the state abstraction, the derived
types, objects and operators, operator schemas as data, and the domain-simulator check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
    from nesyworld.symbolic.derivation.derive import Derivation, DerivationError, derive
    from nesyworld.symbolic.derivation.domain_check import check_domain

__getattr__, __all__ = lazy_exports(__name__, {
    "abstraction": ["SymbolicState", "abstract"],
    "derive": ["Derivation", "DerivationError", "derive"],
    "domain_check": ["check_domain"],
})
