"""The initial map of an episode, built by one compiled function from its key.

`LayoutPlan` is the spec's layout compiled to arrays once per spec; `LayoutPlan.build(key)`
fills a map for one episode key, and the batched core calls the same kernel for each world it
resets, so a world and its batched twin start on the same map. Random choices are ranked by
hashes of (key, attempt, what, cell): the k cells of a placement are the k free cells of
lowest rank, which is a uniform draw without replacement and needs no generator state.

A random placement is redrawn (attempt + 1) until it seals nothing off: the walkable cells
(fenced ones count as walkable, fences being meant to be broken) must form as many regions
as the fixed map does, and every placed thing must have a walkable side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nesyworld.world.errors import SpecError
from nesyworld.world.kernels.jit import njit
from nesyworld.world.kernels.keys import TAG_AGENT_CELL, TAG_AGENT_FACING, TAG_PLACE, mix, mix3
from nesyworld.world.simulation.catalog import TypeCatalog
from nesyworld.world.spec.model import WorldSpec

MAX_LAYOUT_TRIES = 200

OK, NO_ROOM_FOR_OBJECTS, NO_ROOM_FOR_AGENT, SEALED = 0, 1, 2, 3


@dataclass(frozen=True)
class LayoutPlan:
    """Everything the layout kernel reads, as arrays (cells are flat indices r * W + c)."""

    shape: tuple[int, int]
    base: np.ndarray  # int16 (H*W,): border, walls, doors, fixed placements
    place_type: np.ndarray  # int32 (P,)
    place_count: np.ndarray  # int32 (P,): how many to place at random
    place_where: np.ndarray  # bool (P, H*W): where each placement may go, door margins out
    fence_target: np.ndarray  # int32 (S,)
    fence_type: np.ndarray  # int32 (S,)
    agent_cell: np.ndarray  # int32 (A,): fixed cell, or -1 for a random one
    agent_where: np.ndarray  # bool (A, H*W)
    agent_type: np.ndarray  # int32 (A,)
    agent_facing: np.ndarray  # int32 (A,): fixed facing, or -1 for a random one
    passable: np.ndarray  # bool (T,)
    randomised: bool
    regions: int  # walkable regions of `base`
    neighbours: np.ndarray  # int64 (H*W, 4): `neighbour_table`
    names: tuple[tuple[str, ...], tuple[str, ...]]  # placement types and agent names, for errors
    # (spec, types, agent names) when the map is drawn per episode (`map.generate`): the
    # arrays above are then only a template, and `build_into` lays out `realized_plan`
    generated: tuple | None = None

    @classmethod
    def of(cls, spec: WorldSpec, types: TypeCatalog, agent_names: tuple[str, ...]) -> LayoutPlan:
        # (world/simulation/layout.py imports this module)
        from nesyworld.world.simulation.layout import fixed_grid, placement_area

        m, (h, w) = spec.map, spec.map.size
        base = fixed_grid(spec, types)
        nbrs = neighbour_table(h, w)

        def where(room: str | None) -> np.ndarray:
            return placement_area(spec, room).ravel()

        placements = [p for p in m.objects if p.quantity > len(p.at)]
        agents = [spec.agents[n] for n in agent_names]
        randomised = bool(placements) or any(a.at is None for a in agents)
        passable = types.passable.copy()
        return cls(
            shape=(h, w),
            base=base.ravel().copy(),
            place_type=np.array([types.id(p.type) for p in placements], np.int32),
            place_count=np.array([p.quantity - len(p.at) for p in placements], np.int32),
            place_where=np.array([where(p.room) for p in placements], bool).reshape(-1, h * w),
            fence_target=np.array([types.id(s.target) for s in m.surround], np.int32),
            fence_type=np.array([types.id(s.with_) for s in m.surround], np.int32),
            agent_cell=np.array([-1 if a.at is None else a.at[0] * w + a.at[1] for a in agents],
                                np.int32),
            agent_where=np.array([where(a.room) for a in agents], bool).reshape(-1, h * w),
            agent_type=np.array([types.id(a.type) for a in agents], np.int32),
            agent_facing=np.array([-1 if a.facing is None else a.facing for a in agents],
                                  np.int32),
            passable=passable,
            randomised=randomised,
            regions=count_regions(passable[base.ravel()], nbrs) if randomised else 0,
            neighbours=nbrs,
            names=(tuple(p.type for p in placements), tuple(agent_names)),
            generated=(spec, types, tuple(agent_names)) if m.generate is not None else None,
        )

    def kernel_args(self) -> tuple:
        """The plan as `layout_kernel`'s first 14 arguments, in its order."""
        return (self.base, self.place_type, self.place_count, self.place_where,
                self.fence_target, self.fence_type, self.agent_cell, self.agent_where,
                self.agent_type, self.agent_facing, self.passable, self.randomised,
                self.regions, self.neighbours)

    def build_into(self, key: int, grid: np.ndarray, pos: np.ndarray, under: np.ndarray,
                   facing: np.ndarray, spec_name: str = "") -> None:
        """Fill a flat grid and the agents' arrays for an episode key, or raise SpecError."""
        if self.generated is not None:
            from nesyworld.world.simulation.procedural import realized_plan
            realized_plan(self, key).build_into(key, grid, pos, under, facing, spec_name)
            return
        status, which = layout_kernel(*self.kernel_args(), key, self.shape[0], self.shape[1],
                                MAX_LAYOUT_TRIES, grid, pos, under, facing)
        if status != OK:
            raise self._error(status, which, spec_name)

    def _error(self, status: int, which: int, spec_name: str) -> SpecError:
        if status == NO_ROOM_FOR_OBJECTS:
            t = self.names[0][which]
            return SpecError(f"cannot place {self.place_count[which]} more {t}: not enough free "
                             "cells in its room", key_path=f"map.objects.{t}.quantity",
                             expected="a quantity that fits the room")
        if status == NO_ROOM_FOR_AGENT:
            name = self.names[1][which]
            return SpecError(f"no free cell for agent '{name}'", key_path=f"agents.{name}.room",
                             expected="a room with empty cells")
        return SpecError(f"could not place the objects and agents of '{spec_name}' without "
                         f"sealing parts of the map off in {MAX_LAYOUT_TRIES} tries",
                         key_path="map.objects", expected="fewer objects or larger rooms")


