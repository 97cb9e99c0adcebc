"""Noisy perception: corrupting LiDAR and symbolic-fact observations with probability `noise`.

Open-world agents must cope with sensors that lie now and then, and the NovPhy-style matrix
(experiments/matrix/run.py) crosses that with novelties. What "noise p" means, exactly:

- ``lidar``: each of the 8 x T beam readings (type t, beam b) is, independently with
  probability p, replaced by a reading drawn uniformly from the ones that beam could give on
  this grid: 0 ("nothing of type t on beam b") or k cells away, k = 1..K, at the beam's own
  cell length (1 straight, sqrt 2 diagonal). So a corrupted reading can invent a thing, hide
  one or move it, and it always stays inside the observation space. The inventory and
  selected-item parts are proprioception and stay exact.
- ``facts``: each line is, independently with probability p, corrupted. ``facing(t)`` and
  ``holding(t)`` (always present) then name another type; a count or property line
  (``inventory(t)=n``, ``world(t)=n``, ``on_fire(t)``) is dropped with probability 1/2 and
  otherwise names another type, keeping its value.
- other kinds are exact; asking for noise on them alone is an error (see ObservationConfig).

Every draw comes from the builder's `noise_rng`, which the env replaces with its own seeded
generator (`np_random`) at every reset, so the same seed gives the same noise, and the world's
own random stream (NPC moves, layouts) is never touched: a noisy run sees the same world as an
exact one. Noise 0 installs nothing, so observations are byte-identical to exact ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from nesyworld.world.observations import N_BEAMS, lidar_space_bounds

if TYPE_CHECKING:
    from nesyworld.world.observations.builder import ObservationBuilder

NOISY_KINDS = ("lidar", "facts")
"""Kinds noise is defined for (a "dict" observation gets noise on these entries)."""
ALWAYS_PRESENT = ("facing", "holding")


class LidarNoise:
    """Corrupts the beam part of a LiDAR vector in place (see the module docstring)."""

    def __init__(self, n_types: int, height: int, width: int, noise: float) -> None:
        _, high = lidar_space_bounds(n_types, height, width)
        n = n_types * N_BEAMS
        # reading index = type * 8 + egocentric beam; facing turns by 2 beams, so even
        # egocentric beams are straight and odd ones diagonal, whatever the facing.
        diagonal = (np.arange(n) % N_BEAMS) % 2 == 1
        self.step = np.where(diagonal, math.sqrt(2.0), 1.0)
        self.cells = np.floor(high[:n].astype(np.float64) / self.step + 1e-9).astype(np.int64)
        self.n, self.noise = n, noise

    def __call__(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        hit = rng.random(self.n) < self.noise
        if hit.any():
            k = rng.integers(0, self.cells[hit] + 1)
            obs[: self.n][hit] = (k * self.step[hit]).astype(np.float32)
        return obs


class FactNoise:
    """Corrupts a newline-separated fact text (see the module docstring)."""

    def __init__(self, type_names: tuple[str, ...], noise: float) -> None:
        self.names, self.noise = type_names, noise

    def __call__(self, text: str, rng: np.random.Generator) -> str:
        lines = text.split("\n")
        draws = rng.random(len(lines))
        out = []
        for line, u in zip(lines, draws, strict=True):
            if u >= self.noise:
                out.append(line)
                continue
            pred, rest = line.split("(", 1)
            arg, tail = rest.split(")", 1)
            if pred not in ALWAYS_PRESENT and u < self.noise / 2:
                continue  # dropped
            out.append(f"{pred}({self._other(arg, rng)}){tail}")
        return "\n".join(out)

    def _other(self, name: str, rng: np.random.Generator) -> str:
        others = [n for n in self.names if n != name]
        return others[int(rng.integers(len(others)))] if others else name


def effective_noise(builder: ObservationBuilder) -> float:
    """The config's noise when it sets one, else the spec's `observation: {noise}`."""
    explicit = builder.config.noise
    return float(explicit if explicit is not None else builder.world.spec.observation_noise)


def install_noise(builder: ObservationBuilder) -> None:
    """Wrap `builder.build` so its LiDAR and facts parts are noisy; nothing at noise 0."""
    noise = effective_noise(builder)
    builder.noise = noise
    if noise <= 0.0:
        return
    kind = builder.config.kind
    kinds = builder.config.dict_kinds if kind == "dict" else (kind,)
    if builder.config.noise is not None and not set(kinds) & set(NOISY_KINDS):
        raise ValueError(f"observation noise is defined for {' and '.join(NOISY_KINDS)} "
                         f"observations, not {kind!r}")
    h, w = builder.shape
    parts: dict[str, Callable[[Any, np.random.Generator], Any]] = {
        "lidar": LidarNoise(builder.n_types, h, w, noise),
        "facts": FactNoise(tuple(builder.world.types.names), noise),
    }
    exact = builder.build
    if kind == "dict":
        noisy = {k: parts[k] for k in kinds if k in parts}

        def build_dict() -> dict[str, Any]:
            obs = exact()
            for key, corrupt in noisy.items():
                obs[key] = corrupt(obs[key], builder.noise_rng)
            return obs

        builder.build = build_dict
    elif kind in parts:
        corrupt = parts[kind]
        builder.build = lambda: corrupt(exact(), builder.noise_rng)
