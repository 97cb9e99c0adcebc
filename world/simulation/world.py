"""The simulator: one world, its agents, and the step function.

`World` is deliberately free of observations, rewards and env APIs: the Gymnasium and
PettingZoo envs, the symbolic abstraction and the recovery learner all wrap the same object.
Why one module of this size: `World` is the one object that owns a running state; what can
stand apart does (action_masks.py, layout.py, events.py, state.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nesyworld.world.actions.base import Action, GroundedAction
from nesyworld.world.actions.interact import pick_up_beside
from nesyworld.world.errors import ActionRefused, SpecError
from nesyworld.world.kernels.keys import episode_key, stream_of
from nesyworld.world.kernels.layout import LayoutPlan
from nesyworld.world.lifelong.regrowth import regrow
from nesyworld.world.registry import ACTIONS, CONTROLLERS
from nesyworld.world.simulation.action_masks import MaskPlan
from nesyworld.world.simulation.catalog import TypeCatalog
from nesyworld.world.simulation.events import run_events
from nesyworld.world.simulation.layout import build_layout
from nesyworld.world.simulation.state import DIRECTIONS, Scheduled, WorldState
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

_STEPS: tuple[tuple[int, int], ...] = tuple((int(r), int(c)) for r, c in DIRECTIONS)


@dataclass(frozen=True)
class Outcome:
    """What one action did. A refused action has ok=False, a reason, and changed nothing."""

    action: str
    ok: bool
    cost: float
    reason: str = ""


@dataclass(frozen=True)
class Snapshot:
    """A restorable copy of the state and the generator, for episode restarts mid-task."""

    state: WorldState
    rng_state: Mapping[str, Any]


class World:
    """A running world built from a spec.

    Agents are indexed in spec order; `main` is the index of the agent without a controller.
    A seed fixes the whole trajectory: layouts and NPC moves are hashed from the episode's
    key (`state.key`, from the seed and the number of resets since seeding, see
    `nesyworld.world.kernels.keys`), and anything else random draws from `self.rng`.
    """

    def __init__(self, spec: WorldSpec | str | Path, seed: int | None = None) -> None:
        if not isinstance(spec, WorldSpec):
            spec = load_spec(spec)
        self._setup(spec)
        self._seed = seed
        self.episode = 0  # resets so far: time-varying rules (a busy trader) key on it
        self.rng = np.random.default_rng(seed)
        self._stream = stream_of(seed)
        self._resets = 0  # resets since the last seeding: the episode key's counter
        self.state: WorldState = self._initial_state()

    def _setup(self, spec: WorldSpec) -> None:
        """Everything a spec determines: types, actions, controllers, the goal."""
        self.spec = spec
        self.types = TypeCatalog.from_spec(spec)
        self.agent_names: tuple[str, ...] = tuple(spec.agents)
        self.main = self.agent_names.index(spec.main_agent)
        self.actions: dict[str, Action] = {
            name: ACTIONS.get(a.cls)(a, spec, self.types) for name, a in spec.actions.items()
        }
        self.action_sets: dict[str, tuple[GroundedAction, ...]] = {
            set_name: tuple(g for name in names for g in self.actions[name].ground())
            for set_name, names in spec.action_sets.items()
        }
        self._agent_actions: list[tuple[GroundedAction, ...]] = []
        for name in self.agent_names:
            a = spec.agents[name]
            self._agent_actions.append(self.action_sets.get(a.action_set or "", ()))
        self._action_index = [
            {g.name: i for i, g in enumerate(acts)} for acts in self._agent_actions
        ]
        self.controllers = [
            None if (controller := spec.agents[n].controller) is None
            else CONTROLLERS.get(controller)(self, i, spec.agents[n].params)
            for i, n in enumerate(self.agent_names)
        ]
        self._goal = np.zeros(len(self.types), np.int32)
        for item, n in spec.goal.items():
            self._goal[self.types.id(item)] = n
        self._goal_ids = np.flatnonzero(self._goal)
        self.layout_plan = LayoutPlan.of(spec, self.types, self.agent_names)

    # ----------------------------------------------------------------- episode control
    def reset(self, seed: int | None = None) -> WorldState:
        """Start a new episode; a seed re-seeds the generator, None continues its stream."""
        if seed is not None:
            self._seed = seed
            self.rng = np.random.default_rng(seed)
            self._stream, self._resets = stream_of(seed), 0
        else:
            self._resets += 1
        self.episode += 1
        self.state = self._initial_state()
        for ctrl in self.controllers:
            if ctrl is not None:
                ctrl.reset()
        return self.state

    def _initial_state(self) -> WorldState:
        spec, types = self.spec, self.types
        key = episode_key(self._stream, self._resets)
        layout = build_layout(self.layout_plan, key, spec.name)
        grid, pos, under, facing = layout.grid, layout.pos, layout.under, layout.facing
        n, t = len(self.agent_names), len(types)
        inventory = np.zeros((n, t), np.int32)
        selected = np.zeros(n, np.int16)
        for i, name in enumerate(self.agent_names):
            a = spec.agents[name]
            for item, count in a.inventory.items():
                inventory[i, types.id(item)] = count
            if a.selected:
                selected[i] = types.id(a.selected)
        props: dict[tuple[int, int], dict[str, Any]] = {}
        for tid, tname in enumerate(types.names):
            defaults = spec.entity_types[tname].properties
            if defaults:
                for r, c in np.argwhere(grid == tid):
                    props[(int(r), int(c))] = dict(defaults)
        return WorldState(grid, pos, facing, under, inventory, selected, props, key=key)

    # ------------------------------------------------------------------------ stepping
    def agent_actions(self, agent: int | None = None) -> tuple[GroundedAction, ...]:
        return self._agent_actions[self.main if agent is None else agent]

    def action_names(self, agent: int | None = None) -> tuple[str, ...]:
        return tuple(g.name for g in self.agent_actions(agent))

    def action_index(self, name: str, agent: int | None = None) -> int:
        try:
            return self._action_index[self.main if agent is None else agent][name]
        except KeyError:
            raise KeyError(f"agent has no action '{name}'; it has: "
                           f"{', '.join(self.action_names(agent))}") from None

    def act(self, agent: int, action: int | str) -> Outcome:
        """Run one grounded action for one agent. Refusals leave the state unchanged."""
        acts = self._agent_actions[agent]
        if isinstance(action, str):
            action = self.action_index(action, agent)
        if not 0 <= action < len(acts):
            return Outcome(str(action), False, 0.0, f"no action with index {action}")
        g = acts[action]
        reason, cost = self._run(agent, g)
        if reason is not None:
            return Outcome(g.name, False, 0.0, reason)
        if self.types.automatic and self.controllers[agent] is None:
            pick_up_beside(self, agent)
        return Outcome(g.name, True, cost)

    def _run(self, agent: int, g: GroundedAction) -> tuple[str | None, float]:
        """Run a grounded action: (None, its cost), or (why it was refused, 0.0)."""
        a = g.action
        try:
            if type(a).execute is Action.execute:
                # Action.execute without raising and catching: most random steps are refused
                reason = a.check(self, agent, g.arg)
                if reason is not None:
                    return reason, 0.0
                if a.costs is None:
                    return None, a.apply(self, agent, g.arg)
                price = a.price(self, agent, g.arg)  # by target and held item, before the change
                a.apply(self, agent, g.arg)
                return None, price
            if a.costs is None:
                return None, a.execute(self, agent, g.arg)
            price = a.price(self, agent, g.arg)
            a.execute(self, agent, g.arg)
            return None, price
        except ActionRefused as refusal:
            return refusal.reason, 0.0

    def step(self, action: int | str) -> Outcome:
        """One round of the single-agent view: the main agent acts, then every NPC, then the
        clock advances. The Gymnasium env and trajectory replay both use exactly this."""
        outcome = self.act(self.main, action)
        self.step_npcs()
        self.end_round()
        return outcome

    def step_npcs(self) -> None:
        """Let every controlled agent act once (the turn order of the AEC env): `act` for
        each, without the Outcomes nobody reads."""
        for i, ctrl in enumerate(self.controllers):
            if ctrl is not None:
                choice = ctrl.choose()
                if choice is not None:
                    acts = self._agent_actions[i]
                    if isinstance(choice, str):
                        choice = self.action_index(choice, i)
                    if 0 <= choice < len(acts):
                        self._run(i, acts[choice])

    def end_round(self) -> None:
        """Advance the clock and fire due scheduled effects."""
        st = self.state
        st.step += 1
        if st.schedule:
            due = [s for s in st.schedule if s.due <= st.step]
            if due:
                st.schedule = [s for s in st.schedule if s.due > st.step]
                for s in due:
                    if s.regrow:
                        regrow(self, s)
                    elif st.grid[s.cell] == s.expect:
                        self.set_cell(s.cell, s.type_id)
        if self.spec.events:
            run_events(self)

    def action_mask(self, agent: int | None = None) -> np.ndarray:
        """Which of the agent's actions would not be refused now (approach ignores other
        agents standing in the way; it may still be refused when one blocks the only path)."""
        agent = self.main if agent is None else agent
        plans: dict[int, MaskPlan] = self.__dict__.setdefault("_mask_plans", {})
        plan = plans.get(agent)
        if plan is None:  # worked out once per agent (transition_to drops them)
            plan = plans[agent] = MaskPlan.of(self._agent_actions[agent])
        return plan.evaluate(self, agent)

    # --------------------------------------------------------------------- queries
    def goal_reached(self, agent: int | None = None) -> bool:
        inv = self.state.inventory
        row = self.main if agent is None else agent
        goal = self._goal  # plain ints: called every env step, on a handful of goal items
        for i in self._goal_ids.tolist():  # noqa: SIM110 (a loop: no generator per call)
            if inv.item(row, i) < goal.item(i):
                return False
        return True

    def front(self, agent: int) -> tuple[int, int] | None:
        # plain ints, not numpy arithmetic: every interaction and mask calls this each step
        st = self.state
        dr, dc = _STEPS[st.facing.item(agent)]
        r, c = st.pos.item(agent, 0) + dr, st.pos.item(agent, 1) + dc
        h, w = st.grid.shape
        if 0 <= r < h and 0 <= c < w:
            return r, c
        return None

    def front_type(self, agent: int) -> int:
        """Type id in front of the agent; air (0) past the edge of the map."""
        cell = self.front(agent)
        return 0 if cell is None else int(self.state.grid[cell])

    def agent_at(self, cell: tuple[int, int]) -> int | None:
        hits = np.flatnonzero((self.state.pos[:, 0] == cell[0]) & (self.state.pos[:, 1] == cell[1]))
        return int(hits[0]) if len(hits) else None

    def counts(self) -> np.ndarray:
        """Things of each type on the map: agents, and the floor (air, a door) under them."""
        n = len(self.types)
        return np.bincount(self.state.grid.ravel(), minlength=n) + np.bincount(
            self.state.under, minlength=n)

    def passable_mask(self) -> np.ndarray:
        return self.types.passable[self.state.grid]

    # ------------------------------------------------------------------- mutation
    def set_cell(self, cell: tuple[int, int], type_id: int) -> None:
        """Change a map cell (not an agent's); keeps property records and versions right."""
        st = self.state
        st.grid[cell] = type_id
        st.props.pop(cell, None)
        if st.damage:  # a new content starts undamaged
            st.damage.pop(cell, None)
        if st.schedule:  # what was due for the old content of the cell no longer applies
            st.schedule = [s for s in st.schedule if s.cell != cell or s.regrow]
        defaults = self.spec.entity_types[self.types.names[type_id]].properties
        if defaults:
            st.props[cell] = dict(defaults)
        st.static_version += 1
        tname = self.types.names[type_id]
        grows = self.spec.entity_types[tname].grows_into
        if grows is not None:
            self.schedule(grows.after, cell, self.types.id(grows.spawn), expect=type_id)

    def schedule(self, after: int, cell: tuple[int, int], type_id: int, expect: int,
                 regrow: str = "") -> None:
        self.state.schedule.append(Scheduled(self.state.step + after, cell, type_id, expect,
                                             regrow))

    def move_agent(self, agent: int, cell: tuple[int, int]) -> None:
        st = self.state
        old = (int(st.pos[agent, 0]), int(st.pos[agent, 1]))
        tid = st.grid[old]
        st.grid[old] = st.under[agent]
        st.under[agent] = st.grid[cell]
        st.grid[cell] = tid
        st.pos[agent] = cell

    # ------------------------------------------------------------- novelty arrival
    def transition_to(self, spec: WorldSpec) -> None:
        """Switch to another spec mid-episode, keeping the state (a novelty arriving).

        Things keep their places and the agents their inventories; type ids are remapped by
        name, so a spec that adds types or actions is fine. New property defaults apply to
        the things already on the map, and `map.surround` is applied to the map as it is.
        A type the new spec removes must not be on the map or in any inventory.
        """
        old_names, st, old_events = self.types.names, self.state, self.spec.events
        # the random stream and the episode count continue
        kept = {"_seed": self._seed, "rng": self.rng, "episode": self.episode,
                "_stream": self._stream, "_resets": self._resets}
        self.__dict__.clear()  # drop every cache keyed on the old spec
        self.__dict__.update(kept)
        self._setup(spec)
        new = self
        remap = np.zeros(len(old_names), np.int16)
        for i, name in enumerate(old_names):
            if name in new.types.index:
                remap[i] = new.types.id(name)
            elif (st.grid == i).any() or (st.inventory[:, i] > 0).any() or (st.under == i).any():
                raise ValueError(f"the new spec removes type '{name}', which is still in use")
        inventory = np.zeros((len(st.pos), len(new.types)), np.int32)
        inventory[:, remap] = st.inventory
        grid = remap[st.grid]
        props: dict[tuple[int, int], dict[str, Any]] = {}
        for tid, tname in enumerate(new.types.names):
            defaults = spec.entity_types[tname].properties
            if defaults:
                for r, c in np.argwhere(grid == tid):
                    cell = (int(r), int(c))
                    props[cell] = {**defaults, **st.props.get(cell, {})}
        for cell, values in st.props.items():
            props.setdefault(cell, dict(values))
        from nesyworld.world.simulation.layout import surround

        surround(spec, new.types, grid)
        state = WorldState(
            grid, st.pos.copy(), st.facing.copy(), remap[st.under], inventory,
            remap[st.selected], props,
            [type(s)(s.due, s.cell, int(remap[s.type_id]), int(remap[s.expect]), s.regrow)
             for s in st.schedule],
            st.step, st.gave_up, st.static_version + 1, st.key, dict(st.damage),
            # an event that fired fired: the same event in the new spec does not fire again
            tuple(j for j, e in enumerate(spec.events) if any(e == old_events[i]
                                                              for i in st.fired)),
        )
        self.state = state

    # ----------------------------------------------------------- snapshots and files
    def snapshot(self) -> Snapshot:
        return Snapshot(self.state.copy(), self.rng.bit_generator.state)

    def restore(self, snap: Snapshot) -> None:
        self.state = snap.state.copy()
        self.rng.bit_generator.state = snap.rng_state
        for ctrl in self.controllers:
            if ctrl is not None:
                ctrl.reset()

    def save(self, path: str | Path) -> None:
        """Write the state and the generator's state as JSON (the spec is referenced by path)."""
        has_file = not self.spec.source.startswith("<")
        data = {
            "format": "nesyworld.state/1",
            "spec": self.spec.source if has_file else None,
            "novelties": list(self.spec.novelties),
            "state": self.state.to_dict(),
            "rng": self.rng.bit_generator.state,
            "stream": self._stream,  # with `resets`: the keys of the episodes to come
            "resets": self._resets,
        }
        Path(path).write_text(json.dumps(data))

    def load_state(self, path: str | Path) -> None:
        """Take the state saved in `path` (by `save`, from a world of this spec).

        Every field is checked against this world's spec first (state_file.py); a bad file
        is a SpecError naming the file and the field, and leaves this world unchanged."""
        from nesyworld.world.simulation import state_file
        from nesyworld.world.simulation.json_input import read_json

        name = str(path)
        doc = state_file.check_header(read_json(path, name, what=state_file.WHAT,
                                                max_bytes=state_file.MAX_BYTES), name)
        self._take_saved(doc, name)

    def _take_saved(self, doc: dict[str, Any], name: str) -> None:
        from nesyworld.world.simulation import state_file

        state, rng, stream = state_file.check_state(doc, name, self)
        try:
            self.rng.bit_generator.state = rng
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise SpecError(f"numpy refuses the generator state ({type(exc).__name__})",
                            file=name, key_path="rng",
                            expected="the generator state World.save wrote") from None
        self.state = state
        if stream is not None:
            self._stream, self._resets = stream

    @classmethod
    def load(cls, path: str | Path, spec: WorldSpec | str | Path | None = None) -> World:
        """A world in the state saved in `path`: the spec is the one the file names (with its
        novelties) unless `spec` is given. Any problem is one SpecError with the file and
        the field path."""
        from nesyworld.world.simulation import state_file
        from nesyworld.world.simulation.json_input import read_json

        name = str(path)
        doc = state_file.check_header(read_json(path, name, what=state_file.WHAT,
                                                max_bytes=state_file.MAX_BYTES), name)
        if spec is None:
            spec = state_file.saved_spec(doc, name)
        world = cls(spec)
        world._take_saved(doc, name)
        return world

    # -------------------------------------------------------------------- helpers
    def inventory_dict(self, agent: int | None = None) -> dict[str, int]:
        inv = self.state.inventory[self.main if agent is None else agent]
        return {self.types.names[i]: int(inv[i]) for i in np.flatnonzero(inv)}

    def describe(self, agent: int | None = None) -> str:
        a = self.main if agent is None else agent
        st = self.state
        cell = (int(st.pos[a, 0]), int(st.pos[a, 1]))
        return (f"step {st.step}: {self.agent_names[a]} at {cell} facing "
                f"{self.types.names[self.front_type(a)]}, holding "
                f"{self.types.names[st.selected[a]]}, inventory {self.inventory_dict(a)}")


def run_actions(world: World, names: Sequence[str], agent: int | None = None) -> list[Outcome]:
    """Apply named actions for one agent, with NPC turns and the clock between them."""
    if agent is None or agent == world.main:
        return [world.step(name) for name in names]
    out = []
    for name in names:
        out.append(world.act(agent, name))
        world.step_npcs()
        world.end_round()
    return out
