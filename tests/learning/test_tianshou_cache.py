"""tianshou's numba functions get numba's disk cache, so a new process loads rather than
compiles them (about 8-10 s of CPU saved per process: learning/algorithms/tianshou_cache.py)."""

from __future__ import annotations

import subprocess
import sys


def test_importing_learning_turns_the_cache_on_before_tianshou_compiles() -> None:
    code = ("import nesyworld.learning\n"
            "import tianshou.algorithm.algorithm_base as ab\n"
            "ab.Policy._compile()\n"  # what tianshou runs when a policy is made
            "print(ab._gae.stats.cache_path is not None)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[-1] == "True"


def test_functions_compiled_before_the_import_are_left_alone() -> None:
    code = ("import tianshou.algorithm.algorithm_base as ab\n"
            "ab.Policy._compile()\n"
            "from nesyworld.learning.algorithms.tianshou_cache import cache_tianshou_kernels\n"
            "print(sorted(n.rsplit('.', 1)[1] for n in cache_tianshou_kernels()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1]
    assert "_gae" not in out and "_nstep_return" not in out
