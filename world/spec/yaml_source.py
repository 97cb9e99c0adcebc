"""YAML read with a safe loader, keeping where every value came from.

Validation works on plain Python data, but its errors must point at file:line:column. So the
loader returns the data together with a map from key paths to source marks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nesyworld.world.errors import Location, SpecError

KeyPath = tuple[Any, ...]
_SCALARS = yaml.SafeLoader("")  # only its scalar constructors are used, never its stream


@dataclass
class SourceMap:
    """Where each key path of a loaded document starts in its file."""

    file: str
    lines: tuple[str, ...] = ()
    marks: dict[KeyPath, Location] = field(default_factory=dict)
    key_marks: dict[KeyPath, Location] = field(default_factory=dict)

    def locate(self, path: KeyPath, *, key: bool = False) -> Location:
        """The nearest known location for a key path (falls back to its parents)."""
        table = self.key_marks if key else self.marks
        probe = tuple(path)
        while probe:
            if probe in table:
                return table[probe]
            if probe in self.marks:
                return self.marks[probe]
            probe = probe[:-1]
        return self.marks.get((), Location(self.file, 1, 1))

    def subtree(self, prefix: KeyPath) -> SourceMap:
        """The marks below `prefix`, re-rooted there (a novelty's `changes` section)."""
        n = len(prefix)
        out = SourceMap(self.file, self.lines)
        for table, dst in ((self.marks, out.marks), (self.key_marks, out.key_marks)):
            for path, loc in table.items():
                if path[:n] == tuple(prefix):
                    dst[path[n:]] = loc
        return out

    def error(
        self, path: KeyPath, message: str, *, found: object = None, expected: str = "",
        key: bool = False,
    ) -> SpecError:
        return SpecError(
            message,
            location=self.locate(path, key=key),
            key_path=".".join(str(p) for p in path),
            found=found,
            expected=expected,
        )


def _construct(node: yaml.Node, path: KeyPath, smap: SourceMap) -> Any:
    smap.marks[path] = Location(smap.file, node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(
                    "mapping keys must be plain names",
                    location=Location(
                        smap.file, key_node.start_mark.line + 1, key_node.start_mark.column + 1
                    ),
                    expected="a scalar key",
                )
            key = _SCALARS.construct_object(key_node)
            if key in out:
                raise SpecError(
                    f"duplicate key '{key}'",
                    location=Location(
                        smap.file, key_node.start_mark.line + 1, key_node.start_mark.column + 1
                    ),
                    expected="each key once per mapping",
                )
            smap.key_marks[(*path, key)] = Location(
                smap.file, key_node.start_mark.line + 1, key_node.start_mark.column + 1
            )
            out[key] = _construct(value_node, (*path, key), smap)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(child, (*path, i), smap) for i, child in enumerate(node.value)]
    return _SCALARS.construct_object(node)


def load_yaml_text(text: str, file: str = "<string>") -> tuple[Any, SourceMap]:
    """Parse YAML with the safe loader; syntax errors become SpecError with line:column."""
    smap = SourceMap(file, tuple(text.splitlines()))
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(file, mark.line + 1, mark.column + 1) if mark else None
        raise SpecError(f"YAML syntax error: {exc.problem}", location=loc) from None
    if node is None:
        raise SpecError("the file is empty", location=Location(file, 1, 1),
                        expected="a YAML mapping")
    return _construct(node, (), smap), smap


def load_yaml_file(path: str | Path) -> tuple[Any, SourceMap]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read {p}: {exc.strerror}") from None
    return load_yaml_text(text, str(p))


def merge_documents(
    base: Any, base_map: SourceMap, over: Any, over_map: SourceMap
) -> tuple[Any, SourceMap]:
    """Deep-merge `over` onto `base` (mappings merge, anything else replaces, null deletes).

    Locations survive the merge, so an error in an inherited part still points into the base
    file and one in the override points into the overriding file.
    """
    merged_map = SourceMap(over_map.file, over_map.lines)

    def walk(b: Any, o: Any, path: KeyPath) -> Any:
        if isinstance(b, dict) and isinstance(o, dict):
            out = {}
            for key, value in b.items():  # the base's order first: it fixes type ids
                if key not in o:
                    _copy_marks(base_map, merged_map, (*path, key))
                    out[key] = value
                elif o[key] is not None:
                    out[key] = walk(value, o[key], (*path, key))
            for key, value in o.items():
                if key in b:
                    continue
                if value is None:  # a deletion of nothing is a typo, never a silent no-op
                    raise over_map.error((*path, key), f"nothing to delete: '{key}' is not in "
                                         "the spec being changed", key=True,
                                         expected="one of " + ", ".join(map(str, b)))
                _copy_marks(over_map, merged_map, (*path, key))
                out[key] = value
            _copy_marks(over_map, merged_map, path, recursive=False)
            return out
        _copy_marks(over_map, merged_map, path)
        return o

    return walk(base, over, ()), merged_map


def _copy_marks(src: SourceMap, dst: SourceMap, prefix: KeyPath, recursive: bool = True) -> None:
    n = len(prefix)
    for table, out in ((src.marks, dst.marks), (src.key_marks, dst.key_marks)):
        for path, loc in table.items():
            if path[:n] == prefix and (recursive or len(path) == n):
                out[path] = loc
