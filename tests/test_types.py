"""The package type-checks: mypy, with the settings of pyproject.toml's `[tool.mypy]`, reports
no error on `nesyworld` as installed (`.ci/typecheck.py` lays the package-dir mapping out for
it), and every `# type: ignore` left in the package names its error code and is still needed.

A test rather than a step of CI's command of its own: mypy checks on one core, so beside the
other tests on `pytest -n auto` it costs the suite about half its time instead of all of it
(see docs/ARCHITECTURE.md, the decisions)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "typecheck.py"
TIMEOUT = 900  # seconds; a cold check takes about a minute on a busy 2-core machine
SHOWN = 8000  # characters of mypy's report shown in a failure


def _typecheck_module() -> Any:
    spec = importlib.util.spec_from_file_location("typecheck", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_package_type_checks() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                            timeout=TIMEOUT, cwd=ROOT)
    report = (result.stdout + result.stderr)[-SHOWN:]
    assert result.returncode == 0, f"mypy found errors (python .ci/typecheck.py):\n{report}"
    assert "no issues found" in result.stdout, report


def test_the_tree_maps_every_package_to_its_folder(tmp_path: Path) -> None:
    typecheck = _typecheck_module()
    packages = typecheck.package_dirs()
    assert packages["nesyworld"] == ROOT / "experiments" / "facade"
    links = typecheck.build_tree(packages, tmp_path)
    assert links["nesyworld/__init__.py"] == Path("experiments/facade/__init__.py")
    assert links["nesyworld/world/simulation/world.py"] == Path("world/simulation/world.py")
    # a folder that package-dir does not map is not a package of the tree
    assert not (tmp_path / "nesyworld" / "experiments" / "facade").exists()
    for link, real in links.items():
        assert (tmp_path / link).resolve() == (ROOT / real).resolve()
    line = "nesyworld/world/envs/gym_env.py:12: error: something  [misc]"
    assert typecheck.real_paths(line, links) == (
        "world/envs/gym_env.py:12: error: something  [misc]")
