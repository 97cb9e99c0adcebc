"""A world's spec and registries compiled to the integer tables the batched kernels read.

Only the built-in action classes and controllers have kernels. A world that uses any other
class (a novelty's plugin, a third-party controller), a non-boolean entity property, a
multi-hit block (`hits:`), `events:` or per-target `costs:` is not compiled: `compile_world`
raises `NotCompilable` naming it, and `BatchWorld` then steps N ordinary `World`s instead,
with the same results, only slower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nesyworld.world.actions.crafting import Craft, Trade
from nesyworld.world.actions.interact import Break, Collect, Use
from nesyworld.world.actions.items import Deselect, Place, Select
from nesyworld.world.actions.meta import GiveUp, Nop
from nesyworld.world.actions.movement import Approach, Move, Rotate
from nesyworld.world.entities.controllers import ROTATE_PROB, RandomWalk, Rival, Stationary
from nesyworld.world.kernels.layout import LayoutPlan
from nesyworld.world.spec.model import InteractionRule

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

# action kinds (act_table[..., KIND])
(NOP, GIVE_UP, MOVE, ROTATE, APPROACH, BREAK, COLLECT, USE, CRAFT, SELECT, DESELECT,
 PLACE, APPROACH_FIRST) = range(13)  # APPROACH_FIRST: `approach` with `order: first`
KIND, ARG = 0, 1
_KINDS = {Nop: NOP, GiveUp: GIVE_UP, Move: MOVE, Rotate: ROTATE, Approach: APPROACH,
          Break: BREAK, Collect: COLLECT, Use: USE, Craft: CRAFT, Trade: CRAFT, Select: SELECT,
          Deselect: DESELECT, Place: PLACE}

# type_table columns
(PASSABLE, BREAKABLE, BREAK_TOOL, LEAVES, ON_BREAK_SPAWN, ON_BREAK_AFTER, GROWS_SPAWN,
 GROWS_AFTER, PLACEABLE, DEFAULT_HAS, DEFAULT_VAL, DISABLED_MASK, DISABLED_VAL,
 AUTOMATIC) = range(14)
TYPE_COLUMNS = AUTOMATIC + 1
# rule_table columns (rule_table[0] is `collect`, [1] is `use`)
RULE_HAS, RULE_HOLDING, WHEN_MASK, WHEN_VAL, SETS_MASK, SETS_VAL, REMOVES, BECOMES = range(8)
# agent_table columns
A_TYPE, A_CTRL, A_N_MOVES, A_N_ROT, A_BREAK, A_SELECTED = range(6)
CTRL_NONE, CTRL_STATIONARY, CTRL_RANDOM_WALK, CTRL_RIVAL = range(4)
_CONTROLLERS = {Stationary: CTRL_STATIONARY, RandomWalk: CTRL_RANDOM_WALK, Rival: CTRL_RIVAL}
MAX_PROPERTIES = 31


class NotCompilable(ValueError):
    """The world uses something the batched kernels do not implement."""


def _no_kernel_for(world: World) -> None:
    """Spec features the kernels leave to the "worlds" engine: damage of multi-hit blocks,
    events, and costs by target or held item (a compiled step charges one cost per action)."""
    spec = world.spec
    multi = [n for n in world.types.names if spec.entity_types[n].hits > 1]
    if multi:
        raise NotCompilable(f"'{multi[0]}' takes {spec.entity_types[multi[0]].hits} hits to "
                            "break, and the kernels keep no damage")
    if spec.events:
        raise NotCompilable("the spec has events, which the kernels do not run")
    costed = [a.name for a in spec.actions.values() if a.costs is not None]
    if costed:
        raise NotCompilable(f"action '{costed[0]}' has costs by target or held item, and the "
                            "kernels charge one cost per action")


@dataclass(frozen=True)
class CoreTables:
    """What a step of any copy of the world reads (all arrays are read-only to the kernels)."""

    shape: tuple[int, int]
    n_types: int
    main: int
    type_table: np.ndarray  # int64 (T, TYPE_COLUMNS)
    drops: np.ndarray  # int32 (T, T)
    rule_table: np.ndarray  # int64 (2, T, 8)
    rule_consumes: np.ndarray  # int32 (2, T, T)
    rule_gives: np.ndarray  # int32 (2, T, T)
    consume_items: np.ndarray  # int64 (2, T, k): the types `rule_consumes` names, -1 after
    act_table: np.ndarray  # int64 (A, max actions, 2): kind and argument of each env action
    act_cost: np.ndarray  # float64 (A, max actions)
    n_actions: np.ndarray  # int64 (A,)
    need: np.ndarray  # int32 (R, T): exchange (recipe or trade) inputs
    need_items: np.ndarray  # int64 (R, k): the types `need` names, -1 after the last
    delta: np.ndarray  # int32 (R, T): exchange net change
    partner: np.ndarray  # int64 (R, 2): partner type (-1: none) and its distance
    agent_table: np.ndarray  # int64 (A, 6)
    agent_probs: np.ndarray  # float64 (A, 3): move_prob, break_prob, rotate_prob
    agent_moves: np.ndarray  # int64 (A, k): a controller's move actions
    agent_rotations: np.ndarray  # int64 (A, k)
    init_inventory: np.ndarray  # int32 (A, T)
    goal: np.ndarray  # int32 (T,)
    rewards: tuple[float, float, float]  # step, goal, give_up
    max_steps: int
    properties: tuple[str, ...]  # bit k of a cell's property masks
    layout: LayoutPlan


def compile_world(world: World) -> CoreTables:
    """The tables of `world`'s spec, or NotCompilable with what stands in the way."""
    spec, types = world.spec, world.types
    if world.layout_plan.generated is not None:
        raise NotCompilable("the map is generated per episode (map.generate), and the layout "
                            "kernel lays out one fixed set of rooms")
    if spec.lifelong is not None:
        raise NotCompilable("the spec is lifelong: its regrowth (waiting for a cell, or a "
                            "random free one), schedule rewards and endless run have no kernel")
    _no_kernel_for(world)
    t = len(types)
    props = _properties(world)
    bit = {name: 1 << k for k, name in enumerate(props)}

    def bits(values: dict[str, bool]) -> tuple[int, int]:
        return (sum(bit[k] for k in values),
                sum(bit[k] for k, v in values.items() if v))

    type_table = np.zeros((t, TYPE_COLUMNS), np.int64)
    drops = np.zeros((t, t), np.int32)
    rule_table = np.zeros((2, t, 8), np.int64)
    rule_consumes = np.zeros((2, t, t), np.int32)
    rule_gives = np.zeros((2, t, t), np.int32)
    rule_table[:, :, RULE_HOLDING] = -1
    for i, name in enumerate(types.names):
        et, row = spec.entity_types[name], type_table[i]
        row[PASSABLE] = not et.blocks_movement
        row[BREAKABLE] = et.breakable
        row[BREAK_TOOL] = types.id(et.break_tool) if et.break_tool else -1
        row[LEAVES] = types.id(et.leaves)
        row[ON_BREAK_SPAWN] = types.id(et.on_break.spawn) if et.on_break else -1
        row[ON_BREAK_AFTER] = et.on_break.after if et.on_break else 0
        row[GROWS_SPAWN] = types.id(et.grows_into.spawn) if et.grows_into else -1
        row[GROWS_AFTER] = et.grows_into.after if et.grows_into else 0
        row[PLACEABLE] = et.placeable
        row[DEFAULT_HAS], row[DEFAULT_VAL] = bits(dict(et.properties))
        row[DISABLED_MASK], row[DISABLED_VAL] = bits(dict(et.disabled_when))
        row[AUTOMATIC] = i in types.automatic
        for item, k in et.drops.items():
            drops[i, types.id(item)] = k
        for r, rule in enumerate((et.collect, et.use)):
            if rule is not None:
                _rule_row(rule, types.index, bits, rule_table[r, i], rule_consumes[r, i],
                          rule_gives[r, i])

    acts = [world.agent_actions(a) for a in range(len(world.agent_names))]
    width = max([1, *(len(x) for x in acts)])
    act_table = np.zeros((len(acts), width, 2), np.int64)
    act_cost = np.zeros((len(acts), width), np.float64)
    rows: dict[tuple[int, int], int] = {}  # (id of an exchange action, entry) -> row
    exchanges: list[tuple[np.ndarray, np.ndarray, int, int]] = []
    for a, grounded in enumerate(acts):
        for j, g in enumerate(grounded):
            kind = _KINDS.get(type(g.action))
            if kind is None:
                raise NotCompilable(f"action '{g.action.name}' is of class "
                                    f"{type(g.action).__qualname__}, which has no batched kernel")
            act_table[a, j, KIND], act_cost[a, j] = kind, g.action.cost
            if kind == CRAFT:
                ex = g.action
                assert isinstance(ex, (Craft, Trade))  # what _KINDS maps to CRAFT
                slot = rows.setdefault((id(ex), g.arg), len(exchanges))
                if slot == len(exchanges):
                    exchanges.append((ex.need[g.arg], ex.delta[g.arg],
                                      int(ex.partner_id[g.arg]), ex.distance))
                act_table[a, j, ARG] = slot
            elif kind == MOVE:
                assert isinstance(g.action, Move)
                act_table[a, j, ARG] = g.action.offset
            elif kind == ROTATE:
                right = g.action.spec.params.get("direction", "right") == "right"
                act_table[a, j, ARG] = 1 if right else 3
            elif kind in (APPROACH, SELECT):
                if isinstance(g.action, Approach) and g.action.order == "first":
                    act_table[a, j, KIND] = APPROACH_FIRST
                act_table[a, j, ARG] = g.arg
    r = max(1, len(exchanges))
    need, delta = np.zeros((r, t), np.int32), np.zeros((r, t), np.int32)
    partner = np.full((r, 2), -1, np.int64)
    for k, (n_, d_, p, dist) in enumerate(exchanges):
        need[k], delta[k], partner[k] = n_, d_, (p, dist)

    agent_table, probs, moves, rots = _agents(world)
    init_inventory = np.zeros((len(acts), t), np.int32)
    for a, name in enumerate(world.agent_names):
        for item, k in spec.agents[name].inventory.items():
            init_inventory[a, types.id(item)] = k
    goal = np.zeros(t, np.int32)
    for item, k in spec.goal.items():
        goal[types.id(item)] = k
    reward = spec.reward
    n_rows, n_cols = spec.map.size
    return CoreTables(
        shape=(n_rows, n_cols), n_types=t, main=world.main, type_table=type_table,
        drops=drops, rule_table=rule_table, rule_consumes=rule_consumes, rule_gives=rule_gives,
        act_table=act_table, act_cost=act_cost, need_items=_items(need),
        consume_items=_items(rule_consumes),
        n_actions=np.array([len(x) for x in acts], np.int64), need=need, delta=delta,
        partner=partner, agent_table=agent_table, agent_probs=probs, agent_moves=moves,
        agent_rotations=rots, init_inventory=init_inventory, goal=goal,
        rewards=(reward.step, reward.goal, reward.give_up), max_steps=spec.max_steps,
        properties=props, layout=world.layout_plan)