def neighbour_table(h: int, w: int) -> np.ndarray:
    """For each flat cell, its 4-neighbours in N, E, S, W order, -1 past the edge: searches
    over the map look them up instead of dividing by the width at every cell."""
    cells = np.arange(h * w).reshape(h, w)
    out = np.full((h, w, 4), -1, np.int64)
    out[1:, :, 0] = cells[:-1]
    out[:, :-1, 1] = cells[:, 1:]
    out[:-1, :, 2] = cells[1:]
    out[:, 1:, 3] = cells[:, :-1]
    return out.reshape(h * w, 4)


@njit
def count_regions(walk: np.ndarray, nbrs: np.ndarray) -> int:
    """4-connected regions of the walkable cells (flat bool array), by flood fill."""
    n_cells = walk.shape[0]
    seen = np.zeros(n_cells, np.bool_)
    stack = np.empty(n_cells, np.int64)
    n = 0
    for start in range(n_cells):
        if not walk[start] or seen[start]:
            continue
        n += 1
        seen[start] = True
        top = 0
        stack[0] = start
        while top >= 0:
            cur = stack[top]
            top -= 1
            for d in range(4):
                nxt = nbrs[cur, d]
                if nxt >= 0 and walk[nxt] and not seen[nxt]:
                    seen[nxt] = True
                    top += 1
                    stack[top] = nxt
    return n


SORT_ABOVE = 32  # draws of more cells than this sort every rank instead of keeping the lowest


