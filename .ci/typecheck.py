"""Type-check the package `nesyworld` with mypy, as installed rather than as laid out on disk.

Why a script: the repository's folders become the subpackages of `nesyworld` only through
setuptools' `[tool.setuptools.package-dir]` in pyproject.toml (`experiments/facade/` is
`nesyworld` itself, `world/` is `nesyworld.world`, ...), and mypy cannot follow that mapping
from the source tree, nor through an editable install's import hook. So this script reads the
mapping from pyproject.toml (nothing is listed here, so it cannot drift), lays out a tree of
symlinks in which every package sits at its import path, one symlink per module file, runs
`python -m mypy` on it with the `[tool.mypy]` settings of pyproject.toml, and prints mypy's
messages with the repository's real paths, so an editor or a reader can jump to them.

The tree and mypy's cache live in `.mypy_cache/` at the repository root, at a fixed place, so a
second run reuses the cache (a run from a fresh clone, as in CI, is a cold one).

Usage: `python .ci/typecheck.py [extra mypy arguments]`; the exit code is mypy's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: mypy itself depends on tomli there, so it is installed with mypy
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
CACHE = ROOT / ".mypy_cache"
TREE = CACHE / "package-tree"
# the files of a package folder that belong to the installed package (subfolders are their own
# packages, mapped by their own package-dir entries)
MODULE_SUFFIXES = (".py", ".pyi")


def package_dirs(pyproject: Path = PYPROJECT) -> dict[str, Path]:
    """Import name -> source folder, as `[tool.setuptools.package-dir]` maps them."""
    with pyproject.open("rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: (pyproject.parent / folder).resolve() for name, folder in mapping.items()}


def build_tree(packages: dict[str, Path], tree: Path = TREE) -> dict[str, Path]:
    """Lay out `tree` so that each package sits at its import path, and return each symlink's
    path (relative to `tree`, as mypy prints it) -> the real file, relative to the repository.

    Only a package's own module files are linked, not its subfolders: a subfolder is in the
    installed package only when package-dir maps it, exactly as setuptools builds the wheel.
    """
    if tree.exists():
        shutil.rmtree(tree)
    links: dict[str, Path] = {}
    for name, folder in sorted(packages.items()):
        if not (folder / "__init__.py").is_file():
            raise SystemExit(f"{PYPROJECT}: package {name!r} maps to {folder}, "
                             "which has no __init__.py")
        target = tree.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for source in sorted(folder.iterdir()):
            if source.is_file() and (source.suffix in MODULE_SUFFIXES
                                     or source.name == "py.typed"):
                link = target / source.name
                link.symlink_to(source)
                links[link.relative_to(tree).as_posix()] = source.relative_to(ROOT)
    return links


def real_paths(line: str, links: dict[str, Path]) -> str:
    """A mypy message with the symlink's path replaced by the repository's real one."""
    match = re.match(r"([^:\s]+\.pyi?)(?=:)", line)
    if match and match.group(1) in links:
        return links[match.group(1)].as_posix() + line[match.end():]
    return line


def main(argv: list[str]) -> int:
    packages = package_dirs()
    links = build_tree(packages)
    top = sorted({name.split(".")[0] for name in packages})
    command = [sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT),
               "--cache-dir", str(CACHE), *argv]
    for name in top:
        command += ["-p", name]
    # mypy finds the packages on MYPYPATH, ahead of site-packages, where an editable install
    # of nesyworld is only an import hook mypy cannot read
    env = {**os.environ, "MYPYPATH": str(TREE)}
    result = subprocess.run(command, cwd=TREE, env=env, capture_output=True, text=True)
    for line in result.stdout.splitlines():
        print(real_paths(line, links))
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
