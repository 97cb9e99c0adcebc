"""Counter-based random draws: a number is a hash of where it is used, not the next output of
a generator.

NPC moves and map layouts draw this way so that N worlds can draw in one compiled loop, and a
world restored from a snapshot draws exactly as it did (the draw at step t depends on the
episode key and t alone, not on how many draws came before). Each episode gets a 32-bit key
from the world's seed stream and its reset count; everything else is hashed from the key.

The hash is murmur3's 32-bit finaliser over Python or numba int64 arithmetic: every product
is masked back to 32 bits, so it gives the same bits in both and never overflows a Python int
into numpy warnings.
"""

from __future__ import annotations

import numpy as np

from nesyworld.world.kernels.jit import njit

M32 = 0xFFFFFFFF
INV_2_32 = 1.0 / 4294967296.0

# what a draw is for: keeps streams that share counters apart
TAG_EPISODE = 0x1B873593
TAG_PLACE = 0x2C1B3C6D
TAG_AGENT_CELL = 0x297A2D39
TAG_AGENT_FACING = 0x3A8F05C5
TAG_NPC = 0x5BD1E995


@njit
def mix(h: int, x: int) -> int:
    """Fold `x` into the 32-bit hash state `h` (both non-negative, `x` below 2**32)."""
    h = (int(h) ^ ((int(x) * 0x9E3779B1) & M32)) & M32
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    h ^= h >> 16
    return h


@njit
def mix3(h: int, a: int, b: int, c: int) -> int:
    return mix(mix(mix(h, a), b), c)


@njit
def npc_uniform(key: int, step: int, agent: int, k: int) -> float:
    """The k-th uniform draw in [0, 1) of an NPC controller at a step of an episode."""
    return mix(mix3(key, TAG_NPC, step, agent), k) * INV_2_32


def stream_of(seed: int | None) -> int:
    """The 32-bit seed stream of a world: from the seed, or from OS entropy for None."""
    return int(np.random.SeedSequence(seed).generate_state(1, np.uint32)[0])


@njit
def episode_key(stream: int, index: int) -> int:
    """The key of the `index`-th episode since the world was seeded (0: the first)."""
    return mix3(stream, TAG_EPISODE, index & M32, index >> 32)
