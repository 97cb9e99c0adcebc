"""PDDL text: a lark reader with file:line:column errors, the semantics that turn its
parse trees into unified-planning objects, and a deterministic writer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.symbolic.pddl.errors import PDDLError
    from nesyworld.symbolic.pddl.limits import load_pddl_text, text_from_bytes
    from nesyworld.symbolic.pddl.reader import read_domain, read_pddl, read_plan, read_problem
    from nesyworld.symbolic.pddl.writer import write_pddl

__getattr__, __all__ = lazy_exports(__name__, {
    "reader": ["read_domain", "read_pddl", "read_plan", "read_problem"],
    "errors": ["PDDLError"],
    "limits": ["load_pddl_text", "text_from_bytes"],
    "writer": ["write_pddl"],
})
