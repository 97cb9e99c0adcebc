"""The NovelGym evaluation protocol: experiment configs, one run through its phases,
the metrics, the sweep runner (process pool or Ray), reports and the paper's table 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.experiments.protocol.config import ExperimentConfig, load_experiment
    from nesyworld.experiments.protocol.sweep import run_experiment

__getattr__, __all__ = lazy_exports(__name__, {
    "config": ["ExperimentConfig", "load_experiment"],
    "sweep": ["run_experiment"],
})
