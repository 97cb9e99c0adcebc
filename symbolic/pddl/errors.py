"""PDDL input errors and dialect warnings that say file:line:column, and `Source`, the file
and text every one of them is reported against."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lark import Token, Tree

PACKAGE_DIR = str(Path(__file__).parent)


Item = Tree | Token


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
        message = f"{file}:{line}:{column}: {reason}"
        if source_line is not None:
            message += f"\n    {source_line.replace(chr(9), ' ')}\n    {' ' * (column - 1)}^"
        super().__init__(message)


class PDDLSyntaxError(PDDLError):
    """The text does not follow the PDDL grammar (raised from lark's Unexpected* errors)."""


class PDDLSemanticError(PDDLError):
    """The text is grammatical but refers to something undeclared, or misuses it."""


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
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None

    def error(self, item: Item, reason: str) -> PDDLSemanticError:
        line, column = self.position(item)
        found = str(item) if isinstance(item, Token) else ""
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
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    return level
