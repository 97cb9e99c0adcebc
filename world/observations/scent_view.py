"""Scent: a non-visual channel that says what is around without saying where (Jelly Bean
World, eq. 2).

Every cell's scent is what stands there now plus a decayed share of its own scent a step ago
and a diffused share of its four neighbours':

    S_t(x) = C_t(x) + decay * S_{t-1}(x) + diffusion * sum of S_{t-1} over x's 4 neighbours

Cells past the map's edge smell of nothing. The agent reads S at its own cell: a vector with
one entry per scent dimension, strongest near its sources and fading with distance, so an
agent with memory can climb it toward things it cannot see. It passes through walls, as in
the paper, so it can also lead an agent to the wrong side of one.

Pure numpy over the plain state layout (a grid of type ids); `ScentTracker` keeps one field
in step with a running world by reading its `state` (duck-typed, nothing imported from the
simulator).
"""

from __future__ import annotations

from typing import Any

import numpy as np

SOLVE_MAX_CELLS = 2500  # maps up to this many cells settle by one precomputed linear solve


class ScentField:
    """One scent field over an H x W map, for sources given per type id."""

    def __init__(self, sources: np.ndarray, decay: float, diffusion: float,
                 shape: tuple[int, int]) -> None:
        if decay < 0 or diffusion < 0 or decay + 4 * diffusion >= 1:
            raise ValueError(f"unstable scent: decay + 4 x diffusion = "
                             f"{decay + 4 * diffusion:g}; expected < 1 with both >= 0")
        self.sources = np.asarray(sources, np.float64)  # (T, D)
        self.decay, self.diffusion, self.shape = decay, diffusion, shape
        self.values = np.zeros((*shape, self.sources.shape[1]), np.float64)
        self._settle_matrix: np.ndarray | None = None

    @property
    def bound(self) -> float:
        """No entry ever exceeds this (the largest source times 1 / (1 - decay - 4 diffusion)),
        starting from zero or from the settled field."""
        top = float(self.sources.max(initial=0.0))
        return top / (1.0 - self.decay - 4.0 * self.diffusion)

    def emitted(self, grid: np.ndarray) -> np.ndarray:
        """C_t: what the things on each cell give off, (H, W, D)."""
        return self.sources[grid]

    def step(self, grid: np.ndarray) -> None:
        """One time step of the difference equation."""
        s = self.values
        around = np.zeros_like(s)
        around[1:] += s[:-1]
        around[:-1] += s[1:]
        around[:, 1:] += s[:, :-1]
        around[:, :-1] += s[:, 1:]
        self.values = self.emitted(grid) + self.decay * s + self.diffusion * around

    def settle(self, grid: np.ndarray) -> None:
        """The field the equation converges to if `grid` stayed as it is: what a map whose
        things have been there for ever smells like at the start of an episode."""
        h, w = self.shape
        c = self.emitted(grid).reshape(h * w, -1)
        if h * w <= SOLVE_MAX_CELLS:
            if self._settle_matrix is None:  # (I - decay I - diffusion A)^-1: shape only
                a = np.zeros((h * w, h * w))
                idx = np.arange(h * w).reshape(h, w)
                for x, y in ((idx[1:], idx[:-1]), (idx[:, 1:], idx[:, :-1])):
                    a[x.ravel(), y.ravel()] = a[y.ravel(), x.ravel()] = 1.0
                m = (1.0 - self.decay) * np.eye(h * w) - self.diffusion * a
                self._settle_matrix = np.linalg.inv(m)
            self.values = (self._settle_matrix @ c).reshape(h, w, -1)
            return
        self.values = np.zeros_like(self.values)  # large maps: iterate to a fixed point
        for _ in range(5000):
            before = self.values
            self.step(grid)
            if np.abs(self.values - before).max(initial=0.0) <= 1e-9 * max(self.bound, 1.0):
                return

    def at(self, r: int, c: int) -> np.ndarray:
        return self.values[r, c]


class ScentTracker:
    """Keeps a `ScentField` in step with a running world: settled when an episode starts (or
    a snapshot is restored), then one equation step for every world step since it last
    looked. Observing twice at the same step changes nothing."""

    def __init__(self, world: Any, sources: np.ndarray, decay: float, diffusion: float
                 ) -> None:
        self.world = world
        rows, columns = world.state.grid.shape
        self.field = ScentField(sources, decay, diffusion, (int(rows), int(columns)))
        self._state: Any = None
        self._step = 0

    def sync(self) -> ScentField:
        st = self.world.state
        step = int(st.step)
        if st is not self._state or step < self._step:
            self.field.settle(st.grid)
        else:
            for _ in range(step - self._step):
                self.field.step(st.grid)
        self._state, self._step = st, step
        return self.field

    def observe(self, agent: int) -> np.ndarray:
        """The scent vector at the agent's cell, float32, clipped to the field's bound."""
        field = self.sync()
        pos = self.world.state.pos
        v = field.at(int(pos[agent, 0]), int(pos[agent, 1]))
        return np.clip(v, 0.0, field.bound).astype(np.float32)


def scent_sources(type_names: tuple[str, ...], vectors: dict[str, tuple[float, ...]] | Any,
                  dims: int) -> np.ndarray:
    """The (T, D) table of what each type id gives off; types without a vector give nothing."""
    table = np.zeros((len(type_names), dims), np.float64)
    for i, name in enumerate(type_names):
        if name in vectors:
            table[i] = vectors[name]
    return table


def scent_observation(world: Any, agent: int) -> tuple[Any, Any]:
    """The "scent" observation kind: a float32 Box of the spec's scent dimensions, bounded by
    the field's bound, and the function that reads it. A spec without scent has the paper's
    three dimensions and no sources: it observes zeros."""
    from gymnasium import spaces

    from nesyworld.world.spec.scent import ScentSpec

    spec = world.spec.scent or ScentSpec()
    sources = scent_sources(world.types.names, spec.vectors, spec.dims)
    tracker = ScentTracker(world, sources, spec.decay, spec.diffusion)
    high = np.float32(tracker.field.bound or 1.0)
    space = spaces.Box(np.float32(0.0), high, (spec.dims,), np.float32)
    return space, lambda: tracker.observe(agent)
