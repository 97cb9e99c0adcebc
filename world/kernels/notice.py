"""One line on stderr when numba starts compiling our kernels, so a first run does not look hung.

Why: the first batched step of a new install (or after a kernel module changed) compiles every
kernel, about 25 s of CPU for a 256-copy `NesyVectorEnv`, with no output. numba announces each
compile through its event API (``numba.core.event``, kind ``"numba:compile"``); it announces
only real compiles, since a signature found in the on-disk cache is loaded before that event.
The listener speaks once per process, at the first compile of a function of ours.
"""

from __future__ import annotations

import sys
from typing import IO, Any

MESSAGE = ("nesyworld: compiling numba kernels (the simulator's, or the planner's search; once "
           "after an install or an update, up to about 30 s of CPU; later runs load them from "
           "numba's cache)...")
_installed = False


def make_compile_notice(prefix: str = "nesyworld.", stream: IO[str] | None = None) -> Any:
    """A numba event listener that writes MESSAGE (to `stream`, default stderr at the time)
    when the first function from a module named ``prefix...`` starts compiling."""
    from numba.core import event

    class CompileNotice(event.Listener):
        def __init__(self) -> None:
            self.said = False

        def on_start(self, ev: Any) -> None:
            if self.said:
                return
            dispatcher = (ev.data or {}).get("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
            if module.startswith(prefix):
                self.said = True
                print(MESSAGE, file=stream or sys.stderr, flush=True)

        def on_end(self, ev: Any) -> None:
            pass

    return CompileNotice()


def install_compile_notice() -> bool:
    """Register the listener for our kernels, once per process (every module of kernels
    calls this); False when this numba has no event API."""
    global _installed
    if _installed:
        return True
    try:
        from numba.core import event

        event.register("numba:compile", make_compile_notice())
    except (ImportError, AttributeError, ValueError):
        return False
    _installed = True
    return True