def _items(counts: np.ndarray) -> np.ndarray:
    """For each row of a (..., T) count table, the types with a count, padded with -1: the
    kernels test a few entries instead of T."""
    k = max(1, int((counts > 0).sum(axis=-1).max(initial=0)))
    out = np.full((*counts.shape[:-1], k), -1, np.int64)
    for where in np.ndindex(*counts.shape[:-1]):
        ids = np.flatnonzero(counts[where])
        out[where][:len(ids)] = ids
    return out


def _properties(world: World) -> tuple[str, ...]:
    """Every property a cell can hold; each must be boolean to fit a bit."""
    names: dict[str, None] = {}
    for et in world.spec.entity_types.values():
        groups = [et.properties, et.disabled_when]
        for rule in (et.collect, et.use):
            if rule is not None:
                groups += [rule.when, rule.sets]
        for group in groups:
            for k, v in group.items():
                if not isinstance(v, bool):
                    raise NotCompilable(f"entity type '{et.name}' has property {k}={v!r}; the "
                                        "batched kernels hold only boolean properties")
                names[k] = None
    if len(names) > MAX_PROPERTIES:
        raise NotCompilable(f"{len(names)} properties; the batched kernels hold at most "
                            f"{MAX_PROPERTIES}")
    return tuple(names)