@njit
def _lowest(grid: np.ndarray, where: np.ndarray, salt: int, k: int, ranks: np.ndarray,
            out: np.ndarray) -> int:
    """Write into `out` the k free cells (air, allowed by `where`) of lowest rank under `salt`,
    in cell order; return how many free cells there were (fewer than k: nothing written).
    `ranks` is scratch space of one int64 per cell."""
    n_cells = grid.shape[0]
    for cell in range(n_cells):  # every cell's rank first: a loop without branches
        ranks[cell] = mix(salt, cell) * n_cells + cell  # unique: cell breaks rank ties
    keep_all = k > SORT_ABOVE
    lowest = np.empty(n_cells if keep_all else k, np.int64)  # ascending (sorted at the end)
    n = m = 0  # free cells seen; lowest[:m] filled
    for cell in range(n_cells):
        if grid[cell] != 0 or not where[cell]:
            continue
        n += 1
        rank = ranks[cell]
        if keep_all:
            lowest[m] = rank
            m += 1
        elif m < k or (k > 0 and rank < lowest[k - 1]):
            i = min(m, k - 1)
            while i > 0 and lowest[i - 1] > rank:
                lowest[i] = lowest[i - 1]
                i -= 1
            lowest[i] = rank
            m = min(m + 1, k)
    if n < k:
        return n
    if keep_all:
        lowest[:n].sort()
    for j in range(k):
        out[j] = lowest[j] % n_cells
    out[:k].sort()
    return n


@njit
def layout_kernel(base: np.ndarray, place_type: np.ndarray, place_count: np.ndarray,
            place_where: np.ndarray, fence_target: np.ndarray, fence_type: np.ndarray,
            agent_cell: np.ndarray, agent_where: np.ndarray, agent_type: np.ndarray,
            agent_facing: np.ndarray, passable: np.ndarray, randomised: bool, regions: int,
            nbrs: np.ndarray, key: int, h: int, w: int, tries: int, grid: np.ndarray,
            pos: np.ndarray, under: np.ndarray, facing: np.ndarray) -> tuple[int, int]:
    n_cells = h * w
    chosen = np.empty(n_cells, np.int32)
    ranks = np.empty(n_cells, np.int64)
    fenced = np.zeros(n_cells, np.bool_)
    for attempt in range(tries):
        grid[:] = base
        for p in range(place_type.shape[0]):
            k = place_count[p]
            salt = mix3(key, TAG_PLACE, attempt, p)
            if _lowest(grid, place_where[p], salt, k, ranks, chosen) < k:
                return NO_ROOM_FOR_OBJECTS, p
            for j in range(k):
                grid[chosen[j]] = place_type[p]
        fenced[:] = False
        for s in range(fence_target.shape[0]):
            for cell in range(n_cells):
                if grid[cell] != fence_target[s]:
                    continue
                r, c = cell // w, cell % w
                for rr in range(max(r - 1, 0), min(r + 2, h)):
                    for cc in range(max(c - 1, 0), min(c + 2, w)):
                        if grid[rr * w + cc] == 0:
                            grid[rr * w + cc] = fence_type[s]
                            fenced[rr * w + cc] = True
        for i in range(agent_type.shape[0]):
            cell = agent_cell[i]
            if cell < 0:
                if _lowest(grid, agent_where[i], mix3(key, TAG_AGENT_CELL, attempt, i), 1,
                           ranks, chosen) < 1:
                    return NO_ROOM_FOR_AGENT, i
                cell = chosen[0]
            pos[i, 0], pos[i, 1] = cell // w, cell % w
            under[i] = grid[cell]
            grid[cell] = agent_type[i]
            f = agent_facing[i]
            facing[i] = mix3(key, TAG_AGENT_FACING, attempt, i) & 3 if f < 0 else f
        if not randomised or _sound(grid, base, passable, fenced, regions, nbrs):
            return OK, 0
    return SEALED, 0


@njit
def _sound(grid: np.ndarray, base: np.ndarray, passable: np.ndarray, fenced: np.ndarray,
           regions: int, nbrs: np.ndarray) -> bool:
    """No new sealed pocket, and every placed thing has an open (walkable or fenced) side."""
    n_cells = grid.shape[0]
    walk = np.empty(n_cells, np.bool_)
    for cell in range(n_cells):
        walk[cell] = passable[grid[cell]] or fenced[cell]
    for cell in range(n_cells):
        if grid[cell] == base[cell] or walk[cell]:
            continue
        open_side = False
        for d in range(4):
            nb = nbrs[cell, d]
            if nb >= 0 and walk[nb]:
                open_side = True
                break
        if not open_side:
            return False
    return count_regions(walk, nbrs) == regions
