"""What the commands check before they start: numbers in range, output paths that can be
written, and the one error type a command raises for a command line it cannot run.

Why before: a seed of -1 used to fail deep in numpy with a traceback, and an output file in a
folder that does not exist used to fail after the run it was meant to keep (a game played by
hand, minutes of training). Numbers are checked by argparse type functions, so a bad one is a
usage error before anything is imported; paths are checked by each command first thing.

Path problems are raised as ``OSError(errno, strerror, path)``, the same as a missing input
file, so `main` prints both as ``nesyworld: error: <path>: <reason>`` with exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
from collections.abc import Callable
from pathlib import Path

from nesyworld.hybrid.seeding.scheme import RUNS, SPAN

WORLD_SEEDS = 1 << 63
"""A world's layout seed is any whole number in 0 .. 2**63 - 1 (numpy refuses negatives)."""
MAX_COUNT = (1 << 31) - 1
"""The largest count of steps, episodes, samples or workers a command takes: far beyond any
run that ends, and small enough for every int32 array a count lands in."""
NAME_MAX, PATH_MAX = 255, 4096
"""Linux's limits on a file name's part and whole, in bytes."""
FIGURE_FORMATS = ("png", "pdf", "svg", "jpg", "jpeg")
MAX_SECONDS = 1e6
"""The longest timeout (about 11 days); larger ones overflow the OS's timers."""


class UsageError(ValueError):
    """A command line a command cannot run (arguments that contradict each other or the
    config); `main` prints it as ``nesyworld: error: <message>`` and exits with status 2.
    Listed in nesyworld.experiments.errors.USER_ERRORS."""


def whole(low: int, high: int, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse type: a whole number in low..high, else a one-line usage error."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} in {low}..{high}, got "
                                             f"{_shown(text)}")
        return value

    parse.__name__ = what
    return parse


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds up to MAX_SECONDS."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_SECONDS:  # also false for nan
        raise argparse.ArgumentTypeError(f"expected seconds in (0, {MAX_SECONDS:g}], got "
                                         f"{_shown(text)}")
    return value


run_seed = whole(0, RUNS - 1, "a run seed")
"""A run seed (nesyworld.hybrid.seeding): it decides the learner's seed and every map."""
world_seed = whole(0, WORLD_SEEDS - 1, "a layout seed")
count = whole(1, MAX_COUNT, "a whole number")
episodes = whole(1, SPAN - 1, "a number of episodes")
"""Episodes of one stream of a run: each gets its own map seed, SPAN of them at most."""
port = whole(0, 65535, "a TCP port")
workers = whole(1, 1024, "a number of workers")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def output_file(path: str | Path, makes_folders: bool = False) -> Path:
    """`path` as a file the command can create or overwrite; ``OSError`` naming the path
    when it cannot. `makes_folders`: the command creates missing parent folders itself, so
    only the nearest existing one must be writable."""
    path = Path(path)
    _check_names(path)
    if path.is_dir():
        raise OSError(errno.EISDIR, "is a folder; expected a file name", str(path))
    if path.exists() and not os.access(path, os.W_OK):
        raise OSError(errno.EACCES, "cannot be overwritten (permission denied)", str(path))
    parent = path.parent
    if makes_folders:
        _creatable(parent, path)
    elif not parent.is_dir():
        raise OSError(errno.ENOENT, f"no folder {parent}; create it first", str(path))
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, f"cannot write in {parent} (permission denied)",
                      str(path))
    return path


def figure_file(path: str | Path) -> Path:
    """`path` as an image file matplotlib writes (its extension names the format, none means
    PNG; matplotlib refuses other extensions, and some need LaTeX or codecs); the checks of
    `output_file` too."""
    ext = os.path.splitext(str(path))[1][1:].lower()
    if ext and ext not in FIGURE_FORMATS:
        raise UsageError(f"{path}: cannot write a .{_shown(ext)[1:-1]} image; expected a "
                         f"name ending in .{', .'.join(FIGURE_FORMATS)}")
    return output_file(path)


def output_dir(path: str | Path) -> Path:
    """`path` as a folder the command creates (with its parents) or writes into; ``OSError``
    naming the path when it cannot."""
    path = Path(path)
    _check_names(path)
    _creatable(path, path)
    return path


def input_dir(path: str | Path) -> Path:
    """`path` as an existing folder to read; ``OSError`` naming it when it is not one."""
    path = Path(path)
    _check_names(path)
    if not path.exists():
        raise OSError(errno.ENOENT, "no such folder", str(path))
    if not path.is_dir():
        raise OSError(errno.ENOTDIR, "not a folder", str(path))
    return path


def _creatable(folder: Path, named: Path) -> None:
    """`folder` exists as a writable folder, or can be made: its nearest existing ancestor is
    a writable folder. Errors name `named`, the path the user gave."""
    probe = folder
    while not probe.exists():
        if probe.is_symlink():  # a dangling link: mkdir would fail on it
            raise OSError(errno.ENOENT, f"{probe} is a broken link", str(named))
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise OSError(errno.ENOTDIR, f"{probe} is a file, not a folder", str(named))
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, f"cannot write in {probe} (permission denied)",
                      str(named))


def _check_names(path: Path) -> None:
    """Names the OS would refuse, as the OS would say it: NUL bytes, text that is not a
    file name in this locale, a part longer than NAME_MAX bytes or the whole than PATH_MAX."""
    text = str(path)
    if "\0" in text:
        raise OSError(errno.EINVAL, "a file name cannot hold a NUL byte",
                      text.replace("\0", "\\0"))
    try:
        encoded = [os.fsencode(part) for part in path.parts]
    except UnicodeEncodeError:
        raise OSError(errno.EILSEQ, "not a valid file name in this locale",
                      text.encode("utf-8", "backslashreplace").decode()) from None
    if any(len(part) > NAME_MAX for part in encoded) or sum(map(len, encoded)) >= PATH_MAX:
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), text)
