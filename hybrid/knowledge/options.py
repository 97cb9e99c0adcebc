"""The knowledge regimes and refusal modes by name, importable without the rest of the
hybrid layer (the CLI's parser lists them and must start fast)."""

from __future__ import annotations

from typing import Literal

Knowledge = Literal["closed", "oracle"]
KNOWLEDGE_REGIMES: tuple[Knowledge, ...] = ("closed", "oracle")
DEFAULT_KNOWLEDGE: Knowledge = "closed"

REFUSAL_MODES: tuple[str, ...] = ("explained", "silent")
"""The env's `refusals` option (world/envs/gym_env.py): whether a refused step says why."""
