"""Where `nesyworld play` gets its keys: single keypresses from a terminal, or commands a line
each from a pipe.

Why two sources behind one shape (an iterator of strings): the game loop must not care where
its input comes from, so a test drives it with a plain list, a pipe drives it with lines, and
a person plays with one key per action and no Enter. A terminal key source yields single
characters, and named keys for the arrows and Escape ("up", "down", "left", "right",
"escape"); a line source yields each non-empty line as one command.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["ARROWS", "TerminalKeys", "line_commands", "terminal_keys"]

ARROWS = {"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
          "\x1bOA": "up", "\x1bOB": "down", "\x1bOC": "right", "\x1bOD": "left"}
"""Escape sequences of the arrow keys (normal and application cursor mode) and their names."""

ESCAPE_WAIT = 0.05
"""Seconds to wait for the rest of an escape sequence: a lone Escape press sends no more."""


def line_commands(stream: IO[str]) -> Iterator[str]:
    """Each non-empty line of `stream`, stripped: the non-interactive path (pipes, tests)."""
    for line in stream:
        text = line.strip()
        if text:
            yield text


def _read_key(fd: int) -> str | None:
    """One keypress: a character, an arrow's or Escape's name, or None at end of input."""
    first = os.read(fd, 1)
    if not first:
        return None
    if first != b"\x1b":
        return first.decode(errors="replace")
    seq = first
    while len(seq) < 3 and select.select([fd], [], [], ESCAPE_WAIT)[0]:
        more = os.read(fd, 1)
        if not more:
            break
        seq += more
    text = seq.decode(errors="replace")
    return ARROWS.get(text, "escape")


class TerminalKeys:
    """Keypresses from a terminal, one at a time without Enter, until end of input.

    The terminal is put in cbreak mode (keys arrive unbuffered and unechoed; Ctrl-C still
    interrupts) as soon as this is made, not at the first read: a key pressed while the
    first frame is drawn must not be echoed or wait for Enter. `close` (also at end of
    input, and on leaving a `with` block) restores the terminal."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        import termios
        import tty

        self._fd = (stream if stream is not None else sys.stdin).fileno()
        self._saved: list[Any] | None = termios.tcgetattr(self._fd)
        tty.setcbreak(self._fd)

    def __iter__(self) -> TerminalKeys:
        return self

    def __next__(self) -> str:
        key = _read_key(self._fd) if self._saved is not None else None
        if key is None:
            self.close()
            raise StopIteration
        return key

    def close(self) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def __enter__(self) -> TerminalKeys:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def terminal_keys(stream: IO[str] | None = None) -> TerminalKeys:
    """Keypresses from `stream` (default stdin), which must be a terminal."""
    return TerminalKeys(stream)
