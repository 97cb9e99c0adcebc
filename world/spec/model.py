"""The world spec as typed, frozen data: what a YAML world file means once validated.

Everything the simulator, the symbolic layer and the envs need is here, so none of them re-reads
YAML. Specs are immutable; novelties produce new specs rather than mutating old ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the optional sections' own modules import this one
    from nesyworld.world.simulation.procedural import GenerateSpec
    from nesyworld.world.spec.events_section import EventSpec
    from nesyworld.world.spec.lifelong import LifelongSpec
    from nesyworld.world.spec.scent import ScentSpec
    from nesyworld.world.spec.teams import MultiAgentSpec

Counts = Mapping[str, int]


def frozen_counts(d: Mapping[str, int] | None = None) -> Counts:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class InteractionRule:
    """What `collect` or `use` does to an entity the agent faces.

    `holding` is the item that must be selected; `when` are property values the entity must have;
    `sets` are the property values it gets; `consumes`/`gives` change the agent's inventory;
    `removes` turns the entity into `becomes` (air by default). An `automatic` collect rule
    (NovelGym's floating objects: the fire novelty's water bucket) needs no action: an agent
    driven by the env takes it from any of its four neighbouring cells at the end of each of
    its steps, so it has no conditions and always `removes` (world/spec/entity_types.py).
    """

    holding: str | None = None
    when: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    sets: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    consumes: Counts = field(default_factory=frozen_counts)
    gives: Counts = field(default_factory=frozen_counts)
    removes: bool = False
    becomes: str = "air"
    automatic: bool = False


@dataclass(frozen=True)
class ScheduledSpawn:
    """An entity that appears where another was, some steps later (a sapling after a tree)."""

    spawn: str
    after: int
    regrow: str = ""  # lifelong regrowth: "same" (waits for its cell) or "random" (free cell)


@dataclass(frozen=True)
class EntityTypeSpec:
    """One entity type: its place in the type hierarchy and how actions treat it."""

    name: str
    parents: tuple[str, ...] = ()
    abstract: bool = False
    cls: str = "block"
    blocks_movement: bool = True
    breakable: bool = False
    break_tool: str | None = None
    hits: int = 1  # `break` actions it takes to break (the damage lives in WorldState.damage)
    drops: Counts = field(default_factory=frozen_counts)
    leaves: str = "air"
    on_break: ScheduledSpawn | None = None
    placeable: bool = False
    grows_into: ScheduledSpawn | None = None
    collect: InteractionRule | None = None
    use: InteractionRule | None = None
    properties: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    disabled_when: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    glyph: str | None = None
    color: tuple[int, int, int] | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class ActionCosts:
    """An action's `costs:`: the step cost by target and by held item.

    A target's entry replaces the action's `cost` (the faced type for break, collect and use,
    the recipe for craft, the trade for trade); a held item's entry multiplies the result. So
    `cost: 1, costs: {target: {diamond_ore: 5}, holding: {iron_pickaxe: 0.5}}` charges 2.5 for
    breaking diamond ore with the pickaxe selected, 5 without it and 1 for anything else.
    """

    target: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    holding: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def of(self, base: float, target: str | None, holding: str | None) -> float:
        """The cost of one action on `target` while holding `holding` (None: no factor)."""
        cost = self.target.get(target, base) if target is not None else base
        return cost * (self.holding.get(holding, 1.0) if holding is not None else 1.0)


@dataclass(frozen=True)
class ActionSpec:
    """A named action: which registered class runs it, its step cost and class parameters."""

    name: str
    cls: str
    cost: float = 1.0
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    costs: ActionCosts | None = None  # per target / held item (None: `cost` always)


@dataclass(frozen=True)
class RecipeSpec:
    name: str
    inputs: Counts
    outputs: Counts
    station: str | None = None


@dataclass(frozen=True)
class TradeSpec:
    name: str
    trader: str
    inputs: Counts
    outputs: Counts


@dataclass(frozen=True)
class RoomSpec:
    name: str
    start: tuple[int, int]
    end: tuple[int, int]

    def contains(self, r: int, c: int) -> bool:
        return self.start[0] <= r <= self.end[0] and self.start[1] <= c <= self.end[1]


@dataclass(frozen=True)
class WallSpec:
    start: tuple[int, int]
    end: tuple[int, int]
    type: str


@dataclass(frozen=True)
class DoorSpec:
    at: tuple[int, int]
    type: str


@dataclass(frozen=True)
class PlacementSpec:
    """`quantity` instances of `type` at random free cells of `room` (or at fixed `at` cells)."""

    type: str
    quantity: int
    room: str | None = None
    at: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class SurroundSpec:
    """Every `target` on the map gets `with` on the free cells around it (8-neighbourhood)."""

    target: str
    with_: str


@dataclass(frozen=True)
class MapSpec:
    size: tuple[int, int]
    border: str | None = "bedrock"
    rooms: tuple[RoomSpec, ...] = ()
    walls: tuple[WallSpec, ...] = ()
    doors: tuple[DoorSpec, ...] = ()
    objects: tuple[PlacementSpec, ...] = ()
    ascii: tuple[str, ...] | None = None
    legend: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    surround: tuple[SurroundSpec, ...] = ()
    generate: GenerateSpec | None = None  # a map drawn per episode (map.generate)

    def room(self, name: str) -> RoomSpec:
        for room in self.rooms:
            if room.name == name:
                return room
        raise KeyError(name)


@dataclass(frozen=True)
class AgentSpec:
    """An agent: the main (learning/planning) agent or an NPC run by a registered controller."""

    name: str
    type: str
    controller: str | None = None
    action_set: str | None = None
    inventory: Counts = field(default_factory=frozen_counts)
    selected: str | None = None
    room: str | None = None
    at: tuple[int, int] | None = None
    facing: int | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class RewardSpec:
    """The Gymnasium env's reward: the paper's D.2 scheme by default."""

    goal: float = 1000.0
    step: float = -1.0
    give_up: float = 0.0


@dataclass(frozen=True)
class WorldSpec:
    """A validated world: the registries' contents plus the layout, agents and goal."""

    name: str
    entity_types: Mapping[str, EntityTypeSpec]
    actions: Mapping[str, ActionSpec]
    action_sets: Mapping[str, tuple[str, ...]]
    recipes: Mapping[str, RecipeSpec]
    trades: Mapping[str, TradeSpec]
    map: MapSpec
    agents: Mapping[str, AgentSpec]
    goal: Counts
    main_agent: str
    max_steps: int = 400
    reward: RewardSpec = field(default_factory=RewardSpec)
    description: str = ""
    source: str = "<string>"
    novelties: tuple[str, ...] = ()  # novelty files applied to `source`, in order
    lifelong: LifelongSpec | None = None  # a world that never resets, if any
    observation_noise: float = 0.0  # the `observation:` section's noise (spec/observation.py)
    multiagent: MultiAgentSpec | None = None  # the `multiagent:` section, if any
    scent: ScentSpec | None = None  # scent decay, diffusion and vectors, if any
    events: tuple[EventSpec, ...] = ()  # things that happen mid-episode (spec/events_section.py)

    @property
    def concrete_types(self) -> tuple[str, ...]:
        """Types that can exist as things (not abstract categories), in declaration order."""
        return tuple(n for n, t in self.entity_types.items() if not t.abstract)

    @property
    def property_names(self) -> frozenset[str]:
        """Every boolean property a cell can hold under this spec: the types' defaults and
        disabling conditions, and what their collect and use rules test and set."""
        out: set[str] = set()
        for et in self.entity_types.values():
            out |= set(et.properties) | set(et.disabled_when)
            for rule in (et.collect, et.use):
                if rule is not None:
                    out |= set(rule.when) | set(rule.sets)
        return frozenset(out)

    def ancestors(self, type_name: str) -> tuple[str, ...]:
        """All supertypes of a type, nearest first, without duplicates."""
        seen: list[str] = []
        frontier = list(self.entity_types[type_name].parents)
        while frontier:
            parent = frontier.pop(0)
            if parent not in seen:
                seen.append(parent)
                frontier.extend(self.entity_types[parent].parents)
        return tuple(seen)

    def is_a(self, type_name: str, category: str) -> bool:
        return type_name == category or category in self.ancestors(type_name)
