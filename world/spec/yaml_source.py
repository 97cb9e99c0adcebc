"""YAML read with a safe loader, keeping where every value came from.

Validation works on plain Python data, but its errors must point at file:line:column. So the
loader returns the data together with a map from key paths to source marks. The reading
itself (bounded in size, depth and alias expansion, every failure located) is yaml_bounded.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.spec.yaml_bounded import KeyPath, parse, read_text

__all__ = ["KeyPath", "SourceMap", "load_yaml_file", "load_yaml_text", "merge_documents"]


@dataclass
class SourceMap:
    """Where each key path of a loaded document starts in its file."""

    file: str
    lines: tuple[str, ...] = ()
    marks: dict[KeyPath, Location] = field(default_factory=dict)
    key_marks: dict[KeyPath, Location] = field(default_factory=dict)
    _children: tuple[int, dict[KeyPath, set[KeyPath]]] | None = field(
        default=None, repr=False, compare=False)

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

    def children(self) -> dict[KeyPath, set[KeyPath]]:
        """Each marked path's children (built on first use by a merge; rebuilt if marks were
        added since), so copying a subtree costs its size, not a scan of every mark."""
        index = self._children
        if index is None or index[0] != len(self.marks) + len(self.key_marks):
            table: dict[KeyPath, set[KeyPath]] = {}
            for path in {*self.marks, *self.key_marks}:
                while path:  # unmarked ancestors too, so every mark is reachable
                    siblings = table.setdefault(path[:-1], set())
                    if path in siblings:
                        break
                    siblings.add(path)
                    path = path[:-1]
            index = self._children = (len(self.marks) + len(self.key_marks), table)
        return index[1]

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


def load_yaml_text(text: str, file: str = "<string>") -> tuple[Any, SourceMap]:
    """Parse YAML with the safe loader, bounded in depth, size and alias expansion
    (yaml_bounded.py); every failure is a SpecError with line:column."""
    data, marks, key_marks = parse(text, file)
    if data is None and not marks:
        raise SpecError("the file is empty", location=Location(file, 1, 1),
                        expected="a YAML mapping")
    return data, SourceMap(file, tuple(text.splitlines()), marks, key_marks)


def load_yaml_file(path: str | Path) -> tuple[Any, SourceMap]:
    """`load_yaml_text` of a file: at most MAX_FILE_BYTES of UTF-8 (bounds.py)."""
    p = Path(path)
    return load_yaml_text(read_text(p), str(p))


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
    """Copy the marks of `prefix` (and, if `recursive`, of everything below it) from `src`:
    through `src`'s index of children, so a merge costs the size of what it copies rather
    than a scan of every mark per key."""
    children = src.children()
    todo = [tuple(prefix)]
    while todo:
        path = todo.pop()
        for table, out in ((src.marks, dst.marks), (src.key_marks, dst.key_marks)):
            if path in table:
                out[path] = table[path]
        if recursive:
            todo.extend(children.get(path, ()))
