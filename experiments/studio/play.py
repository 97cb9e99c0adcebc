"""Playing in the browser: a game the page drives one action at a time.

The server keeps the game (the page only sends action names), so the world's rules, the
legal actions and the monitor are the project's own, not a JavaScript copy. Besides the
user's keys, the page can let the planning agent take the next action: its events (plans,
operators done, the monitor's failures and drift) go into the game's event log, so a user
who interferes by hand sees the monitor's verdict on what they did. A novelty can be injected
mid-game (through world/simulation/recorded_novelty.py, as NoveltyInjector does on its
schedule). A game is saved as an episode recording (`nesyworld.episode/1`) with its
trajectory, which `nesyworld replay` verifies step by step, re-applying each novelty from the
definition the trajectory keeps, at the step it arrived.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.experiments.studio.levels import with_tile_colors
from nesyworld.experiments.terminal_play.play_session import FIXED_KEYS
from nesyworld.hybrid import PlanningAgent
from nesyworld.hybrid.recording.writer import EpisodeRecording, FrameEncoder
from nesyworld.world import World
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.recorded_novelty import (
    RecordedNovelty,
    inject_now,
    injection_document,
)
from nesyworld.world.simulation.trajectory import state_digest

KEYS = {key: action for key, action in FIXED_KEYS.items() if len(key) == 1}
"""The page's keys: the letters of `nesyworld play` in the terminal (any action is also a
button under the map)."""
MAX_GAMES = 8
"""Games kept at once; the oldest is dropped beyond that (a tab left open costs little)."""


class PlayError(ValueError):
    """A request the game cannot take (an unknown action, a game that is over)."""

    def __init__(self, message: str, where: str = "", expected: str = "") -> None:
        self.message, self.where, self.expected = message, where, expected
        super().__init__(message)


@dataclass
class Game:
    """One game: the env and the planning agent on it, and everything a recording needs."""

    spec: str
    """The spec's source (a shipped name or a saved level's path): what a trajectory names."""
    seed: int
    env: NesyGridEnv
    agent: PlanningAgent
    encoder: FrameEncoder = field(default_factory=FrameEncoder)
    frames: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    novelties: list[str] = field(default_factory=list)
    injections: list[RecordedNovelty] = field(default_factory=list)
    """The novelties that arrived, as the trajectory records them (their step and data)."""
    reward: float = 0.0
    over: str = ""
    """Why the game ended ("goal reached", "gave up", "out of steps"), "" while it runs."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    _info: dict[str, Any] = field(default_factory=dict)
    _obs: Any = None
    _seen_events: int = 0

    @property
    def world(self) -> World:
        return self.env.world

    @classmethod
    def start(cls, spec: str, seed: int) -> Game:
        env = NesyGridEnv(spec)
        obs, info = env.reset(seed=seed)
        agent = PlanningAgent(env)
        agent.reset(obs, info)
        game = cls(spec, seed, env, agent, _info=info, _obs=obs)
        game.frames.append(game.encoder.frame(env.world))
        game.digests.append(state_digest(env.world.state))
        game.log("start", f"{env.world.spec.name}, map seed {seed}: reach the goal "
                 f"({', '.join(f'{k} {v}' for k, v in env.world.spec.goal.items())})")
        return game

    def log(self, kind: str, text: str, **data: Any) -> None:
        self.events.append({"frame": len(self.frames) - 1, "step": len(self.frames) - 1,
                            "kind": kind, "text": text, "data": data})

    def legal(self) -> list[str]:
        mask = self.world.action_mask()
        return [n for n, ok in zip(self.env.action_names, mask, strict=True) if ok]

    def act(self, action: str, by: str = "you") -> None:
        """One world step: `action` by name, from the user's keys or the agent."""
        if self.over:
            raise PlayError(f"the game is over ({self.over})", "action", "a new game")
        names = self.env.action_names
        if action not in names:
            raise PlayError(f"unknown action '{action[:80]}'", "action",
                            "one of the spec's actions (listed under the map)")
        current = self.agent.current
        obs, reward, terminated, truncated, info = self.env.step(names.index(action))
        self._obs, self._info = obs, info
        world = self.world
        frame = self.encoder.frame(world)
        frame.update(action=action, ok=bool(info["ok"]), reason=str(info["reason"] or ""),
                     reward=float(reward),
                     operator=current[0] if current and by == "agent" else None,
                     plan_index=current[1] if current and by == "agent" else None)
        self.frames.append(frame)
        self.actions.append(action)
        self.outcomes.append({"ok": bool(info["ok"]), "cost": float(info["cost"]),
                              "reason": info["reason"]})
        self.digests.append(state_digest(world.state))
        self.reward += float(reward)
        step = len(self.frames) - 1
        outcome = "ok" if info["ok"] else f"refused: {info['reason']}"
        self.log("action", f"world step {step}: {action} ({by}): {outcome}", by=by)
        if terminated or truncated:
            self.over = ("goal reached" if info["success"] else
                         "gave up" if world.state.gave_up else "out of steps")
            self.log("done" if info["success"] else "give_up", f"the game is over: {self.over}")

    def agent_step(self) -> None:
        """The planning agent chooses the next action; its new events join the log."""
        if self.over:
            raise PlayError(f"the game is over ({self.over})", "agent", "a new game")
        index = self.agent.act(self._obs, self._info)
        self._take_agent_events()
        self.act(self.env.action_names[index], by="agent")
        self.agent.observe(self._obs, 0.0, bool(self.over), False, self._info)

    def _take_agent_events(self) -> None:
        for event in self.agent.events[self._seen_events:]:
            data = {k: v for k, v in event.data.items() if k in ("plan", "operator")}
            self.log(f"{event.kind}", f"monitor: {event.text}" if event.kind in (
                "failure", "drift", "done") else event.text, **data)
        self._seen_events = len(self.agent.events)

    def inject(self, novelty: str) -> None:
        """The novelty arrives now, the world keeping positions and inventories."""
        if self.over:
            raise PlayError(f"the game is over ({self.over})", "novelty", "a new game")
        world = self.world
        try:
            record = inject_now(world, self.spec, self.injections, novelty, len(self.actions))
        except SpecError as exc:
            raise PlayError(str(exc), "novelty", "a novelty this game can record") from None
        self.injections.append(record)
        self.env.use_world(world)
        self.digests[-1] = state_digest(world.state)  # digest k is the state after arrivals
        self.novelties.append(novelty)
        self._info = {**self._info, "action_mask": world.action_mask()}
        self.log("novelty", f"novelty '{novelty}' injected after world step "
                 f"{len(self.frames) - 1}", novelty=novelty)

    def view(self) -> dict[str, Any]:
        """What the page draws: the latest frame, the type table, legal actions, the log."""
        world = self.world
        return {"frame": self.frames[-1], "step": len(self.frames) - 1,
                "types": with_tile_colors(self.encoder.types),
                "actions": list(self.env.action_names), "legal": self.legal(),
                "events": self.events, "over": self.over, "novelties": self.novelties,
                "goal": dict(world.spec.goal), "description": world.describe()}

    def recording(self) -> EpisodeRecording:
        """The game as an episode recording, with its replayable trajectory."""
        success = self.over == "goal reached"
        trajectory: dict[str, Any] = {
            "spec": self.spec, "seed": self.seed, "actions": self.actions,
            "digests": self.digests, "outcomes": self.outcomes}
        if self.injections:
            trajectory["injections"] = [injection_document(r) for r in self.injections]
        domain, problem = self.agent.kb.pddl()
        return EpisodeRecording(
            spec=self.world.spec.name, seed=self.seed, agent="you (studio)",
            novelties=list(self.novelties), types=self.encoder.types, frames=self.frames,
            events=self.events, domains=[{"frame": 0, "domain": domain}], problem=problem,
            result={"success": success, "steps": len(self.frames) - 1,
                    "reward": self.reward}, trajectory=trajectory)


