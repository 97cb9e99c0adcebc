"""Multi-agent tasks: one learner per learning agent, trained in alternating rounds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.experiments.multiagent.run import MultiAgentTrainConfig, train_multiagent

__getattr__, __all__ = lazy_exports(__name__, {
    "run": ["MultiAgentTrainConfig", "train_multiagent"],
})
