"""Compiled kernels shared by the single `World` and the batched core.

Code that must give the same answer one world at a time and N worlds at a time lives here
once: counter-based random draws, map layout, the approach search and the LiDAR reading. With
numba installed (tianshou depends on it) each kernel is compiled on first use and cached on
disk; without it, or with ``NESYWORLD_NUMBA=0``, the same functions run as plain Python on
numpy arrays, slower but with identical results.
"""

from nesyworld.world.kernels.jit import HAVE_NUMBA, njit

__all__ = ["HAVE_NUMBA", "njit"]
