"""The batched core: N copies of one world in stacked arrays, stepped by compiled kernels
(`nesyworld.world.kernels`) with the same results as N single worlds."""

