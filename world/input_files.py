"""Opening a file a user names: what is not a regular file is refused before it is read.

Why: opening a FIFO for reading blocks until something writes to it (forever, for a command
run by hand), a device such as /dev/zero or /dev/urandom never ends, and a folder or socket
fails late with an error that says nothing. Every reader of user-named files (specs,
novelties, configs, PDDL, JSON documents, results files) opens through `open_regular`, so
the rule and its wording live here once.

How: the path is stat'ed first, so a FIFO is never opened; the open itself is non-blocking
and the descriptor is checked again, so a file swapped for a FIFO between the two is still
refused without a hang. The refusal is a `NotRegularFile`, an OSError: each reader's own
`except OSError` turns it into that reader's located error, as it does for a missing file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link"))
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class NotRegularFile(OSError):
    """A path that names something other than a regular file (or a link, where links are
    refused). `strerror` says what it is: ``a FIFO, not a regular file``."""

    def __init__(self, path: str | Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a file of st_mode `mode` is, for messages ("a FIFO")."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | Path, *, follow_links: bool = True) -> BinaryIO:
    """`path` opened for reading bytes, refusing with NotRegularFile anything that is not a
    regular file; `follow_links=False` also refuses a symbolic link (a file a folder holds,
    such as a knowledge base's domain.pddl, must be that folder's own). Other failures are
    the OSError the system raises."""
    where = os.fspath(path)
    mode = (os.stat(where) if follow_links else os.lstat(where)).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(where, kind_of(mode))
    flags = _FLAGS | (0 if follow_links else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(where, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link put there after the lstat
            raise NotRegularFile(where, "a symbolic link") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(where, kind_of(mode))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, limit: int, *, follow_links: bool = True) -> bytes:
    """At most `limit` + 1 bytes of the regular file `path` (see `open_regular`): a caller
    that gets more than `limit` knows the file is over its cap without reading all of it."""
    with open_regular(path, follow_links=follow_links) as handle:
        return handle.read(limit + 1)


def is_regular_file(path: str | Path) -> bool:
    """Whether `path` is a regular file (after links); False for a name the system refuses
    (too long, a NUL byte) rather than an exception."""
    try:
        return stat.S_ISREG(os.stat(os.fspath(path)).st_mode)
    except (OSError, ValueError):
        return False


def irregular_kind(path: str | Path) -> str | None:
    """What `path` is when it exists but is not a regular file ("a FIFO"); None for a
    regular file, a missing path or a name the system refuses. For messages that should
    say "a FIFO" rather than "no such file"."""
    try:
        mode = os.stat(os.fspath(path)).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


__all__ = ["NotRegularFile", "irregular_kind", "is_regular_file", "kind_of", "open_regular",
           "read_regular"]
