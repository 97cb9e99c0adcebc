"""Continual task sequences: config, run, forgetting and transfer metrics, report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.experiments.continual.config import ContinualConfig, load_continual
    from nesyworld.experiments.continual.run import run_continual

__getattr__, __all__ = lazy_exports(__name__, {
    "config": ["ContinualConfig", "load_continual"],
    "run": ["run_continual"],
})