def _rule_row(rule: InteractionRule, index: dict[str, int],
              bits: Callable[[dict[str, bool]], tuple[int, int]], row: np.ndarray,
              consumes: np.ndarray, gives: np.ndarray) -> None:
    row[RULE_HAS] = 1
    row[RULE_HOLDING] = index[rule.holding] if rule.holding else -1
    row[WHEN_MASK], row[WHEN_VAL] = bits(dict(rule.when))
    row[SETS_MASK], row[SETS_VAL] = bits(dict(rule.sets))
    row[REMOVES] = rule.removes
    row[BECOMES] = index[rule.becomes]
    for item, k in rule.consumes.items():
        consumes[index[item]] = k
    for item, k in rule.gives.items():
        gives[index[item]] = k


def _agents(world: World) -> tuple[np.ndarray, ...]:
    n = len(world.agent_names)
    table = np.zeros((n, 6), np.int64)
    probs = np.zeros((n, 3), np.float64)
    lists: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for a, name in enumerate(world.agent_names):
        agent, ctrl = world.spec.agents[name], world.controllers[a]
        table[a, A_TYPE] = world.types.id(agent.type)
        table[a, A_SELECTED] = world.types.id(agent.selected) if agent.selected else 0
        table[a, A_BREAK] = -1
        moves: tuple[int, ...] = ()
        rots: tuple[int, ...] = ()
        if ctrl is not None:
            kind = _CONTROLLERS.get(type(ctrl))
            if kind is None:
                raise NotCompilable(f"agent '{name}' has controller "
                                    f"{type(ctrl).__qualname__}, which has no batched kernel")
            table[a, A_CTRL] = kind
            if isinstance(ctrl, RandomWalk):
                moves, probs[a, 0] = ctrl.moves, ctrl.move_prob
            if isinstance(ctrl, Rival):
                rots, probs[a, 1], probs[a, 2] = ctrl.rotations, ctrl.break_prob, ROTATE_PROB
                table[a, A_BREAK] = -1 if ctrl.break_action is None else ctrl.break_action
        table[a, A_N_MOVES], table[a, A_N_ROT] = len(moves), len(rots)
        lists.append((moves, rots))
    k = max([1, *(max(len(m), len(r)) for m, r in lists)])
    moves_arr, rots_arr = np.full((n, k), -1, np.int64), np.full((n, k), -1, np.int64)
    for a, (m, r) in enumerate(lists):
        moves_arr[a, :len(m)], rots_arr[a, :len(r)] = m, r
    return table, probs, moves_arr, rots_arr


def kernel_tables(t: CoreTables) -> tuple[np.ndarray, ...]:
    """The tables in the order the kernels unpack them (`K[0]` ... `K[17]`)."""
    return (t.type_table, t.rule_table, t.rule_consumes, t.drops, t.act_table, t.need, t.delta,
            t.partner, t.rule_gives, t.act_cost, t.agent_table, t.agent_probs, t.agent_moves,
            t.agent_rotations, t.n_actions, t.need_items, t.consume_items, t.layout.neighbours)
