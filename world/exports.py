"""Lazy re-exports for package ``__init__`` files.

A subpackage re-exports its public names (so users write ``from nesyworld.hybrid import
HybridAgent``), but loading them all on import would make ``import nesyworld.world.spec`` pull
in the simulator and its compiled kernels, and would let sibling subpackages that import each
other form import cycles through their ``__init__`` files. So each name loads on first use
(PEP 562), and a ``TYPE_CHECKING`` import beside the call keeps it visible to type checkers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any


def lazy_exports(package: str, modules: Mapping[str, Sequence[str]]
                 ) -> tuple[Callable[[str], Any], list[str]]:
    """``(__getattr__, __all__)`` for `package`, whose names are listed by module: a module
    path relative to the package (``"recover"``) or absolute (``"nesyworld.world.errors"``)."""
    where = {name: module if module.startswith("nesyworld.") else f"{package}.{module}"
             for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(where[name]), name)

    return __getattr__, sorted(where)
