"""Moving and turning: primitive moves, rotations, and the approach macro."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nesyworld.world.actions.base import Action, MaskContext
from nesyworld.world.actions.interact import arrival_effects
from nesyworld.world.actions.schema import (
    BEHIND_DOOR,
    FACING,
    REFUSAL_NOTE,
    WORLD,
    CountAtLeast,
    Fact,
    OperatorSchema,
    Param,
    SetFact,
)
from nesyworld.world.registry import ACTIONS
from nesyworld.world.simulation.state import DIRECTIONS
from nesyworld.world.simulation.walkable import (
    BLOCKED,
    FREE,
    around_bits,
    cell_neighbours,
    ground_cells,
    passable_regions,
    search_adjacent,
    search_first_adjacent,
)

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World
    from nesyworld.world.spec.model import WorldSpec

ROOT_TYPE = "physobj"
RELATIVE = {"forward": 0, "right": 1, "backward": 2, "left": 3}
_STEPS: tuple[tuple[int, int], ...] = tuple((int(r), int(c)) for r, c in DIRECTIONS)


def closed_door_types(spec: WorldSpec) -> tuple[str, ...]:
    """The types of the map's declared doors (`map.doors`) that block movement: a locked
    door, opened by whatever rule turns it into something walkable (a key used on it).
    Only these are modelled as doors by the planning domain (see `Approach.operators`)."""
    out: list[str] = []
    for door in spec.map.doors:
        if spec.entity_types[door.type].blocks_movement and door.type not in out:
            out.append(door.type)
    return tuple(out)


@ACTIONS.register("move")
class Move(Action):
    """One cell relative to the facing direction (facing is kept); refused into solid cells."""

    PARAMS: ClassVar[dict[str, Any]] = {"direction": tuple(RELATIVE)}
    MASK_FROM_CONTEXT = True

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.offset = RELATIVE[self.spec.params.get("direction", "forward")]

    def _target(self, world: World, agent: int) -> tuple[int, int] | None:
        # plain ints, not numpy arithmetic: the action mask asks this of every move each step
        st = world.state
        dr, dc = _STEPS[(st.facing.item(agent) + self.offset) % 4]
        r, c = st.pos.item(agent, 0) + dr, st.pos.item(agent, 1) + dc
        h, w = st.grid.shape
        if 0 <= r < h and 0 <= c < w:
            return r, c
        return None

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        cell = self._target(world, agent)
        if cell is None:
            return "the edge of the map is in the way"
        tid = world.state.grid.item(cell)
        if not world.types.passable.item(tid):
            return f"{world.types.names[tid]} blocks the way"
        return None

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        return self.mask_instances(world, agent, [self], ctx) * len(args)

    @classmethod
    def mask_instances(
        cls, world: World, agent: int, actions: Sequence[Action], ctx: MaskContext | None = None
    ) -> list[bool]:
        """Every move at once (one call per step for move_forward, move_left, ...): the four
        cells around the agent are looked at once."""
        ctx = ctx or MaskContext.of(world, agent)
        passable, around, facing = world.types.passable, ctx.around, ctx.facing
        out = []
        for a in actions:  # a loop, not a comprehension: cheaper for four items
            tid = around[(facing + a.offset) % 4]  # type: ignore[attr-defined]
            out.append(tid >= 0 and passable.item(tid))
        return out

    def apply(self, world: World, agent: int, arg: Any) -> float:
        target = self._target(world, agent)
        assert target is not None  # `check` passed: the cell is on the map
        world.move_agent(agent, target)
        return self.cost


@ACTIONS.register("rotate")
class Rotate(Action):
    """Turn 90 degrees in place."""

    PARAMS: ClassVar[dict[str, Any]] = {"direction": ("left", "right")}

    def apply(self, world: World, agent: int, arg: Any) -> float:
        turn = 1 if self.spec.params.get("direction", "right") == "right" else 3
        world.state.facing[agent] = (world.state.facing[agent] + turn) % 4
        return self.cost


@ACTIONS.register("approach")
class Approach(Action):
    """Walk the shortest path to a reachable thing of a type and face it.

    One env step whose cost is the path length (at least the action's own cost). Other agents
    are obstacles; when none of the type is reachable the action is refused. Which thing is
    `order`: `nearest` (the default), or `first`, the first in row-major map order with a
    reachable side, as NovelGym's approach takes the first object of the type in its list
    with a free side (docs/EXPERIMENTS.md, the RL baselines on Fence).
    """

    GROUNDED = True

    PARAMS: ClassVar[dict[str, Any]] = {"targets": "types", "order": ("nearest", "first")}

    @property
    def order(self) -> str:
        return str(self.spec.params.get("order", "nearest"))

    def groundings(self) -> list[tuple[str, Any]]:
        return [(t, self.types.id(t)) for t in self.targets()]

    def targets(self) -> list[str]:
        spec = self.world_spec
        if "targets" in self.spec.params:
            return [t for t in self.spec.params["targets"] if t in self.types.index]
        main_type = spec.agents[spec.main_agent].type
        trader_types = {t.trader for t in spec.trades.values()}
        stations = {r.station for r in spec.recipes.values() if r.station}
        out = []
        for name in spec.concrete_types:
            et = spec.entity_types[name]
            if name == main_type or not et.blocks_movement:
                continue
            if (et.breakable or et.collect or et.use or name in trader_types
                    or name in stations or et.cls in ("station", "actor")):
                out.append(name)
        return out

    def check(self, world: World, agent: int, arg: Any) -> str | None:
        return None if self._plan(world, agent, arg) is not None else (
            f"no reachable {world.types.names[arg]}")

    def execute(self, world: World, agent: int, arg: Any) -> float:
        # check and apply share one path search, so do both here
        found = self._plan(world, agent, arg)
        if found is None:
            from nesyworld.world.errors import ActionRefused

            raise ActionRefused(f"no reachable {world.types.names[arg]}")
        path, facing = found
        if path:
            world.move_agent(agent, path[-1])
        world.state.facing[agent] = facing
        return max(self.cost, float(len(path)))

    def route(self, world: World, agent: int, tid: int) -> tuple[list, int] | None:
        """The path (cells after the start) to the reachable `tid` the action goes to and the
        direction to face at its end, or None: what a skill made of primitive moves follows."""
        return self._plan(world, agent, tid)

    def _plan(self, world: World, agent: int, tid: int) -> tuple[list, int] | None:
        st = world.state
        grid = st.grid
        h, w = grid.shape
        pos = st.pos.tolist()
        start = pos[agent][0] * w + pos[agent][1]
        found = np.flatnonzero(grid.ravel() == tid).tolist()
        targets = set(found)
        targets.discard(start)
        if not targets:
            return None
        nbrs = cell_neighbours(h, w)
        first = self.order == "first"
        # already there (nearest only): no need for the passable map
        for d, nb in enumerate(() if first else nbrs[start]):
            if nb in targets:
                return [], d
        # what can be walked on: the map under the agents (cached), and the agents
        cells = ground_cells(world).copy()
        passable = world.types.passable
        for r, c in pos:
            cells[r * w + c] = FREE if passable.item(grid.item(r, c)) else BLOCKED
        if first:
            return search_first_adjacent(cells, nbrs, w, start, [t for t in found if t != start])
        return search_adjacent(cells, nbrs, w, start, targets)

    def mask(
        self, world: World, agent: int, args: Sequence[Any], ctx: MaskContext | None = None
    ) -> list[bool]:
        """Types touching the agent's connected region (blocks around it, floor types in it)
        and other agents in or next to it; agents count as floor here, so the regions are
        kept per static map version (`passable_regions`). The last answer for each agent is
        kept too: it stands while no agent moved, and its region while the agent stays in it."""
        st = world.state
        version, grid, cells = st.static_version, st.grid, st.pos.tobytes()
        memo: dict[int, tuple[Any, ...]] | None = self.__dict__.get("_mask_memo")
        if memo is None:
            memo = {}
            self._mask_memo = memo
        # (args, version, grid, agents' cells, region, its answer, where types are in args,
        # the answer with the agents)
        last = memo.get(agent)
        if last is not None and (last[0] is not args or last[1] != version
                                 or last[2] is not grid):
            last = None  # another map: its regions are found again
        elif last is not None and last[3] == cells:
            return last[7].copy()
        h, w = grid.shape
        pos = st.pos.tolist()
        here = pos[agent][0] * w + pos[agent][1]
        slots: dict[int, list[int]]  # type id -> where it is in args
        if last is not None and last[4].cells >> here & 1:
            region, near, slots = last[4], last[5], last[6]
        else:
            region = passable_regions(world).of(here)
            near = region.touching[np.asarray(args, dtype=np.intp)].tolist()
            slots = {}
            for j, t in enumerate(args):
                slots.setdefault(int(t), []).append(j)
        out = near.copy()
        around = around_bits(h, w)
        for i, (r, c) in enumerate(pos):  # agents inside or next to the region
            if i != agent:
                tid = grid.item(r, c)
                if tid in slots and region.cells & around[r * w + c]:
                    for j in slots[tid]:
                        out[j] = True
        memo[agent] = (args, version, grid, cells, region, near, slots, out.copy())
        return out

    def operators(self) -> list[OperatorSchema]:
        """`approach_<t>`: face a t. In a world with closed doors it also needs
        `not behind_door(t)`: the abstraction says whether every t is locked away, and the
        operators that open a door say what it lets the agent reach (symbolic/derivation/
        regions.py), so a plan opens the door before it approaches what is behind it.
        Obstacles that are not declared doors (a fence around a tree, an agent in a doorway)
        stay outside the model: such an approach may still be refused."""
        doors = bool(closed_door_types(self.world_spec))
        ops = []
        for target in self.targets():
            pre: tuple[Any, ...] = (Fact(FACING, ("?from",)), CountAtLeast(WORLD, target, 1))
            if doors:
                pre += (Fact(BEHIND_DOOR, (target,), negated=True),)
            rule = self.world_spec.entity_types[target].collect
            # an automatically collected target is taken on arrival (interact.pick_up_beside)
            arrival = (arrival_effects(target, rule) if rule is not None and rule.automatic
                       else [SetFact(FACING, (target,), True)])
            ops.append(OperatorSchema(
                name=f"approach_{target}",
                params=(Param("?from", ROOT_TYPE),),
                preconditions=pre,
                effects=(SetFact(FACING, ("?from",), False), *arrival),
                action=f"{self.name}_{target}",
                provenance=f"action '{self.name}' ({self.registered_name}) -> {target}",
                cost=self.cost,
                macro=True,
                # reachability is not symbolic: a fence, a wall of objects or an agent in the
                # only doorway makes the approach fail although world(target) >= 1
                notes=(REFUSAL_NOTE + "no reachable",),
            ))
        return ops
