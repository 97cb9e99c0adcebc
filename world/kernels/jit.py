"""numba's `njit` when numba is there and wanted, the identity otherwise.

The switch is read once, at import: a kernel compiled in one process must not meet its plain
Python twin in the same call graph, where numba would refuse to call it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

try:
    if os.environ.get("NESYWORLD_NUMBA", "1").strip().lower() in ("0", "false", "no", "off"):
        raise ImportError("disabled by NESYWORLD_NUMBA")
    import numba

    HAVE_NUMBA = True
except ImportError:  # not installed, or switched off
    numba = None
    HAVE_NUMBA = False


def njit(fn: F | None = None, *, inline: bool = False) -> Any:
    """Compile `fn` in nopython mode (cached on disk, without the GIL) when numba is in use.

    `inline=True` inlines the function into its compiled callers. Kernels pass the stacked
    state around as tuples of arrays, and a real call takes a reference to every array in
    them and drops it again on return, which cost more than the work in small helpers."""
    def wrap(f: F) -> F:
        if numba is None:
            return f
        options: dict[str, Any] = {"cache": True, "nogil": True}
        if inline:
            options["inline"] = "always"
        return numba.njit(**options)(f)  # type: ignore[no-any-return]

    return wrap if fn is None else wrap(fn)
