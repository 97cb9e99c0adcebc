"""The protocol every nesyworld agent follows, in its own module so that a reader (and an
adapter author) finds it without reading an agent: reset at an episode's start, act on each
observation, observe the outcome, learn, save and load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["Agent"]


@runtime_checkable
class Agent(Protocol):
    """What every nesyworld agent does. `learn` returns training statistics (or {})."""

    name: str

    def reset(self, observation: Any, info: dict[str, Any]) -> None: ...

    def act(self, observation: Any, info: dict[str, Any]) -> int: ...

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: dict[str, Any]) -> None: ...

    def learn(self) -> dict[str, float]: ...

    def save(self, path: str | Path) -> None: ...

    def load(self, path: str | Path) -> None: ...
