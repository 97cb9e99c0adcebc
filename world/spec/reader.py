"""Typed access to a located YAML document, shared by every spec section and config reader.

Each accessor checks one value's type or range and, on failure, raises a `SpecError` that
names the file:line:column of the value, what was found and what was expected, so every
section parser gets located errors without writing them itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from nesyworld.world.errors import SpecError, shown
from nesyworld.world.spec.bounds import MAX_COUNT, MAX_INT32
from nesyworld.world.spec.yaml_source import KeyPath, SourceMap


class SpecReader:
    """Typed access to a located document; every failure is a located SpecError."""

    def __init__(self, smap: SourceMap) -> None:
        self.smap = smap

    def fail(self, path: KeyPath, message: str, *, found: object = None, expected: str = "",
             key: bool = False) -> SpecError:
        return self.smap.error(path, message, found=found, expected=expected, key=key)

    def mapping(self, value: Any, path: KeyPath, allowed: set[str] | Mapping[str, str] | None
                = None, *, nullable: bool = False, names: bool = True) -> dict[str, Any]:
        """A mapping whose keys are names (non-empty text; `names=False` lets any plain key
        through, as a legend's digit glyphs) and, given `allowed`, only those."""
        if value is None and nullable:
            return {}
        if not isinstance(value, dict):
            if not path:  # the whole document: its start is a file's first line, not a value
                raise self.fail(path, f"wrong type: the document is {_kind(value)}",
                                expected="a mapping")
            raise self.fail(path, "wrong type", found=value, expected="a mapping")
        for key in value:
            if names and (not isinstance(key, str) or not key):
                raise self.fail((*path, key), "wrong key type", found=key, key=True,
                                expected="a name (quote keys such as yes, no, on, 1, null)")
            if allowed is not None and key not in allowed:
                raise self.fail((*path, key), f"unknown key {shown(key)}", key=True,
                                expected="one of " + ", ".join(sorted(allowed)))
        return value

    def sequence(self, value: Any, path: KeyPath, expected: str, *, nullable: bool = True
                 ) -> list[Any]:
        """A list (None: an empty one when `nullable`); `expected` says of what."""
        if value is None and nullable:
            return []
        if not isinstance(value, list):
            raise self.fail(path, "wrong type", found=value, expected=expected)
        return value

    def string(self, value: Any, path: KeyPath) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, "wrong type", found=value, expected="a non-empty string")
        return value

    def choice(self, value: Any, path: KeyPath, options: Iterable[str]) -> str:
        """One of `options`, as text (a list or a mapping is refused, not looked up)."""
        options = list(options)
        if not isinstance(value, str) or value not in options:
            raise self.fail(path, "invalid value", found=value,
                            expected="one of " + ", ".join(options))
        return value

    def boolean(self, value: Any, path: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, "wrong type", found=value, expected="true or false")
        return value

    def integer(self, value: Any, path: KeyPath, *, minimum: int = 0,
                maximum: int = MAX_INT32) -> int:
        """An integer in [minimum, maximum]: by default one an int32 array can hold, since
        most end up in one (bounds.py has the tighter limits the sections use)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, "wrong type", found=value, expected="an integer")
        if not minimum <= value <= maximum:
            raise self.fail(path, "value out of range", found=value,
                            expected=f"an integer >= {minimum} and <= {maximum:,}")
        return value

    def number(self, value: Any, path: KeyPath, *, minimum: float | None = None,
               maximum: float | None = None) -> float:
        """A finite real number (nan and inf are refused: they poison every sum they meet),
        optionally within [minimum, maximum]."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(path, "wrong type", found=value, expected="a number")
        try:
            out = float(value)
        except OverflowError:  # an int beyond a float's range
            out = math.inf
        if not math.isfinite(out):
            raise self.fail(path, "value out of range", found=value,
                            expected="a finite number")
        if (minimum is not None and out < minimum) or (maximum is not None and out > maximum):
            low = "" if minimum is None else f"{minimum:g}"
            high = "" if maximum is None else f"{maximum:g}"
            expected = (f"a number from {low} to {high}" if low and high
                        else f"a number >= {low}" if low else f"a number <= {high}")
            raise self.fail(path, "value out of range", found=value, expected=expected)
        return out

    def cell(self, value: Any, path: KeyPath) -> tuple[int, int]:
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise self.fail(path, "wrong type", found=value, expected="[row, column]")
        return (value[0], value[1])

    def type_name(self, value: Any, path: KeyPath, types: Mapping[str, Any],
                  *, concrete: bool = True) -> str:
        name = self.string(value, path)
        if name not in types:
            raise self.fail(path, f"unknown entity type '{name}'", found=name,
                            expected="a type declared under entity_types")
        if concrete and _abstract(types[name]):
            raise self.fail(path, f"'{name}' is abstract", found=name,
                            expected="a concrete entity type")
        return name

    def counts(self, value: Any, path: KeyPath, types: Mapping[str, Any]) -> dict[str, int]:
        data = self.mapping(value, path, nullable=True)
        out = {}
        for name, n in data.items():
            if name not in types or _abstract(types[name]):
                raise self.fail((*path, name), f"unknown entity type '{name}'" if name not in
                                types else f"'{name}' is abstract", found=name, key=True,
                                expected="a concrete type declared under entity_types")
            out[name] = self.integer(n, (*path, name), minimum=1, maximum=MAX_COUNT)
        return out


def _abstract(raw_type: Any) -> bool:
    """Whether a raw entity type (a mapping, or an EntityTypeSpec) is abstract."""
    if isinstance(raw_type, Mapping):
        return bool(raw_type.get("abstract"))
    return bool(getattr(raw_type, "abstract", False))


def _kind(value: Any) -> str:
    """A YAML value's kind, for a message that must not quote it."""
    if value is None:
        return "empty"
    return {str: "text", list: "a list", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), "not a mapping")
