"""Errors a user can act on: each says what was wrong, where, and what was expected."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A place in a source file; line and column are 1-based, as editors show them."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


FOUND_CHARS = 40
"""How much of an offending value an error shows: enough to recognise it, never a file's worth
(a value can be a whole document pasted where a name belongs)."""


def shown(value: object) -> str:
    """`repr(value)`, cut to FOUND_CHARS characters with an ellipsis."""
    text = repr(value)
    return text if len(text) <= FOUND_CHARS else text[: FOUND_CHARS - 3] + "..."


class SpecError(ValueError):
    """A world spec or novelty file that cannot be used as written.

    Carries the location so that tools (the CLI, editors, notebooks) can point at the exact
    spot instead of making the user hunt for it. Files without line positions (JSON saved
    states and trajectories) give `file` and `key_path` instead of a `location`.
    """

    def __init__(
        self,
        message: str,
        *,
        location: Location | None = None,
        key_path: str = "",
        found: object = None,
        expected: str = "",
        file: str = "",
    ) -> None:
        self.message = message
        self.location = location
        self.file = location.file if location else file
        self.key_path = key_path
        self.found = found
        self.expected = expected
        where = str(location) if location else file
        parts = [f"{where}: " if where else "", message]
        if key_path:
            parts.append(f" (at '{key_path}')")
        if expected:
            parts.append(f"; expected {expected}")
        if found is not None:
            parts.append(f", found {shown(found)}")
        super().__init__("".join(parts))


class ActionRefused(Exception):
    """Raised inside an action's execute() to refuse it; the world turns it into info['reason']."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
