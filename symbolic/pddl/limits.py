"""How much PDDL the reader takes, checked before lark and the builders see the text.

Why: the builders (semantics.py) and unified-planning's expressions recurse once per level of
parentheses, so 1,000 nested ``(and`` raised RecursionError; a number of 5,000 digits stops
``Fraction``; a file of gigabytes or bytes that are not UTF-8 would fail deep inside. Every
limit below is refused with a located :class:`PDDLLimitError` (or :class:`PDDLFileError` for
the file itself) that names the limit.

The limits are far above what real PDDL needs. Measured on the 283 IPC 1998-2014 domains of
potassco/pddl-instances with their first problems: parentheses nest at most 16 levels (ADL
domains with forall/when/imply), names stay under 60 characters, the largest file is well
under a megabyte; NovelGym's generated domains nest 5 levels with 49 types.
"""

from __future__ import annotations

import re
from pathlib import Path

from lark import Token

from nesyworld.symbolic.pddl.errors import (
    PDDLFileError,
    PDDLLimitError,
    Source,
    shown,
)
from nesyworld.world.input_files import read_regular

MAX_CHARS = 8_000_000
"""Characters in one domain, problem or plan (also the bytes read from a file, plus one)."""
MAX_DEPTH = 100
"""Levels of nested parentheses (IPC domains: at most 16)."""
MAX_NAME = 200
"""Characters in a name, ?variable or :requirement."""
MAX_NUMBER = 60
"""Characters in a number (Fraction refuses integers of more than 4,300 digits)."""
MAX_TYPES = 2_000
"""Declared types: the hierarchy checks walk ancestors for each type."""
MAX_TYPE_DEPTH = 64
"""Levels of the type hierarchy (a chain ``t1 - t0  t2 - t1 ...``)."""
MAX_PLAN_STEPS = 20_000
"""Steps in a plan: each line goes through lark alone (about 0.2 ms), and IPC plans have at most
a few thousand."""
MAX_SECOND_PARENTS = 200
"""Types declared under a second parent (NovelGym: 4); each one is checked against the tree."""

_BRACKETS = re.compile(r"[()]|;[^\n]*")


def position(text: str, offset: int) -> tuple[int, int]:
    """The (line, column) of character `offset`, both 1-based, counting lines by "\\n"."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def limit_error(source: Source, offset: int, reason: str) -> PDDLLimitError:
    line, column = position(source.text, offset)
    return PDDLLimitError(reason, file=source.file, line=line, column=column,
                          source_line=source.line_text(line))


def check_text(source: Source) -> None:
    """Refuse a text longer than MAX_CHARS or nested deeper than MAX_DEPTH (comments
    skipped), at the character where the limit is crossed. Linear in the text."""
    text = source.text
    if len(text) > MAX_CHARS:
        raise limit_error(source, MAX_CHARS, f"the text goes on past {MAX_CHARS:,} characters; "
                          f"expected a PDDL file of at most {MAX_CHARS:,}")
    depth = 0
    for match in _BRACKETS.finditer(text):
        bracket = match.group()
        if bracket == "(":
            depth += 1
            if depth > MAX_DEPTH:
                raise limit_error(source, match.start(),
                                  f"parentheses nested more than {MAX_DEPTH} levels deep; "
                                  f"expected at most {MAX_DEPTH} (real domains use under 20)")
        elif bracket == ")":
            depth = max(depth - 1, 0)


def check_token(token: Token, source: Source, line_offset: int = 0) -> None:
    """Refuse a name or number longer than the reader takes (called on every parsed token;
    `line_offset` places a plan line, parsed alone, in its file)."""
    limit = MAX_NUMBER if token.type == "NUMBER" else MAX_NAME
    if len(token) > limit:
        what = "number" if token.type == "NUMBER" else "name"
        line, column = source.position(token)
        raise PDDLLimitError(
            f"{what} '{shown(str(token))}' has {len(token):,} characters; expected at most "
            f"{limit}", file=source.file, line=line + line_offset, column=column,
            found=shown(str(token)), source_line=source.line_text(line))


def text_from_bytes(data: bytes, file: str) -> str:
    """Decode a PDDL file's bytes as UTF-8 (a leading byte-order mark dropped); a byte that
    is not UTF-8 is refused at its line and column."""
    if len(data) > MAX_CHARS:
        raise PDDLFileError(f"the file has more than {MAX_CHARS:,} bytes; expected a PDDL file "
                            f"of at most {MAX_CHARS:,}", file=file, line=1, column=1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        start = data.rfind(b"\n", 0, err.start) + 1
        line = data.count(b"\n", 0, err.start) + 1
        column = len(data[start:err.start].decode("utf-8", errors="replace")) + 1
        end = data.find(b"\n", err.start)
        source_line = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
        raise PDDLFileError(
            f"byte 0x{data[err.start]:02x} is not UTF-8; expected UTF-8 (or ASCII) text",
            file=file, line=line, column=column, source_line=source_line) from None


def load_pddl_text(path: str | Path, *, follow_links: bool = True) -> str:
    """A PDDL domain, problem or plan file's text, for read_pddl / read_plan: at most
    MAX_CHARS bytes are read, and an unreadable file, one that is not a regular file (a FIFO
    would block the read forever), a symbolic link when `follow_links` is False, or a
    non-UTF-8 byte is a PDDLFileError."""
    file = str(path)
    try:
        data = read_regular(path, MAX_CHARS, follow_links=follow_links)
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise PDDLFileError(f"cannot read the file ({reason}); expected a readable PDDL file",
                            file=file, line=1, column=1) from None
    return text_from_bytes(data, file)
