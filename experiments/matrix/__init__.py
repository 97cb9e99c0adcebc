"""Novelty x scenario matrices (after NovPhy): config, run, report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.experiments.matrix.config import MatrixConfig, load_matrix
    from nesyworld.experiments.matrix.run import run_matrix

__getattr__, __all__ = lazy_exports(__name__, {
    "config": ["MatrixConfig", "load_matrix"],
    "run": ["run_matrix"],
})
