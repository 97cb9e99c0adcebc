"""From the world's registries to a planning task: the state abstraction, the derived
types, objects and operators, operator schemas as data, and the domain-simulator check.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
    from nesyworld.symbolic.derivation.derive import Derivation, DerivationError, derive
    from nesyworld.symbolic.derivation.domain_check import check_domain

_EXPORTS = {
    "SymbolicState": "abstraction",
    "abstract": "abstraction",
    "Derivation": "derive",
    "DerivationError": "derive",
    "derive": "derive",
    "check_domain": "domain_check",
}
__all__ = [
    "Derivation", "DerivationError", "SymbolicState", "abstract", "check_domain", "derive",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
