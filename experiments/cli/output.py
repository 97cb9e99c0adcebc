"""What the commands share for input and output: text files read with errors that name the
file, and a terminal console made on first use.

`read_text` turns a file that is not UTF-8 text into an ``OSError`` naming the file, so that
`main` reports it like a missing file (``nesyworld: error: <path>: <reason>``, exit
status 2).

Why the console is lazy: importing rich costs about 50 ms, which `nesyworld --help` and a
command printing JSON need not pay; every command module is imported to build the parser, so
none may import rich at module level. A `LazyConsole` stands for a ``rich.console.Console``
and makes one when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


class LazyConsole:
    """A ``rich.console.Console(**options)``, created at its first attribute access."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def get(self) -> Console:
        """The console itself (made now if it was not yet): what a live display that shares
        the terminal with this console's lines must be given, so that rich keeps the
        display below the lines instead of leaving stale copies of it."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


def plain(value: Any) -> str:
    """A value in the words a reader of the terminal expects, not Python's spelling: a
    mapping as ``k: v, k: v``, a boolean as yes/no, a sequence comma-separated."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {plain(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(plain(v) for v in value) or "none"
    return str(value)
