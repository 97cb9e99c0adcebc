"""What every study config shares: the top level (name, description, required keys), name
lists, seeds, and references to domains and novelty files. Which study a file is for and
the shipped listing are in config_files.py, which the command line's help reads alone.

The protocol's experiment configs, the matrix configs and the continual configs are read
through these, so that the three kinds report the same errors at file:line:column in the same
words. A config decides how long a study runs and how much it allocates, so every number has
a range as well as a type (the limits below), every name is one printable line, and a file
name the file system cannot even look up is an error like a missing one: nothing but a
SpecError leaves a loader.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from nesyworld.experiments.config_files import shipped_of_kind
from nesyworld.world.errors import SpecError, shown
from nesyworld.world.spec.bounds import MAX_INT32
from nesyworld.world.spec.loader import resolve_source
from nesyworld.world.spec.reader import SpecReader as Reader
from nesyworld.world.spec.yaml_source import KeyPath, load_yaml_file, load_yaml_text

T = TypeVar("T")

MAX_LIST = 1_000
"""Agents, novelties, scenarios or tasks one config may list."""
MAX_SEEDS = 10_000
"""Seeds of one config (a count or a list): each is at least one whole run."""
MAX_SEED = MAX_INT32
"""The largest seed: every random generator of the project takes it."""
MAX_WORKERS = 1_024
"""Runs at a time."""
MAX_EPISODES = 1_000_000
"""Episodes of an evaluation or of a cell."""
MAX_TEXT = 1_024
"""Characters of a name, a file name or a path template."""

def read_top(rd: Reader, data: Any, keys: dict[str, str], required: tuple[str, ...],
             default_name: str) -> tuple[dict[str, Any], str]:
    """A config's top level, checked against `keys` and `required`, and its name (the file's
    stem unless given); the `description`, if any, must be text."""
    top = rd.mapping(data, (), keys)
    for key in required:
        if key not in top:
            raise rd.fail((), f"missing key '{key}'", expected=keys[key])
    name = read_label(rd, top["name"], ("name",)) if "name" in top else default_name
    if "description" in top:
        rd.string(top["description"], ("description",))
    return top, name


def read_label(rd: Reader, value: Any, path: KeyPath) -> str:
    """A name or file name: non-empty text on one printable line, at most MAX_TEXT long (it
    ends up in tables, records, messages and file names)."""
    text = rd.string(value, path)
    if len(text) > MAX_TEXT or not text.isprintable():
        raise rd.fail(path, "invalid name", found=text,
                      expected=f"a name of at most {MAX_TEXT} printable characters on one line")
    return text


def read_count(rd: Reader, value: Any, path: KeyPath, minimum: int, maximum: int) -> int:
    """An integer in [minimum, maximum] (budgets, episodes, workers)."""
    return rd.integer(value, path, minimum=minimum, maximum=maximum)


def load_config(source: str | Path, kind: str, listing: str, build: Callable[..., T],
                default_name: str) -> T:
    """A config of `kind` from a file path, a shipped config's name, or YAML text, built by
    `build(data, smap, default_name=..., base=...)`; relative files resolve from `base`."""
    shipped = shipped_of_kind(kind)
    try:
        path = resolve_source(source, shipped.get, f"{kind} config",
                              f"{listing} (" + ", ".join(shipped) + ")", shipped)
    except SpecError:
        raise
    except (OSError, ValueError) as err:  # a name the file system cannot look up
        raise SpecError(f"cannot look up {kind} config {shown(str(source))} "
                        f"({type(err).__name__})", expected="a config file, a shipped "
                        "config's name or YAML text") from None
    if path is not None:
        data, smap = load_yaml_file(path)
        return build(data, smap, default_name=path.stem, base=path.parent)
    data, smap = load_yaml_text(str(source), "<string>")
    return build(data, smap, default_name=default_name, base=Path.cwd())


def read_names(rd: Reader, value: Any, path: KeyPath, what: str) -> tuple[str, ...]:
    """A non-empty list of distinct names (a single name is accepted as a list of one)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise rd.fail(path, "wrong type", found=value, expected=f"a non-empty list of {what} "
                      "names")
    if len(items) > MAX_LIST:
        raise rd.fail(path, f"too many {what} names", found=len(items),
                      expected=f"at most {MAX_LIST:,}")
    names = tuple(read_label(rd, v, path if isinstance(value, str) else (*path, i))
                  for i, v in enumerate(items))
    for i, n in enumerate(names):
        if n in names[:i]:
            raise rd.fail((*path, i), f"{what} '{n}' listed twice", found=n,
                          expected=f"each {what} once")
    return names


def read_seeds(rd: Reader, value: Any) -> tuple[int, ...]:
    """`seeds: n` (seeds 0..n-1) or a list of distinct seeds, at most MAX_SEEDS either way
    (a count is a range built in memory, and every seed is a run)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return tuple(range(rd.integer(value, ("seeds",), minimum=1, maximum=MAX_SEEDS)))
    if not isinstance(value, list) or not value:
        raise rd.fail(("seeds",), "wrong type", found=value,
                      expected="a seed count (seeds 0..n-1) or a non-empty list of seeds")
    if len(value) > MAX_SEEDS:
        raise rd.fail(("seeds",), "too many seeds", found=len(value),
                      expected=f"at most {MAX_SEEDS:,}")
    seeds = tuple(rd.integer(s, ("seeds", i), maximum=MAX_SEED) for i, s in enumerate(value))
    seen: set[int] = set()
    for i, s in enumerate(seeds):
        if s in seen:
            raise rd.fail(("seeds", i), f"seed {s} listed twice", found=s,
                          expected="distinct seeds")
        seen.add(s)
    return seeds


def read_domain(rd: Reader, value: Any, base: Path) -> str:
    from nesyworld.domains import find_spec, shipped_specs

    name = read_label(rd, value, ("domain",))
    if lookup(find_spec, name) is not None:
        return name
    found = config_file(name, base)
    if found is None:
        raise rd.fail(("domain",), f"unknown domain '{name}'", found=name,
                      expected="a shipped spec (" + ", ".join(shipped_specs()) + ") or a spec "
                      "file")
    return found


def read_novelty(rd: Reader, name: str, path: KeyPath, base: Path) -> str:
    from nesyworld.domains import find_novelty

    if lookup(find_novelty, name) is not None:
        return name
    found = config_file(name, base)
    if found is None:
        raise rd.fail(path, f"unknown novelty '{name}'", found=name,
                      expected="a shipped novelty (see `nesyworld novelties`) or a novelty "
                      "file")
    return found


def config_file(name: str, base: Path) -> str | None:
    """A file named relative to the config (or the working directory), as an absolute path so
    that workers started elsewhere find it too."""
    for candidate in (base / name, Path(name)):
        try:
            if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
                return str(candidate.resolve())
        except (OSError, ValueError):  # too long, a NUL byte, a loop of links: not a file
            continue
    return None


def lookup(find: Callable[[str], T | None], name: str) -> T | None:
    """`find(name)` (a shipped spec or novelty), or None for a name the file system cannot
    look up (too long, a NUL byte)."""
    try:
        return find(name)
    except (OSError, ValueError):
        return None
