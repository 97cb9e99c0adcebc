"""PDDL input errors and dialect warnings that say file:line:column, and `Source`, the file
and text every one of them is reported against.

The first line of every error is the one the CLI prints: ``file:line:column: what; expected
what``. After it come the source line and a caret under the column, as compilers show them;
both are cut to a window around the column and made printable, so that a one-line file of
megabytes or a control character in the input cannot turn the error into a flood.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from lark import Token, Tree

PACKAGE_DIR = str(Path(__file__).parent)
TOKEN_SHOWN = 40
"""An offending token longer than this is cut short in messages (only its start is shown)."""
LINE_SHOWN = 100
"""At most this much of the source line is shown above the caret."""


Item = Tree | Token


def as_token(item: Item) -> Token:
    """`item` where the grammar has a terminal (a NAME or a VARIABLE), typed as one: lark types
    every child of a tree as a tree or a token."""
    assert isinstance(item, Token), item
    return item


class PDDLError(ValueError):
    """A PDDL input error that knows where it is, so that tools and people can jump to it."""

    def __init__(
        self,
        reason: str,
        *,
        file: str,
        line: int,
        column: int,
        expected: Sequence[str] = (),
        found: str = "",
        source_line: str | None = None,
    ) -> None:
        self.reason = reason
        self.file, self.line, self.column = file, line, column
        self.expected = list(expected)
        self.found = found
        message = f"{file}:{line}:{column}: {printable(reason)}"
        if source_line is not None:
            window, caret = line_window(source_line, column)
            message += f"\n    {window}\n    {' ' * caret}^"
        super().__init__(message)


def printable(text: str) -> str:
    """`text` with every character a terminal could misread (control characters, lone
    surrogates, line breaks) replaced by '?', so a message stays one printable line."""
    return "".join(c if c.isprintable() else "?" for c in text)


def shown(token: str, limit: int = TOKEN_SHOWN) -> str:
    """A token as messages quote it: printable, and cut short with '...' when long."""
    text = printable(token)
    return text if len(text) <= limit else text[:limit] + "..."


def line_window(line: str, column: int) -> tuple[str, int]:
    """At most LINE_SHOWN printable characters of `line` around `column`, and the offset of
    the caret in what is shown."""
    line = line.rstrip("\r")
    at = max(column - 1, 0)
    start = 0
    if len(line) > LINE_SHOWN:
        start = min(max(at - LINE_SHOWN // 2, 0), len(line) - LINE_SHOWN)
    head = "..." if start > 0 else ""
    tail = "..." if start + LINE_SHOWN < len(line) else ""
    window = printable(line[start:start + LINE_SHOWN].replace("\t", " "))
    return head + window + tail, at - start + len(head)


class PDDLSyntaxError(PDDLError):
    """The text does not follow the PDDL grammar (raised from lark's Unexpected* errors)."""


class PDDLSemanticError(PDDLError):
    """The text is grammatical but refers to something undeclared, or misuses it."""


class PDDLLimitError(PDDLSyntaxError):
    """The text is larger, deeper or longer-worded than the reader takes (see limits.py)."""


class PDDLFileError(PDDLError):
    """The file cannot be read, or its bytes are not UTF-8 text."""


class PDDLDialectWarning(UserWarning):
    """Input outside standard PDDL that the reader accepts, e.g. Metric-FF's NovelGym domains."""

    def __init__(self, message: str, file: str = "", line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.file, self.line, self.column = file, line, column


@dataclass(frozen=True)
class Source:
    """A file name with its text: what every error and warning needs to say where it is."""

    file: str
    text: str

    def position(self, item: Item) -> tuple[int, int]:
        if isinstance(item, Token):
            return item.line or 1, item.column or 1
        meta = item.meta
        return getattr(meta, "line", 1), getattr(meta, "column", 1)

    def line_text(self, line: int) -> str | None:
        """Line `line` (1-based) as lark counts lines: by "\\n" alone, not str.splitlines'
        form feeds and Unicode separators, which would shift the line under the caret."""
        if line < 1:
            return None
        start = 0
        for _ in range(line - 1):
            start = self.text.find("\n", start) + 1
            if start == 0:
                return None
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def error(self, item: Item, reason: str, expected: str = "") -> PDDLSemanticError:
        """An error at `item`: ``reason; expected <expected>``, the item's token cut short."""
        line, column = self.position(item)
        found = str(item) if isinstance(item, Token) else ""
        if len(found) > TOKEN_SHOWN:
            reason = reason.replace(found, shown(found))
        if expected:
            reason = f"{reason}; expected {expected}"
        return PDDLSemanticError(
            reason,
            file=self.file,
            line=line,
            column=column,
            found=found,
            source_line=self.line_text(line),
        )

    def warn(self, item: Item, message: str) -> None:
        line, column = self.position(item)
        text = f"{self.file}:{line}:{column}: {message}"
        warnings.warn(PDDLDialectWarning(text, self.file, line, column),
                      stacklevel=caller_stacklevel())


def caller_stacklevel() -> int:
    """The stacklevel of the first frame outside this package: where the user called us."""
    level = 1
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    return level
