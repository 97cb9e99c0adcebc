"""The first compile of the kernels says so on stderr (one line), a load from numba's cache
says nothing: a first batched step compiles for about half a minute and must not look hung."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nesyworld.world.kernels import HAVE_NUMBA
from nesyworld.world.kernels.notice import MESSAGE, make_compile_notice

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not in use")


def test_one_line_at_the_first_compile_of_our_functions_only() -> None:
    import numba
    from numba.core import event

    out = io.StringIO()
    listener = make_compile_notice(prefix=__name__, stream=out)
    event.register("numba:compile", listener)
    try:
        @numba.njit(cache=False)
        def plus_one(x: int) -> int:
            return x + 1

        assert out.getvalue() == ""  # decorating compiles nothing
        plus_one(1)
        plus_one(1.5)  # a second signature compiles again, silently
        assert out.getvalue() == MESSAGE + "\n"
    finally:
        event.unregister("numba:compile", listener)

    other = io.StringIO()
    listener = make_compile_notice(prefix="some.other.package", stream=other)
    event.register("numba:compile", listener)
    try:
        @numba.njit(cache=False)
        def plus_two(x: int) -> int:
            return x + 2

        plus_two(1)
        assert other.getvalue() == ""
    finally:
        event.unregister("numba:compile", listener)


def test_a_compile_speaks_and_a_cache_load_does_not(tmp_path: Path) -> None:
    code = "from nesyworld.world.kernels.keys import mix\nprint(mix(3, 4))\n"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: a compile

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env=env)

    first, second = run(), run()
    assert first.stderr.count(MESSAGE) == 1 and first.stdout == second.stdout
    assert MESSAGE not in second.stderr  # loaded from the cache just written
