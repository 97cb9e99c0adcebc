"""numba's `njit` when numba is there and wanted, the identity otherwise.

The switch is read once, at import: a kernel compiled in one process must not meet its plain
Python twin in the same call graph, where numba would refuse to call it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def _load_numba() -> ModuleType | None:
    """numba, set up for our kernels; None when it is not installed or is switched off."""
    try:
        if os.environ.get("NESYWORLD_NUMBA", "1").strip().lower() in ("0", "false", "no", "off"):
            raise ImportError("disabled by NESYWORLD_NUMBA")
        import numba

        from nesyworld.world.kernels.cache import install_locators

        install_locators()  # before any kernel is decorated
        from nesyworld.world.kernels.notice import install_compile_notice

        install_compile_notice()  # a compile (not a cache load) says so on stderr
        return numba
    except ImportError:  # not installed, or switched off
        return None


numba = _load_numba()
HAVE_NUMBA = numba is not None


def njit(fn: F | None = None, *, inline: bool = False) -> Any:
    """Compile `fn` in nopython mode (cached on disk, without the GIL) when numba is in use.

    `inline=True` inlines the function into its compiled callers (numba's IR inlining: it
    saves the call, not the reference counting of the arrays passed; see `unmanaged`)."""
    def wrap(f: F) -> F:
        if numba is None:
            return f
        options: dict[str, Any] = {"cache": True, "nogil": True}
        if inline:
            options["inline"] = "always"
        return numba.njit(**options)(f)

    return wrap if fn is None else wrap(fn)


def _unmanaged_python(array: Any) -> Any:
    return array


# the identity without numba; with it, the compiled view below (one name for both, so that
# kernels and their plain Python twins call the same `unmanaged`)
unmanaged: Callable[[Any], Any] = _unmanaged_python
if numba is not None:
    from numba import carray as _carray
    from numba.core import types as _types
    from numba.core.errors import TypingError
    from numba.core.extending import intrinsic

    @intrinsic
    def _data_pointer(typingctx: Any, array: Any) -> Any:
        if not isinstance(array, _types.Array) or array.layout != "C":
            raise TypingError(f"unmanaged() takes a C-contiguous array, got {array}")

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return context.make_array(signature.args[0])(context, builder, args[0]).data

        return _types.CPointer(array.dtype)(array), codegen

    @numba.njit(inline="always", cache=True)
    def _unmanaged_view(array: Any) -> Any:
        """A view of `array` that numba does not reference-count.

        Every compiled call that takes an array, inlined or not, adds and drops a reference
        to it with an atomic operation: a few ns an array, which in a helper that takes a
        dozen arrays and runs per world per action came to several times the work it does.
        A view without a memory record skips that. Only for an entry kernel's arguments,
        which its Python caller keeps alive for the call: never store or return one."""
        # numba passes the typing context itself: the call takes the array alone
        return _carray(_data_pointer(array), array.shape)  # type: ignore[call-arg]

    unmanaged = _unmanaged_view
