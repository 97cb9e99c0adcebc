"""nesyworld.learning is generic RL: it must not import the world, symbolic or hybrid layers."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import nesyworld.learning

FORBIDDEN = ("nesyworld.world", "nesyworld.symbolic", "nesyworld.hybrid")
PACKAGE_DIR = Path(nesyworld.learning.__file__).parent


def _imports(path: Path) -> list[str]:
    """Absolute module names imported by a source file (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against nesyworld.learning
                base = ["nesyworld", "learning"][: max(0, 2 - (node.level - 1))]
                module = ".".join([*base, *([node.module] if node.module else [])])
                names.append(module)
                names.extend(f"{module}.{alias.name}" for alias in node.names)
            elif node.module:
                names.append(node.module)
                names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_forbidden_imports_in_source() -> None:
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(files) >= 8
    offending = [
        f"{path.name}: {name}"
        for path in files
        for name in _imports(path)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    ]
    assert offending == []


def test_no_forbidden_modules_loaded_at_import() -> None:
    code = (
        "import sys, nesyworld.learning\n"
        f"bad = [m for m in sys.modules if m.startswith({FORBIDDEN!r})]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
