"""PDDL text: a lark reader with file:line:column errors, the semantics that turn its
parse trees into unified-planning objects, and a deterministic writer.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.symbolic.pddl.reader import read_domain, read_pddl, read_plan, read_problem
    from nesyworld.symbolic.pddl.semantics import PDDLError
    from nesyworld.symbolic.pddl.writer import write_pddl

_EXPORTS = {
    "read_domain": "reader",
    "read_pddl": "reader",
    "read_plan": "reader",
    "read_problem": "reader",
    "PDDLError": "semantics",
    "write_pddl": "writer",
}
__all__ = [
    "PDDLError", "read_domain", "read_pddl", "read_plan", "read_problem", "write_pddl",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
