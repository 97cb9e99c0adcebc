"""Typed access to a located YAML document, shared by every spec section and config reader.

Each accessor checks one value's type or range and, on failure, raises a `SpecError` that
names the file:line:column of the value, what was found and what was expected, so every
section parser gets located errors without writing them itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nesyworld.world.errors import SpecError
from nesyworld.world.spec.yaml_source import KeyPath, SourceMap


class SpecReader:
    """Typed access to a located document; every failure is a located SpecError."""

    def __init__(self, smap: SourceMap) -> None:
        self.smap = smap

    def fail(self, path: KeyPath, message: str, *, found: object = None, expected: str = "",
             key: bool = False) -> SpecError:
        return self.smap.error(path, message, found=found, expected=expected, key=key)

    def mapping(self, value: Any, path: KeyPath, allowed: set[str] | Mapping[str, str] | None
                = None, *, nullable: bool = False) -> dict[str, Any]:
        if value is None and nullable:
            return {}
        if not isinstance(value, dict):
            raise self.fail(path, "wrong type", found=value, expected="a mapping")
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    close = sorted(allowed)
                    raise self.fail((*path, key), f"unknown key '{key}'", key=True,
                                    expected="one of " + ", ".join(close))
        return value

    def string(self, value: Any, path: KeyPath) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, "wrong type", found=value, expected="a non-empty string")
        return value

    def boolean(self, value: Any, path: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, "wrong type", found=value, expected="true or false")
        return value

    def integer(self, value: Any, path: KeyPath, *, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, "wrong type", found=value, expected="an integer")
        if value < minimum:
            raise self.fail(path, "value out of range", found=value,
                            expected=f"an integer >= {minimum}")
        return value

    def number(self, value: Any, path: KeyPath) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(path, "wrong type", found=value, expected="a number")
        return float(value)

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
        if concrete and types[name].get("abstract"):
            raise self.fail(path, f"'{name}' is abstract", found=name,
                            expected="a concrete entity type")
        return name

    def counts(self, value: Any, path: KeyPath, types: Mapping[str, Any]) -> dict[str, int]:
        data = self.mapping(value, path, nullable=True)
        out = {}
        for name, n in data.items():
            if name not in types or types[name].get("abstract"):
                raise self.fail((*path, name), f"unknown entity type '{name}'" if name not in
                                types else f"'{name}' is abstract", found=name, key=True,
                                expected="a concrete type declared under entity_types")
            out[name] = self.integer(n, (*path, name), minimum=1)
        return out
