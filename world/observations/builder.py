"""What an env agent sees: one config, one builder per agent, several kinds of observation.

The builder turns a `World` into a gymnasium space and observations of that space. Everything
is sized from the world's registries (number of types, grid shape), so a bigger spec or a
novelty that adds types gets bigger spaces without code changes. The builder is called on every
env step, so the numeric kinds precompute their layout once and only gather per call; the
symbolic "facts" kind is built only when requested, which keeps it off the hot path.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces

from nesyworld.world.batch.observe import beam_arrays, lidar_world
from nesyworld.world.kernels.jit import HAVE_NUMBA
from nesyworld.world.observations import (
    FACING_ARROWS,
    N_BEAMS,
    default_palette,
    lidar_space_bounds,
    local_view,
    render_ascii,
    render_rgb,
)
from nesyworld.world.observations.lidar import LidarReader
from nesyworld.world.observations.noise import install_noise
from nesyworld.world.observations.scent_view import scent_observation

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

KINDS = ("lidar", "local_view", "facts", "ascii", "rgb", "dict", "scent")

# Inventory counts are clipped here. 64 covers everything the shipped tasks can hold (the
# most is 48 sticks from 6 logs in pogostick) and is a Minecraft stack, so policies trained
# on one spec see the same scale on another. Raise it for specs with bigger counts.
DEFAULT_INVENTORY_CAP = 64


@dataclass(frozen=True)
class ObservationConfig:
    """How observations are made.

    kind: "lidar" (paper C.1, a flat float32 Box), "local_view" (paper C.2, a Dict),
    "facts" (symbolic facts as Text), "ascii" (the map as Text), "rgb" (an image Box) or
    "dict" (a Dict with one entry per kind in `dict_kinds`), or "scent" (the spec's scent
    vector at the agent's cell, a float32 Box: world/observations/scent_view.py).
    """

    kind: str = "lidar"
    local_view_size: int = 5
    egocentric: bool = True
    lidar_range: int | None = None
    inventory_cap: int = DEFAULT_INVENTORY_CAP
    rgb_tile: int = 8
    dict_kinds: tuple[str, ...] = ("lidar", "local_view")
    noise: float | None = None
    """Probability that each LiDAR reading / fact is corrupted (noise.py);
    None: the spec's `observation: {noise}` (0 unless set)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown observation kind {self.kind!r}; one of {KINDS}")
        if self.local_view_size < 1 or self.local_view_size % 2 == 0:
            raise ValueError(
                f"local_view_size must be a positive odd number, got {self.local_view_size}"
            )
        if self.lidar_range is not None and self.lidar_range < 1:
            raise ValueError(f"lidar_range must be >= 1 or None, got {self.lidar_range}")
        if self.inventory_cap < 1:
            raise ValueError(f"inventory_cap must be >= 1, got {self.inventory_cap}")
        if self.rgb_tile < 1:
            raise ValueError(f"rgb_tile must be >= 1, got {self.rgb_tile}")
        bad = [k for k in self.dict_kinds if k not in KINDS or k == "dict"]
        if bad or not self.dict_kinds:
            raise ValueError(f"dict_kinds must name kinds other than 'dict', got {self.dict_kinds}")
        if self.noise is not None and (isinstance(self.noise, bool)
                                       or not 0.0 <= self.noise <= 1.0):
            raise ValueError(f"noise must be a number between 0 and 1 or None, got {self.noise}")

    @classmethod
    def coerce(cls, value: ObservationConfig | str | dict[str, Any] | None) -> ObservationConfig:
        """Accept the forms users pass through gymnasium.make kwargs: a kind, a dict, None."""
        if value is None:
            return cls()
        if isinstance(value, ObservationConfig):
            return value
        if isinstance(value, str):
            return cls(kind=value)
        return cls(**value)


def palette(world: World) -> np.ndarray:
    """Spec colours where the spec gives them, the shared default palette elsewhere."""
    colors = default_palette(world.types.names)
    for i, c in enumerate(world.types.colors):
        if c is not None:
            colors[i] = c
    return colors


def agent_poses(world: World) -> list[tuple[int, int, int]]:
    st = world.state
    return [(int(r), int(c), int(f)) for (r, c), f in zip(st.pos, st.facing, strict=True)]


class ObservationBuilder:
    """Observations of one agent of one world; `space` is fixed at construction.

    The builder reads `world.state` at each `build`, so it survives `reset`/`restore`, which
    replace the state object.
    """

    noise: float
    """The noise in effect: the config's or the spec's (set by `install_noise`)."""

    def __init__(self, world: World, agent: int, config: ObservationConfig | None = None) -> None:
        self.world = world
        self.agent = agent
        self.config = config or ObservationConfig()
        self.n_types = len(world.types)
        self.shape = tuple(int(v) for v in world.state.grid.shape)
        makers: dict[str, Callable[[], tuple[spaces.Space[Any], Callable[[], Any]]]] = {
            "lidar": self._lidar,
            "local_view": self._local_view,
            "facts": self._facts,
            "ascii": self._ascii,
            "rgb": self._rgb,
            "scent": lambda: scent_observation(self.world, self.agent),
        }
        if self.config.kind == "dict":
            parts = {k: makers[k]() for k in self.config.dict_kinds}
            self.space: spaces.Space[Any] = spaces.Dict({k: s for k, (s, _) in parts.items()})
            fns = [(k, f) for k, (_, f) in parts.items()]
            self.build: Callable[[], Any] = lambda: {k: f() for k, f in fns}
        else:
            self.space, self.build = makers[self.config.kind]()
        # The env replaces this with its seeded np_random at every reset.
        self.noise_rng: np.random.Generator = np.random.default_rng()
        install_noise(self)  # a no-op at noise 0: exact observations are untouched

    # ------------------------------------------------------------------ shared pieces
    def _inventory_space(self, dtype: type) -> spaces.Box:
        return spaces.Box(0, self.config.inventory_cap, (self.n_types,), dtype)

    def _selected_space(self) -> spaces.Box:
        """One-hot over type ids; air (id 0) set means nothing is selected."""
        return spaces.Box(0, 1, (self.n_types,), np.uint8)

    # ------------------------------------------------------------------ kinds
    def _lidar(self) -> tuple[spaces.Space[Any], Callable[[], np.ndarray]]:
        t, (h, w) = self.n_types, self.shape
        lo, hi = lidar_space_bounds(t, h, w)
        n_lidar = t * N_BEAMS
        cap = self.config.inventory_cap
        low = np.concatenate([lo, np.zeros(2 * t, np.float32)])
        high = np.concatenate([hi, np.full(t, cap, np.float32), np.ones(t, np.float32)])
        space = spaces.Box(low, high, dtype=np.float32)
        agent, world, max_range = self.agent, self.world, self.config.lidar_range
        inv_end = n_lidar + t
        # One buffer, filled in place and copied out: no temporaries per part, and the
        # caller's observation never aliases what the next step overwrites. A part is only
        # redone when what it is made of changed (most steps leave the inventory as it was,
        # and the beams as they were: see LidarReader).
        buf = np.zeros(inv_end + t, np.float32)
        inventory, selected = buf[n_lidar:inv_end], buf[inv_end:]
        if HAVE_NUMBA:  # one compiled call reads it all
            cells, dists, ego, offsets = beam_arrays(h, w, max_range)

            def build_compiled() -> np.ndarray:
                st = world.state
                grid = st.grid if st.grid.flags.c_contiguous else np.ascontiguousarray(st.grid)
                lidar_world(grid, st.pos, st.facing, st.inventory, st.selected, agent, cells,
                            dists, ego, offsets, t, cap, buf)
                return buf.copy()

            return space, build_compiled

        beams = LidarReader(buf[:n_lidar], max_range)
        made_from: list[Any] = [None]  # what the inventory and selected parts show

        def build() -> np.ndarray:
            # .item() rather than numpy scalars and views: this runs every step
            st = world.state
            beams.read(st.grid, (st.pos.item(agent, 0), st.pos.item(agent, 1)),
                       st.facing.item(agent))
            inv = st.inventory[agent]
            held = st.selected.item(agent)
            key = (inv.tobytes(), held)
            if key != made_from[0]:
                np.minimum(inv, cap, out=inventory, casting="unsafe")
                selected.fill(0.0)
                selected[held] = 1.0
                made_from[0] = key
            return buf.copy()

        return space, build

    def _local_view(self) -> tuple[spaces.Space[Any], Callable[[], dict[str, np.ndarray]]]:
        t, n, cfg = self.n_types, self.config.local_view_size, self.config
        space = spaces.Dict(
            {
                "view": spaces.Box(0, 1, (t, n, n), np.uint8),
                "inventory": self._inventory_space(np.int32),
                "selected": self._selected_space(),
            }
        )
        agent, world, cap, ego = self.agent, self.world, cfg.inventory_cap, cfg.egocentric

        def build() -> dict[str, np.ndarray]:
            st = world.state
            selected = np.zeros(t, np.uint8)
            selected[st.selected[agent]] = 1
            return {
                "view": local_view(st.grid, st.pos[agent], int(st.facing[agent]), n, t, ego),
                "inventory": np.minimum(st.inventory[agent], cap).astype(np.int32),
                "selected": selected,
            }

        return space, build

    def _ascii(self) -> tuple[spaces.Space[Any], Callable[[], str]]:
        h, w = self.shape
        glyphs = self.world.types.glyphs
        charset = frozenset("".join(glyphs) + "".join(FACING_ARROWS) + "\n")
        length = h * (w + 1) - 1
        space = spaces.Text(max_length=length, min_length=length, charset=charset)
        world = self.world
        return space, lambda: render_ascii(world.state.grid, glyphs, agent_poses(world))

    def _rgb(self) -> tuple[spaces.Space[Any], Callable[[], np.ndarray]]:
        h, w = self.shape
        tile = self.config.rgb_tile
        space = spaces.Box(0, 255, (h * tile, w * tile, 3), np.uint8)
        colors, world = palette(self.world), self.world
        return space, lambda: render_rgb(world.state.grid, colors, agent_poses(world), tile)

    def _facts(self) -> tuple[spaces.Space[Any], Callable[[], str]]:
        """Newline-separated facts in the vocabulary of `nesyworld.world.actions.schema`.

        Text rather than a Dict because the set of facts is open (properties, new types), and
        the string is what a symbolic agent or a language model reads anyway.
        """
        names = self.world.types.names
        props = sorted(self.world.spec.property_names)
        longest = max(len(n) for n in names)
        # Widest line: "inventory(" + name + ")=" + the sign and digits of an int32.
        line = longest + len("inventory()=") + 11 + 1
        worst = 2 + 2 * len(names) + len(props) * len(names)
        text = "".join(names) + "".join(props) + string.digits + "()=-_\n"
        text += string.ascii_letters
        space = spaces.Text(max_length=line * worst, min_length=1, charset=frozenset(text))
        return space, self.facts

    def facts(self) -> str:
        """facing(t), holding(t), inventory(t)=n, world(t)=n and <property>(t), one a line.

        Air is left out of the world counts (it is the empty floor, not a thing) but kept in
        facing/holding, where it means "nothing", as in the symbolic layer.
        """
        world, agent = self.world, self.agent
        st, names = world.state, world.types.names
        lines = [
            f"facing({names[world.front_type(agent)]})",
            f"holding({names[int(st.selected[agent])]})",
        ]
        inv = st.inventory[agent]
        lines += [f"inventory({names[i]})={int(inv[i])}" for i in np.flatnonzero(inv)]
        counts = world.counts()
        lines += [f"world({names[i]})={int(counts[i])}" for i in np.flatnonzero(counts) if i]
        held = sorted(
            {
                f"{k}({names[int(st.grid[cell])]})"
                for cell, p in st.props.items()
                for k, v in p.items()
                if v is True
            }
        )
        return "\n".join(lines + held)
