"""Reading YAML without trusting it: bytes to text to located plain data, in bounded time and
memory, every failure a located SpecError.

PyYAML's composer and constructor recurse once per nesting level (a list 3,000 levels deep
raises RecursionError, and libyaml's composer can exhaust the C stack), and they expand
aliases without limit (a 400-byte "billion laughs" document never finishes). So the document
is built here, iteratively, from the parser's event stream, which is itself iterative: depth
is checked at every opening bracket and the expanded size of every alias before it is copied,
so nothing deep or large is ever built. Only the safe loader's scalar constructors run, and
only for the standard tags: any other tag (`!custom`, `!!python/object:...`) is refused.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nesyworld.world.errors import Location, SpecError, shown
from nesyworld.world.input_files import read_regular
from nesyworld.world.spec.bounds import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES

KeyPath = tuple[Any, ...]
Marks = dict[KeyPath, Location]

_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # libyaml when built with it
_SCALARS = yaml.SafeLoader("")  # only its scalar constructors are used, never its stream
_RESOLVER = yaml.resolver.Resolver()
_SCALAR_TAGS = {f"tag:yaml.org,2002:{t}" for t in
                ("null", "bool", "int", "float", "str", "binary", "timestamp")}
_COLLECTION_TAGS = {None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
_MERGE_TAG = "tag:yaml.org,2002:merge"
# what YAML 1.1 allows in a stream (PyYAML's reader refuses the rest, libyaml a little more)
_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd"
                            "\U00010000-\U0010ffff]")


def read_text(path: Path) -> str:
    """A file's text: at most MAX_FILE_BYTES of UTF-8, or a SpecError naming what is wrong
    (and where, for bytes that are not UTF-8)."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)  # a FIFO or a device is refused unopened
    except OSError as exc:
        raise SpecError(f"cannot read the file: {exc.strerror or type(exc).__name__}",
                        file=str(path), expected="a readable YAML file") from None
    if len(data) > MAX_FILE_BYTES:
        raise SpecError("file too large", file=str(path),
                        expected=f"at most {MAX_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        raise SpecError(f"invalid UTF-8 byte {data[exc.start]:#04x}",
                        location=Location(str(path), line, column),
                        expected="a UTF-8 text file") from None


def _location(file: str, text: str, offset: int) -> Location:
    line = text.count("\n", 0, offset) + 1
    return Location(file, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def _at(file: str, mark: Any) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


@dataclass
class _Open:
    """A mapping or list being built: where it goes, and what it has so far."""

    value: dict[Any, Any] | list[Any]
    path: KeyPath
    anchor: str | None
    first_mark: int  # its own entry in the marks log (for its anchor's copy)
    nodes_before: int
    key: Any = None
    key_mark: Any = None
    has_key: bool = False


@dataclass
class _Anchored:
    value: Any
    log: list[tuple[KeyPath, Location, bool]]  # marks relative to the anchored node
    nodes: int
    depth: int


@dataclass
class _Builder:
    """Plain data and its marks from YAML events; see the module docstring."""

    file: str
    marks: Marks = field(default_factory=dict)
    key_marks: Marks = field(default_factory=dict)
    log: list[tuple[KeyPath, Location, bool]] = field(default_factory=list)
    anchors: dict[str, _Anchored] = field(default_factory=dict)
    stack: list[_Open] = field(default_factory=list)
    nodes: int = 0
    result: Any = None
    done: bool = False

    def fail(self, message: str, mark: Any, expected: str = "", found: object = None
             ) -> SpecError:
        return SpecError(message, location=_at(self.file, mark), expected=expected,
                         found=found)

    def mark(self, path: KeyPath, loc: Location, key: bool = False) -> None:
        (self.key_marks if key else self.marks)[path] = loc
        self.log.append((path, loc, key))

    def count(self, n: int, mark: Any) -> None:
        self.nodes += n
        if self.nodes > MAX_NODES:
            raise self.fail("document too large", mark,
                            expected=f"at most {MAX_NODES:,} values, aliases expanded")

    def here(self, mark: Any) -> KeyPath:
        """The key path the next value takes (and records its key's mark)."""
        if not self.stack:
            if self.done:
                raise self.fail("more than one YAML document", mark,
                                expected="a single document")
            return ()
        top = self.stack[-1]
        if isinstance(top.value, list):
            return (*top.path, len(top.value))
        return (*top.path, top.key)

    def place(self, value: Any, mark: Any, is_scalar: bool) -> None:
        """Put a finished value where it belongs: a key, a mapping value, a list item."""
        if not self.stack:
            self.result, self.done = value, True
            return
        top = self.stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
        elif not top.has_key:
            if not is_scalar:
                raise self.fail("mapping keys must be plain names", mark,
                                expected="a scalar key")
            if value in top.value:
                raise self.fail(f"duplicate key {shown(value)}", mark,
                                expected="each key once per mapping")
            top.key, top.key_mark, top.has_key = value, mark, True
            self.mark((*top.path, value), _at(self.file, mark), key=True)
        else:
            top.value[top.key] = value
            top.has_key = False

    def scalar(self, ev: yaml.ScalarEvent) -> Any:
        tag = ev.tag
        if tag is None or tag == "!":
            tag = _RESOLVER.resolve(yaml.ScalarNode, ev.value, ev.implicit)
        if tag == _MERGE_TAG:
            raise self.fail("merge keys (<<) are not supported", ev.start_mark,
                            expected="plain keys (use `extends:` to reuse a spec)")
        if tag not in _SCALAR_TAGS:
            raise self.fail(f"unsupported YAML tag {shown(tag)}", ev.start_mark,
                            expected="plain values without tags")
        # libyaml's events carry its own Mark class, which PyYAML's nodes take as well as theirs
        node = yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark,  # type: ignore[arg-type]
                               ev.style)
        try:
            return _SCALARS.yaml_constructors[tag](_SCALARS, node)
        except (yaml.YAMLError, ValueError, OverflowError, TypeError, KeyError, IndexError,
                AttributeError):
            raise self.fail("invalid value", ev.start_mark,
                            expected=f"a valid {tag.rsplit(':', 1)[-1]}",
                            found=ev.value) from None

    def event(self, ev: yaml.Event) -> None:
        if isinstance(ev, yaml.ScalarEvent | yaml.MappingStartEvent | yaml.SequenceStartEvent
                      | yaml.AliasEvent):
            is_key = bool(self.stack) and isinstance(self.stack[-1].value, dict) and not \
                self.stack[-1].has_key
            path = self.here(ev.start_mark)
            if isinstance(ev, yaml.ScalarEvent):
                self.count(1, ev.start_mark)
                value = self.scalar(ev)
                if not is_key:
                    self.mark(path, _at(self.file, ev.start_mark))
                if ev.anchor is not None:
                    self.anchors[ev.anchor] = _Anchored(value, [((), _at(self.file,
                                                                         ev.start_mark),
                                                                 False)], 1, 0)
                self.place(value, ev.start_mark, True)
            elif isinstance(ev, yaml.AliasEvent):
                self.alias(ev, path, is_key)
            else:
                self.open(ev, path, is_key)
        elif isinstance(ev, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            self.close(ev)
        elif isinstance(ev, yaml.DocumentStartEvent) and self.done:
            raise self.fail("more than one YAML document", ev.start_mark,
                            expected="a single document")

    def open(self, ev: Any, path: KeyPath, is_key: bool) -> None:
        if is_key:
            raise self.fail("mapping keys must be plain names", ev.start_mark,
                            expected="a scalar key")
        if ev.tag not in _COLLECTION_TAGS:
            raise self.fail(f"unsupported YAML tag {shown(ev.tag)}", ev.start_mark,
                            expected="plain mappings and lists without tags")
        if len(path) >= MAX_DEPTH:
            raise self.fail("nesting too deep", ev.start_mark,
                            expected=f"at most {MAX_DEPTH} levels of mappings and lists")
        self.count(1, ev.start_mark)
        first = len(self.log)
        self.mark(path, _at(self.file, ev.start_mark))
        value: dict[Any, Any] | list[Any] = {} if isinstance(ev, yaml.MappingStartEvent) else []
        self.stack.append(_Open(value, path, ev.anchor, first, self.nodes - 1))

    def close(self, ev: Any) -> None:
        top = self.stack.pop()
        if top.anchor is not None:
            n = len(top.path)
            log = [(p[n:], loc, key) for p, loc, key in self.log[top.first_mark:]]
            depth = max(len(p) for p, _, _ in log)
            self.anchors[top.anchor] = _Anchored(top.value, log, self.nodes - top.nodes_before,
                                                 depth)
        self.place(top.value, ev.start_mark, False)

    def alias(self, ev: yaml.AliasEvent, path: KeyPath, is_key: bool) -> None:
        anchored = None if ev.anchor is None else self.anchors.get(ev.anchor)
        if anchored is None:
            recursive = any(o.anchor == ev.anchor for o in self.stack)
            raise self.fail("an alias inside its own anchor" if recursive else
                            f"unknown alias {shown(ev.anchor)}", ev.start_mark,
                            expected="an alias to an anchor defined (and closed) before it")
        if is_key and isinstance(anchored.value, dict | list):
            raise self.fail("mapping keys must be plain names", ev.start_mark,
                            expected="a scalar key")
        if len(path) + anchored.depth > MAX_DEPTH:
            raise self.fail("nesting too deep", ev.start_mark,
                            expected=f"at most {MAX_DEPTH} levels, aliases expanded")
        self.count(anchored.nodes, ev.start_mark)
        if not is_key:
            for rel, loc, key in anchored.log:
                self.mark((*path, *rel), loc, key)
        value = anchored.value
        self.place(copy.deepcopy(value) if isinstance(value, dict | list) else value,
                   ev.start_mark, not isinstance(value, dict | list))


def parse(text: str, file: str) -> tuple[Any, Marks, Marks]:
    """(data, value marks, key marks) of a YAML document; data is None for an empty one."""
    if len(text) > MAX_FILE_BYTES:
        raise SpecError("document too large", location=Location(file, 1, 1),
                        expected=f"at most {MAX_FILE_BYTES:,} characters")
    bad = _NON_PRINTABLE.search(text)
    if bad is not None:
        raise SpecError(f"character U+{ord(bad.group()):04X} is not allowed in YAML",
                        location=_location(file, text, bad.start()),
                        expected="printable text (no NUL or control characters)")
    builder = _Builder(file)
    try:
        for ev in yaml.parse(text, Loader=_LOADER):
            builder.event(ev)
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, file, text) from None
    return builder.result, builder.marks, builder.key_marks


def _syntax_error(exc: yaml.YAMLError, file: str, text: str) -> SpecError:
    """One located line for any of PyYAML's errors (scanner, parser, reader, ...)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    position = getattr(exc, "position", None)  # a ReaderError's
    if mark is not None:
        loc = _at(file, mark)
    elif isinstance(position, int):
        loc = _location(file, text, min(position, len(text)))
    else:
        loc = Location(file, 1, 1)
    problem = getattr(exc, "problem", None) or type(exc).__name__
    problem = " ".join(str(problem).split())[:120]
    if "nesting depth" in problem:  # libyaml's own cap (1,000) can fire before ours: read ahead
        return SpecError("nesting too deep", location=loc,
                         expected=f"at most {MAX_DEPTH} levels of mappings and lists")
    return SpecError(f"YAML syntax error: {problem}", location=loc,
                     expected="well-formed YAML")
