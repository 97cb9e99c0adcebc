"""The two timers the benchmarks share. Both take the least disturbed measurement, since our
machines are shared: the best single call, or the best of three batches of a cheap call."""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    """Least time of `repeat` calls: the run least disturbed by other processes."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def mean_time(fn: Callable[[], Any], number: int) -> float:
    """Mean time of a very cheap call, best of three batches."""
    return min(timeit.repeat(fn, number=number, repeat=3)) / number
