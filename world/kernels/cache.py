"""numba's on-disk cache for our kernels, invalidated when any kernel module changes.

numba stamps a cached function with the hash of its own source file only. Our kernels
inline helpers and freeze constants from other modules (an entry kernel in advance.py runs
code from dynamics.py, masks.py, layout.py...), so after an edit, a `git checkout` or an
upgrade that changes only a helper's file, numba would load the old machine code for the
unchanged entry file, silently. Here every kernel is stamped with the hash of all the
modules kernels are built from, so any change there recompiles them all.

This uses numba's cache-locator classes (`numba.core.caching`), which are not a documented
API: if they are missing (another numba), the kernels keep numba's own stamps.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_WORLD = Path(__file__).resolve().parent.parent
KERNEL_SOURCES: tuple[Path, ...] = tuple(sorted(
    [*(_WORLD / "kernels").glob("*.py"), *(_WORLD / "batch").glob("*.py"),
     _WORLD / "entities" / "controllers.py"]))
"""The modules kernels are compiled from or read constants of."""


def source_stamp(files: Iterable[Path]) -> bytes:
    """One hash of the contents of `files` (in the order given)."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.digest()


_stamp: list[bytes] = []  # computed once per process, on the first cache lookup


def _kernels_stamp() -> bytes:
    if not _stamp:
        _stamp.append(source_stamp(KERNEL_SOURCES))
    return _stamp[0]


def install_locators() -> bool:
    """Put our locators before numba's own; False when numba has no such classes."""
    try:
        from numba.core import caching
    except ImportError:
        return False
    found = [getattr(caching, n, None) for n in
             ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")]
    bases = [base for base in found if isinstance(base, type)]
    impl = getattr(caching, "CacheImpl", None)
    if impl is None or len(bases) < len(found) or not isinstance(
            getattr(impl, "_locator_classes", None), list):
        return False
    if any(getattr(c, "stamps_all_kernels", False) for c in impl._locator_classes):
        return True
    ours = {str(p) for p in KERNEL_SOURCES}

    def from_function(cls: Any, py_func: Any, py_file: str) -> Any:
        if os.path.realpath(py_file) not in ours:
            return None
        return super(cls, cls).from_function(py_func, py_file)

    locators = [type(f"Kernel{base.__name__}", (base,), {
        "stamps_all_kernels": True,
        "from_function": classmethod(from_function),
        "get_source_stamp": lambda self: _kernels_stamp(),
    }) for base in bases]
    impl._locator_classes[:0] = locators
    return True
