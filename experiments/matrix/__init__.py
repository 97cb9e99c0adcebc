"""Novelty x scenario matrices (after NovPhy): config, run, report.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.experiments.matrix.config import MatrixConfig, load_matrix
    from nesyworld.experiments.matrix.run import run_matrix

_EXPORTS = {
    "MatrixConfig": "config",
    "load_matrix": "config",
    "run_matrix": "run",
}
__all__ = [
    "MatrixConfig", "load_matrix", "run_matrix",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
