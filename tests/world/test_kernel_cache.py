"""numba's cache for the kernels: one stamp over every kernel module, so an edit to a helper
recompiles the entry kernels that inline it (numba alone stamps each file by itself)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from nesyworld.world.kernels import HAVE_NUMBA
from nesyworld.world.kernels.cache import KERNEL_SOURCES, source_stamp

KERNEL_MODULES = ("nesyworld.world.kernels.keys", "nesyworld.world.kernels.layout",
                  "nesyworld.world.kernels.jit", "nesyworld.world.batch.dynamics",
                  "nesyworld.world.batch.masks", "nesyworld.world.batch.observe",
                  "nesyworld.world.batch.state", "nesyworld.world.batch.advance",
                  "nesyworld.world.batch.views")


def test_the_stamp_covers_every_kernel_module() -> None:
    names = {p.name for p in KERNEL_SOURCES}
    assert {"dynamics.py", "masks.py", "advance.py", "layout.py", "keys.py",
            "controllers.py"} <= names


def test_any_changed_file_changes_the_stamp(tmp_path: Path) -> None:
    files = [tmp_path / f"m{i}.py" for i in range(3)]
    for i, f in enumerate(files):
        f.write_text(f"X = {i}\n")
    before = source_stamp(files)
    assert source_stamp(files) == before
    files[2].write_text("X = 3\n")  # a helper's module, not the entry kernel's
    assert source_stamp(files) != before


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not in use")
def test_every_kernel_is_cached_under_the_shared_stamp() -> None:
    from numba.core.registry import CPUDispatcher

    kernels = [obj for name in KERNEL_MODULES
               for obj in vars(importlib.import_module(name)).values()
               if isinstance(obj, CPUDispatcher)]
    assert len(kernels) >= 20
    for kernel in kernels:
        locator = kernel._cache._impl.locator
        assert getattr(locator, "stamps_all_kernels", False), kernel
        assert locator.get_source_stamp() == source_stamp(KERNEL_SOURCES)