class Games:
    """The games the studio is running, by id; at most MAX_GAMES, oldest dropped first."""

    def __init__(self) -> None:
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def new(self, spec: str, seed: int) -> tuple[str, Game]:
        game = Game.start(spec, seed)
        with self._lock:
            gid = f"g{next(self._ids)}"
            self._games[gid] = game
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
        return gid, game

    def get(self, gid: str) -> Game:
        with self._lock:
            game = self._games.get(gid)
        if game is None:
            raise PlayError(f"no game '{gid[:20]}' (a game ends when the studio restarts, "
                            f"and only the {MAX_GAMES} latest are kept)", "game",
                            "a game started from this page")
        return game


def save_recording(game: Game, path: Path) -> dict[str, Any]:
    """Write the game to `path`; what the page says about it."""
    rec = game.recording()
    path.parent.mkdir(parents=True, exist_ok=True)
    rec.save(path)
    replayable = rec.trajectory is not None
    arrivals = (f", re-applying {len(game.injections)} novelt"
                f"{'y' if len(game.injections) == 1 else 'ies'} where they arrived"
                if game.injections else "")
    note = f"`nesyworld replay {path.name}` verifies its {len(game.actions)} world steps{arrivals}"
    return {"path": str(path.resolve()), "replayable": replayable, "note": note,
            "steps": len(game.actions), "recording": asdict(rec)["result"]}
