"""The kernels' state, table and region tuples as views numba does not reference-count.

Entry kernels (the ones Python calls) unpack their tuples through these, so that the
helpers they call per world and per action pass plain views around (see
`kernels.jit.unmanaged`). The views live only for the entry kernel's call.
"""

from __future__ import annotations

from nesyworld.world.kernels.jit import njit, unmanaged


@njit(inline=True)
def state_views(S: tuple) -> tuple:
    """`BatchState.arrays()`, in its order."""
    return (unmanaged(S[0]), unmanaged(S[1]), unmanaged(S[2]), unmanaged(S[3]),
            unmanaged(S[4]), unmanaged(S[5]), unmanaged(S[6]), unmanaged(S[7]),
            unmanaged(S[8]), unmanaged(S[9]), unmanaged(S[10]), unmanaged(S[11]),
            unmanaged(S[12]), unmanaged(S[13]))


@njit(inline=True)
def table_views(K: tuple) -> tuple:
    """`kernel_tables(...)`, in its order."""
    return (unmanaged(K[0]), unmanaged(K[1]), unmanaged(K[2]), unmanaged(K[3]),
            unmanaged(K[4]), unmanaged(K[5]), unmanaged(K[6]), unmanaged(K[7]),
            unmanaged(K[8]), unmanaged(K[9]), unmanaged(K[10]), unmanaged(K[11]),
            unmanaged(K[12]), unmanaged(K[13]), unmanaged(K[14]), unmanaged(K[15]),
            unmanaged(K[16]), unmanaged(K[17]))


@njit(inline=True)
def region_views(R: tuple) -> tuple:
    """The mask kernel's region cache: labels, what each region touches, version labelled."""
    return unmanaged(R[0]), unmanaged(R[1]), unmanaged(R[2])
