"""Episode recordings: what an agent saw, did and thought, step by step, for the studio.

A trajectory (`nesyworld.world.simulation.trajectory`) is enough to replay the world, but not
to show *why*: the plan, the operator being executed, the failure, the learning. A recording keeps
those too, and stores every frame rather than re-simulating it, so it still opens when the
spec, a novelty or the code has changed since it was made. Entity types are stored by name
in a table of the recording's own, since a novelty may renumber the world's type ids.

The trajectory it carries records the novelties that changed the world, read from the
NoveltyInjector under it (`in_effect`) after the reset and after every step, each with the step
it arrived at and its definition, so `nesyworld replay` re-applies them. A world changed by
novelties no injector reports (a spec built with them) gets no trajectory.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np

from nesyworld.world.simulation.recorded_novelty import (
    RecordedNovelty,
    injection_document,
    recordable,
)
from nesyworld.world.simulation.trajectory import state_digest

if TYPE_CHECKING:
    from nesyworld.world.envs import NesyGridEnv
    from nesyworld.world.simulation.world import World

FORMAT = "nesyworld.episode/1"
KINDS = ("plan", "no_plan", "done", "failure", "drift", "novelty", "give_up", "adaptation",
         "learning", "learned", "recovery_failed")
"""The agent events a recording keeps (every kind `PlanningAgent` and `HybridAgent` emit)."""


@dataclass
class EpisodeRecording:
    """One recorded episode. `frames[0]` is the state after the reset; frame k > 0 is the
    state after the k-th action, with that action, its outcome and the operator it served."""

    spec: str
    seed: int | None
    agent: str
    novelties: list[str] = field(default_factory=list)
    types: list[dict[str, Any]] = field(default_factory=list)
    """name, glyph and colour (or None) of each entity type, indexed by the frames' grids."""
    frames: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    """Agent events, each with the frame it happened before (`frame`)."""
    domains: list[dict[str, Any]] = field(default_factory=list)
    """The agent's PDDL domain from frame `frame` on: the first, then one per learned
    operator spliced in."""
    problem: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    knowledge: str = ""
    """The agent's knowledge regime (docs/KNOWLEDGE.md); "" for an agent that has none."""
    refusals: str = "explained"
    """Whether the env said why it refused an action."""
    trajectory: dict[str, Any] | None = None
    """The replayable trajectory (`nesyworld replay`), with the novelties that arrived;
    None when the world was changed in a way it cannot record (see EpisodeRecorder)."""
    run_seed: int | None = None
    """The run seed the episode belongs to (`nesyworld run --seed`), whose map seeds are large
    numbers of its own block (hybrid/seeding.py); None when the episode was made with a map
    seed alone."""

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"format": FORMAT, **asdict(self)},
                                         separators=(",", ":")))


class FrameEncoder:
    """Turns world states into frames, with type ids mapped into the recording's own table."""

    def __init__(self) -> None:
        self.types: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}
        self._lut: np.ndarray | None = None
        self._lut_for: Any = None

    def _table(self, catalog: Any) -> np.ndarray:
        if self._lut_for is not catalog:
            for name, glyph, color in zip(catalog.names, catalog.glyphs, catalog.colors,
                                          strict=True):
                if name not in self._index:
                    self._index[name] = len(self.types)
                    self.types.append({"name": name, "glyph": glyph,
                                       "color": list(color) if color else None})
            self._lut = np.array([self._index[n] for n in catalog.names], np.int32)
            self._lut_for = catalog
        assert self._lut is not None
        return self._lut

    def frame(self, world: Any) -> dict[str, Any]:
        st, a = world.state, world.main
        grid = self._table(world.types)[st.grid]
        return {"step": int(st.step), "grid": grid.tolist(),
                "pos": [int(st.pos[a, 0]), int(st.pos[a, 1])], "facing": int(st.facing[a]),
                "inventory": world.inventory_dict(),
                "selected": world.types.names[int(st.selected[a])],
                "action": None, "ok": True, "reason": "", "reward": 0.0,
                "operator": None, "plan_index": None}


