"""Reading JSON files a user hands in (saved states, trajectories, recordings, saved agents).

Such files may be truncated, hand-edited, from another tool or hostile. Everything here turns
a bad file into one `SpecError` line that names the file, the field path inside the document
and the expected form, and never shows more of the file than a value cut short: a loader that
lets a KeyError or an IndexError out tells the user nothing and crashes the CLI. Sizes and
nesting are bounded before use, so no file can hang a loader or blow its memory.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.input_files import read_regular

MAX_DEPTH = 64
"""Nesting the documents need is a handful of levels (props in a state, data in an event);
anything deeper is refused before a recursive walk could meet it."""


def read_json(source: str | Path | bytes, name: str, *, what: str, max_bytes: int,
              max_depth: int = MAX_DEPTH, follow_links: bool = True) -> Any:
    """The parsed document of a path, or of a file's bytes (`name` labels errors).

    `what` names the expected file in errors ("a saved state from World.save");
    `follow_links=False` refuses a symbolic link (a file a folder holds must be its own).
    """
    raw = read_bytes(source, name, what=what, max_bytes=max_bytes,
                     follow_links=follow_links) if not isinstance(source, bytes) else source
    if len(raw) > max_bytes:
        raise SpecError(f"the file has {len(raw)} bytes, more than the {max_bytes} allowed",
                        file=name, expected=what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"byte {exc.start} is not UTF-8 text", file=name,
                        expected=what) from None
    if not text.strip():
        raise SpecError("the file is empty", file=name, expected=what)
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except _Constant as exc:
        token, why = exc.args
        raise SpecError(f"{_cut_token(token)} is {why}",
                        location=_number_location(text, token, name), file=name,
                        expected="finite numbers") from None
    except json.JSONDecodeError as exc:
        where = Location(name, exc.lineno, exc.colno)
        if exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string"):
            raise SpecError("the file ends in the middle of the document: it looks truncated",
                            location=where, expected="a complete JSON document") from None
        raise SpecError(f"broken JSON: {exc.msg}", location=where, expected=what) from None
    except RecursionError:
        raise SpecError(f"values nested deeper than {max_depth} levels", file=name,
                        expected=what) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise SpecError(f"unreadable value ({str(exc)[:60]})", file=name,
                        expected="numbers of ordinary size") from None
    if depth_over(data, max_depth):
        raise SpecError(f"values nested deeper than {max_depth} levels", file=name,
                        expected=what)
    return data


def read_bytes(path: str | Path, name: str, *, what: str, max_bytes: int,
               follow_links: bool = True) -> bytes:
    """A file's bytes, refusing a missing, unreadable, oversized or non-regular file (a FIFO,
    a device: input_files.py) with a SpecError."""
    try:
        raw = read_regular(path, max_bytes, follow_links=follow_links)
    except OSError as exc:
        raise SpecError(f"cannot read the file ({exc.strerror or type(exc).__name__})",
                        file=name, expected=what) from None
    if len(raw) > max_bytes:
        raise SpecError(f"the file has more than the {max_bytes} bytes allowed", file=name,
                        expected=what)
    return raw


class _Constant(ValueError):
    pass


def _no_constant(token: str) -> Any:
    """NaN and Infinity parse in Python's json but are not JSON, and nothing saves them."""
    raise _Constant(token, "not a JSON number")


def _finite(token: str) -> float:
    """A JSON number such as 1e999 is valid JSON but overflows to infinity, which no writer
    of ours produces and no field takes: refused where it is read, whatever the field."""
    value = float(token)
    if not math.isfinite(value):
        raise _Constant(token, "a number too large for a float")
    return value


def _cut_token(token: str, limit: int = 40) -> str:
    return token if len(token) <= limit else token[:limit] + "..."


def _number_location(text: str, token: str, name: str) -> Location | None:
    """Where the number `token` first stands as a value in `text` (the json module does not
    say), or None when it cannot be told."""
    match = re.search(r"(?:(?<=[\s:\[,])|^)" + re.escape(token) + r"(?=[\s,\]}]|$)", text)
    if match is None:
        return None
    line = text.count("\n", 0, match.start()) + 1
    return Location(name, line, match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1)


