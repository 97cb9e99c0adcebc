"""tianshou's numba functions, cached on disk like ours.

Why: tianshou 2 compiles five numba functions (GAE, n-step and Monte-Carlo returns, the replay
buffer's index walks) in every new process, when the first policy or vector buffer is made,
and without numba's on-disk cache: about 8-10 s of CPU before any training, in every run,
every sweep worker and every test process. Turning numba's cache on for those dispatchers
before their first compile (numba's own `Dispatcher.enable_caching`, what `cache=True` does)
makes every later process load them instead (under a second).
"""

from __future__ import annotations

import importlib

MODULES = ("tianshou.algorithm.algorithm_base", "tianshou.data.buffer.manager")
"""tianshou's modules whose module-level functions numba compiles without a cache."""


def cache_tianshou_kernels() -> list[str]:
    """Turn numba's disk cache on for tianshou's not yet compiled functions; their names.

    A tianshou release that moves or drops them leaves the rest as they were: this only
    saves time, it changes no result."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:
        return []
    cached = []
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr, value in vars(module).items():
            if isinstance(value, Dispatcher) and not value.signatures:
                value.enable_caching()
                cached.append(f"{name}.{attr}")
    return cached
