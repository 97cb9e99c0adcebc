"""The lifelong protocol: agents in a world that never resets, reward rate per window.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.experiments.lifelong.run import load_lifelong, run_lifelong

_EXPORTS = {
    "load_lifelong": "run",
    "run_lifelong": "run",
}
__all__ = [
    "load_lifelong", "run_lifelong",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