def depth_over(data: Any, limit: int) -> bool:
    """Whether `data` nests lists and dicts deeper than `limit` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


class Fields:
    """Checks of a parsed document that name the path of the first bad value.

    Each check returns the value (converted where said) so that loaders read and check in
    one pass; each failure is a SpecError with the file, the path and the expected form.
    """

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, path: str, message: str, expected: str, found: object = None) -> SpecError:
        return SpecError(message, file=self.file, key_path=path, expected=expected,
                         found=found)

    def mapping(self, value: Any, path: str, required: Iterable[str],
                optional: Iterable[str] = ()) -> dict[str, Any]:
        """A JSON object with every `required` key and no key outside the two lists."""
        required = tuple(required)
        known = (*required, *optional)
        if not isinstance(value, dict):
            raise self.fail(path, f"{_kind(value)} where an object belongs",
                            "an object with " + ", ".join(required or known))
        for key in required:
            if key not in value:
                raise self.fail(_join(path, key), "missing", f"the field '{key}'")
        for key in value:
            if key not in known:
                raise self.fail(_join(path, str(key)), "unknown field",
                                "one of " + ", ".join(known))
        return value

    def integer(self, value: Any, path: str, low: int, high: int) -> int:
        """An integer (not a bool) with low <= value <= high."""
        if type(value) is not int:
            raise self.fail(path, f"{_kind(value)} where an integer belongs",
                            f"an integer from {low} to {high}", value)
        if not low <= value <= high:
            raise self.fail(path, "out of range", f"an integer from {low} to {high}", value)
        return value

    def number(self, value: Any, path: str, expected: str = "a number") -> float:
        if type(value) not in (int, float) or not math.isfinite(value):
            raise self.fail(path, f"{_kind(value)} where a number belongs", expected, value)
        return float(value)

    def boolean(self, value: Any, path: str) -> bool:
        if type(value) is not bool:
            raise self.fail(path, f"{_kind(value)} where true or false belongs",
                            "true or false", value)
        return value

    def string(self, value: Any, path: str, max_len: int = 1000,
               expected: str = "a string") -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"{_kind(value)} where a string belongs", expected, value)
        if len(value) > max_len:
            raise self.fail(path, f"a string of {len(value)} characters",
                            f"{expected} of at most {max_len} characters")
        return value

    def listing(self, value: Any, path: str, max_len: int, expected: str,
                length: int | None = None) -> list[Any]:
        """A JSON array of at most `max_len` items (exactly `length`, when given)."""
        if not isinstance(value, list):
            raise self.fail(path, f"{_kind(value)} where a list belongs", expected)
        if length is not None and len(value) != length:
            raise self.fail(path, f"{len(value)} items", f"{length} items: {expected}")
        if len(value) > max_len:
            raise self.fail(path, f"{len(value)} items", f"at most {max_len}: {expected}")
        return value

    def one_of(self, value: Any, path: str, choices: Iterable[Any]) -> Any:
        choices = tuple(choices)
        if not any(type(value) is type(c) and value == c for c in choices):
            raise self.fail(path, "not an allowed value",
                            "one of " + ", ".join(repr(c) for c in choices[:12]), value)
        return value

    def cell(self, value: Any, path: str, shape: tuple[int, int]) -> tuple[int, int]:
        """[row, column] of a cell on a map of `shape`."""
        h, w = shape
        expected = f"[row, column] on the {h}x{w} map"
        pair = self.listing(value, path, 2, expected, length=2)
        return (self.integer(pair[0], f"{path}[0]", 0, h - 1),
                self.integer(pair[1], f"{path}[1]", 0, w - 1))

    def int_rows(self, value: Any, path: str, shape: tuple[int, ...], low: int, high: int,
                 expected: str) -> list[Any]:
        """A list (or list of lists) of integers of exactly `shape`, each in [low, high]."""
        rows = self.listing(value, path, shape[0], expected, length=shape[0])
        if len(shape) == 1:
            for i, v in enumerate(rows):
                if type(v) is not int or not low <= v <= high:
                    raise self.fail(f"{path}[{i}]", "not an allowed value",
                                    f"an integer from {low} to {high}", v)
            return rows
        for r, row in enumerate(rows):
            self.int_rows(row, f"{path}[{r}]", shape[1:], low, high, expected)
        return rows


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), f"a {type(value).__name__}")
