"""The NovelGym evaluation protocol: experiment configs, one run through its phases,
the metrics, the sweep runner (process pool or Ray), reports and the paper's table 2.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.experiments.protocol.config import ExperimentConfig, load_experiment
    from nesyworld.experiments.protocol.sweep import run_experiment

_EXPORTS = {
    "ExperimentConfig": "config",
    "load_experiment": "config",
    "run_experiment": "sweep",
}
__all__ = [
    "ExperimentConfig", "load_experiment", "run_experiment",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
