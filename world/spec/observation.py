"""The `observation:` section of a world spec or an experiment config.

It says how the world is *perceived*, not how it behaves, so it lives apart from the dynamics
sections: today only `noise`, the probability that each sensed reading is corrupted (see
`nesyworld.world.observations.noise` for exactly what that means per observation kind).

    observation:
      noise: 0.2          # a number between 0 and 1; 0 (the default) is exact observation

Both the spec loader and the experiment configs parse it here, with the loader's located
reader, so a bad value is reported as file:line:column in either kind of file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.world.spec.reader import SpecReader
    from nesyworld.world.spec.yaml_source import KeyPath

OBSERVATION_KEYS = {
    "noise": "the probability that each sensed reading is corrupted (0 to 1)",
}
NOISE_EXPECTED = "a number between 0 and 1"


@dataclass(frozen=True)
class ObservationSection:
    """What an `observation:` section holds once validated."""

    noise: float = 0.0


def parse_observation(rd: SpecReader, raw: Any, path: KeyPath = ("observation",)
                      ) -> ObservationSection:
    """The section at `path` (None or absent: the defaults), every error located."""
    if raw is None:
        return ObservationSection()
    data = rd.mapping(raw, path, OBSERVATION_KEYS)
    noise = 0.0
    if "noise" in data:
        noise = parse_noise(rd, data["noise"], (*path, "noise"))
    return ObservationSection(noise=noise)


def parse_noise(rd: SpecReader, value: Any, path: KeyPath) -> float:
    """A noise level: a real number in [0, 1] (a bool or a string is refused, not coerced)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise rd.fail(path, "wrong type", found=value, expected=NOISE_EXPECTED)
    if not 0 <= value <= 1:  # compared as written: float() of a huge int overflows
        raise rd.fail(path, "value out of range", found=value, expected=NOISE_EXPECTED)
    return float(value)