class EpisodeRecorder(gym.Wrapper):
    """Records the first episode run through it (agent events included) and saves it to
    `path` when that episode ends; later episodes pass through untouched.

    Give it the agent (after making the agent on the wrapper or on the inner env): the
    recorder reads the agent's `events`, its `current` operator and its knowledge base.
    """

    def __init__(self, env: gym.Env, path: str | Path, agent: Any = None,
                 novelties: list[str] | None = None, run_seed: int | None = None) -> None:
        super().__init__(env)
        self.path = Path(path)
        self.run_seed = run_seed
        self.agent = agent
        self.novelties = list(novelties or [])
        self.recording: EpisodeRecording | None = None
        self.saved = False
        self._encoder = FrameEncoder()
        self._events_from = 0
        self._learned_seen = 0
        self._reward = 0.0
        self._injections: list[RecordedNovelty] = []
        self._replayable = True

    @property
    def world(self) -> World:
        # Gymnasium types `unwrapped` as any Env: here it is a NesyGridEnv
        return cast("NesyGridEnv", self.env.unwrapped).world

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        if self.saved:
            return obs, info
        world, agent = self.world, self.agent
        seed = kwargs.get("seed")
        self.recording = EpisodeRecording(
            spec=world.spec.name, seed=seed, agent=getattr(agent, "name", "?"),
            novelties=self.novelties, knowledge=str(getattr(agent, "knowledge", "")),
            refusals=str(getattr(self.env.unwrapped, "refusals", "explained")),
            run_seed=self.run_seed)
        self.recording.frames.append(self._encoder.frame(world))
        kb = getattr(agent, "kb", None)
        if kb is not None:
            domain, problem = kb.pddl()
            self.recording.domains.append({"frame": 0, "domain": domain})
            self.recording.problem = problem
        self._events_from = len(getattr(agent, "events", []))
        self._reward, self._replayable = 0.0, True
        self._injections = [RecordedNovelty(0, True, n) for n in self._in_effect()]
        self._check_novelties()
        self._spec_source = world.spec.source
        self._actions: list[str] = []
        self._costs: list[float] = []
        self._digests = [state_digest(world.state)]
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        if self.saved or self.recording is None:
            return self.env.step(action)
        rec, world = self.recording, self.world
        self._take_events()  # what the agent did before choosing this action
        current = getattr(self.agent, "current", None)
        obs, reward, terminated, truncated, info = self.env.step(action)
        frame = self._encoder.frame(world)
        frame.update(action=info.get("action"), ok=bool(info.get("ok", True)),
                     reason=str(info.get("reason") or ""), reward=float(reward),
                     operator=current[0] if current else None,
                     plan_index=current[1] if current else None)
        rec.frames.append(frame)
        self._reward += float(reward)
        self._actions.append(str(info.get("action")))
        self._costs.append(float(info.get("cost", 0.0)))
        self._digests.append(state_digest(world.state))
        self._take_novelties()
        if terminated or truncated:
            self._take_events()
            rec.result = {"success": bool(info.get("success")), "steps": len(rec.frames) - 1,
                          "reward": self._reward}
            if self._replayable and recordable([r.novelty for r in self._injections]):
                rec.trajectory = {"spec": self._spec_source, "seed": rec.seed,
                                  "actions": self._actions, "digests": self._digests,
                                  "outcomes": [{"ok": f["ok"], "cost": c,
                                                "reason": f["reason"]}
                                               for f, c in zip(rec.frames[1:], self._costs,
                                                               strict=True)]}
                if self._injections:
                    rec.trajectory["injections"] = [injection_document(r)
                                                    for r in self._injections]
            rec.types = self._encoder.types
            rec.save(self.path)
            self.saved = True
        return obs, reward, terminated, truncated, info

    def _in_effect(self) -> tuple[Any, ...]:
        """The novelties in the running world, in composition order, as the NoveltyInjector
        under this recorder reports them; none without one."""
        try:
            return tuple(self.env.get_wrapper_attr("in_effect"))
        except AttributeError:
            return ()

    def _take_novelties(self) -> None:
        """Record the novelties that arrived with the step just taken (kept in the order they
        compose, which the replay follows)."""
        active = self._in_effect()
        known = {id(r.novelty): r for r in self._injections}
        if tuple(id(n) for n in active) != tuple(known):
            if not known.keys() <= {id(n) for n in active}:
                self._replayable = False  # a novelty left mid-episode: no injector does that
            step = len(self._actions)
            self._injections = [known.get(id(n)) or RecordedNovelty(step, False, n)
                                for n in active]
        self._check_novelties()

    def _check_novelties(self) -> None:
        """The world must have exactly the recorded novelties, or the replay would differ."""
        sources = tuple(r.novelty.source for r in self._injections)
        if sources != tuple(self.world.spec.novelties):
            self._replayable = False

    def _take_events(self) -> None:
        rec = self.recording
        events = getattr(self.agent, "events", [])
        assert rec is not None
        frame = len(rec.frames) - 1
        for event in events[self._events_from:]:
            data = jsonable_data(event.data)
            rec.events.append({"frame": frame, "step": int(event.step), "kind": event.kind,
                               "text": event.text, "data": data})
            if event.kind == "learned":
                domain, _ = self.agent.kb.pddl()
                rec.domains.append({"frame": frame, "domain": domain})
        self._events_from = len(events)


def jsonable_data(data: dict[str, Any]) -> dict[str, Any]:
    """An event's data without what JSON cannot hold."""
    return {k: v for k, v in data.items() if _jsonable(v)}


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
