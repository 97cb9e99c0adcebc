"""What every study config shares: which study a file is for, the shipped listing, the top
level (name, description, required keys), name lists, seeds, and references to domains and
novelty files.

The protocol's experiment configs, the matrix configs and the continual configs are read
through these, so that the three kinds report the same errors at file:line:column in the same
words.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from nesyworld.world.spec.loader import resolve_source
from nesyworld.world.spec.reader import SpecReader as Reader
from nesyworld.world.spec.yaml_source import KeyPath, load_yaml_file, load_yaml_text

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
"""The shipped configs of every kind (named by their stem on the command line)."""

T = TypeVar("T")

CONFIG_KINDS = (("scenarios", "matrix"), ("tasks", "continual"))
"""The configs beside ours that other commands run, by the top-level key that marks them
(`nesyworld matrix`, `nesyworld continual`); every other file is a protocol experiment."""


def config_kind(path: Path) -> str:
    """'matrix', 'continual' or 'experiment': which command a config file is for."""
    text = "\n" + path.read_text(encoding="utf-8")
    return next((kind for key, kind in CONFIG_KINDS if f"\n{key}:" in text), "experiment")


def shipped_of_kind(kind: str) -> dict[str, Path]:
    """Shipped configs of one kind by name."""
    return {p.stem: p for p in sorted(CONFIGS_DIR.glob("*.yaml")) if config_kind(p) == kind}


def read_top(rd: Reader, data: Any, keys: dict[str, str], required: tuple[str, ...],
             default_name: str) -> tuple[dict[str, Any], str]:
    """A config's top level, checked against `keys` and `required`, and its name (the file's
    stem unless given); the `description`, if any, must be text."""
    top = rd.mapping(data, (), keys)
    for key in required:
        if key not in top:
            raise rd.fail((), f"missing key '{key}'", expected=keys[key])
    name = rd.string(top["name"], ("name",)) if "name" in top else default_name
    if "description" in top:
        rd.string(top["description"], ("description",))
    return top, name


def load_config(source: str | Path, kind: str, listing: str, build: Callable[..., T],
                default_name: str) -> T:
    """A config of `kind` from a file path, a shipped config's name, or YAML text, built by
    `build(data, smap, default_name=..., base=...)`; relative files resolve from `base`."""
    shipped = shipped_of_kind(kind)
    path = resolve_source(source, shipped.get, f"{kind} config",
                          f"{listing} (" + ", ".join(shipped) + ")")
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
    names = tuple(rd.string(v, path if isinstance(value, str) else (*path, i))
                  for i, v in enumerate(items))
    for i, n in enumerate(names):
        if n in names[:i]:
            raise rd.fail((*path, i), f"{what} '{n}' listed twice", found=n,
                          expected=f"each {what} once")
    return names


def read_seeds(rd: Reader, value: Any) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return tuple(range(rd.integer(value, ("seeds",), minimum=1)))
    if not isinstance(value, list) or not value:
        raise rd.fail(("seeds",), "wrong type", found=value,
                      expected="a seed count (seeds 0..n-1) or a non-empty list of seeds")
    seeds = tuple(rd.integer(s, ("seeds", i)) for i, s in enumerate(value))
    for i, s in enumerate(seeds):
        if s in seeds[:i]:
            raise rd.fail(("seeds", i), f"seed {s} listed twice", found=s,
                          expected="distinct seeds")
    return seeds


def read_domain(rd: Reader, value: Any, base: Path) -> str:
    from nesyworld.domains import find_spec, shipped_specs

    name = rd.string(value, ("domain",))
    if find_spec(name) is not None:
        return name
    found = config_file(name, base)
    if found is None:
        raise rd.fail(("domain",), f"unknown domain '{name}'", found=name,
                      expected="a shipped spec (" + ", ".join(shipped_specs()) + ") or a spec "
                      "file")
    return found


def read_novelty(rd: Reader, name: str, path: KeyPath, base: Path) -> str:
    from nesyworld.domains import find_novelty

    if find_novelty(name) is not None:
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
        if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
            return str(candidate.resolve())
    return None
