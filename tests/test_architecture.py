"""The shape of the code: one-way layers, no private names across modules, subpackages whose
exports resolve, and a light public facade (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("world", "symbolic", "learning", "hybrid", "domains", "experiments")
MAY_IMPORT = {
    "world": {"world", "domains"},  # domains: shipped spec files found by name
    "domains": {"domains", "world"},
    "symbolic": {"symbolic", "world", "domains"},
    "learning": {"learning"},
    "hybrid": {"hybrid", "symbolic", "world", "learning", "domains"},
    "experiments": set(LAYERS),
}
# File names that several subpackages use for the same role: each study kind has its config,
# run, metrics, agents and report; each file format (spec YAML, PDDL, recordings) its reader,
# writer and located errors; the batched core and the kernels mirror the single world's state
# and layout; the lifelong spec section has its batched counterpart.
PARALLEL_ROLES = {"__init__.py", "__main__.py", "config.py", "run.py", "report.py",
                  "metrics.py", "agents.py", "reader.py", "writer.py", "errors.py",
                  "state.py", "layout.py", "lifelong.py", "host.py"}


def source_files(*folders: str) -> list[Path]:
    files = [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))]
    return [p for p in files if "__pycache__" not in p.parts]


def imported_modules(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every absolute nesyworld import in a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name, []) for a in node.names)
    return [(line, mod, names) for line, mod, names in out
            if mod == "nesyworld" or mod.startswith("nesyworld.")]


def test_layers_import_one_way() -> None:
    offending = []
    for layer in LAYERS:
        for path in source_files(layer):
            if path.is_relative_to(ROOT / "experiments" / "facade"):
                continue  # the facade is the package `nesyworld` itself, above every layer
            for line, module, _ in imported_modules(path):
                parts = module.split(".")
                target = parts[1] if len(parts) > 1 else "nesyworld"
                if target not in MAY_IMPORT[layer]:
                    offending.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    assert offending == []


def test_no_private_name_is_imported_from_another_module() -> None:
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {module}.{name}"
        for path in source_files(*LAYERS, "tests")
        for line, module, names in imported_modules(path)
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    offending += [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in source_files(*LAYERS, "tests")
        for line, module, _ in imported_modules(path)
        if any(part.startswith("_") and not part.startswith("__") for part in module.split("."))
    ]
    assert offending == []


def test_module_file_names_repeat_only_for_parallel_roles() -> None:
    names = Counter(p.name for p in source_files(*LAYERS))
    repeated = {name for name, n in names.items() if n > 1} - PARALLEL_ROLES
    assert repeated == set()


def every_package() -> list[str]:
    out = []
    for layer in ("world", "symbolic", "learning", "hybrid", "experiments"):
        pkg = importlib.import_module(f"nesyworld.{layer}")
        out.append(pkg.__name__)
        out += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
                if m.ispkg and not m.name.endswith(".facade")]  # facade: `nesyworld` itself
    return out


@pytest.mark.parametrize("package", every_package())
def test_subpackage_exports_resolve(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__doc__, f"{package} says what it is for"
    missing = [n for n in getattr(module, "__all__", []) if not hasattr(module, n)]
    assert missing == []


def run_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout.strip()


def test_facade_is_light_and_complete() -> None:
    """`import nesyworld` loads no learner, compiler or planner; every name it lists loads."""
    out = run_python(
        "import sys, nesyworld\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'tianshou', "
        "'numba', 'ray', 'unified_planning'})\n"
        "missing = [n for n in nesyworld.__all__ if not hasattr(nesyworld, n)]\n"
        "print(heavy, missing)\n")
    assert out == "[] []"


def test_facade_names_the_api_the_readme_promises() -> None:
    import nesyworld

    for name in ("make", "make_vec", "make_aec", "World", "load_spec", "derive", "Planner",
                 "KnowledgeBase", "PlanningAgent", "HybridAgent", "RandomAgent", "RLAgent"):
        assert name in nesyworld.__all__
    assert (Path(nesyworld.__file__).parent / "py.typed").is_file()


def test_every_package_folder_is_installed() -> None:
    """A folder with an `__init__.py` that pyproject.toml does not list is left out of the
    wheel (setuptools maps each package by `package-dir`): the checkout imports it, a fresh
    install does not."""
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {name: (ROOT / folder).resolve()
              for name, folder in setuptools["package-dir"].items()}
    listed = set(setuptools["packages"])
    folders = {init.parent.resolve()
               for layer in LAYERS
               for init in (ROOT / layer).rglob("__init__.py")}
    unmapped = sorted(str(f.relative_to(ROOT)) for f in folders - set(mapped.values()))
    assert unmapped == []
    assert set(mapped) == listed
