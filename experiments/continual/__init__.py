"""Continual task sequences: config, run, forgetting and transfer metrics, report.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.experiments.continual.config import ContinualConfig, load_continual
    from nesyworld.experiments.continual.run import run_continual

_EXPORTS = {
    "ContinualConfig": "config",
    "load_continual": "config",
    "run_continual": "run",
}
__all__ = [
    "ContinualConfig", "load_continual", "run_continual",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
