"""The hybrid agents' names, importable without the learner (the CLI's parser lists them)."""

from __future__ import annotations

HYBRID_AGENTS = ("repair+rapidlearn+", "repair+rapidlearn", "rapidlearn+", "rapidlearn")
"""`rapidlearn` (PPO) and `rapidlearn+` (PPO+ICM) learn an operator for every failure, as the
paper's agents do; the `repair+` ones repair the model first (hybrid/repair/) and learn only
when no repair verifies."""
