"""A hybrid agent's run, published to a `LiveHub` as it goes: the map after each step of the
episode being played, the agent's events, the learning's progress per collected chunk, and
the knowledge base's domain before and after each operator is learned or repaired.

Why hooks on the env and the agent, not a recording read back: a recording is written when
its episode ends, and a recovery happens in the middle of one. The env wrapper sees every
step; the agent's `on_event` is called the moment an event is emitted (a recovery's epochs
arrive while it trains, from the run's own thread); its `on_progress` moves between epochs.
Events are read from `agent.events` by index, so those emitted while the CLI has unhooked
`on_event` (the frozen evaluation) still reach the page, once each.

Frames are encoded as recordings encode them (`FrameEncoder`: grids of ids into a type table
of names, glyphs and colours) and published at most every FRAME_INTERVAL seconds; the one
still pending goes out before the next event and at the episode's end, so the map a page
shows is the one the event happened on. A failure inside this module never stops the run:
it says so once on stderr and the live view stops.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym

from nesyworld.experiments.studio.levels import with_tile_colors
from nesyworld.experiments.studio.live import LiveHub
from nesyworld.hybrid.recording.writer import FrameEncoder

if TYPE_CHECKING:
    from nesyworld.world.envs import NesyGridEnv
    from nesyworld.world.simulation.world import World

FRAME_INTERVAL = 0.1
"""At most ten frames a second: a page cannot show more, and an episode's steps take
microseconds."""
ENDS = ("learned", "recovery_failed", "repaired", "repair_failed")
"""Events that end a recovery (its progress bar)."""


class LiveEnv(gym.Wrapper):
    """Passes everything through; tells its `LiveRun` about every reset and step."""

    def __init__(self, env: gym.Env, run: LiveRun) -> None:
        super().__init__(env)
        self.run = run

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.run.guarded(self.run.episode_starts, kwargs.get("seed"))
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        self.run.guarded(self.run.drain)  # what the agent did before choosing this action
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.run.guarded(self.run.stepped, info, float(reward), terminated or truncated)
        return obs, reward, terminated, truncated, info


class LiveRun:
    """Publishes one run to `hub`; make the agent on `self.env`, then `attach` it."""

    def __init__(self, hub: LiveHub, env: gym.Env, about: dict[str, Any]) -> None:
        self.hub = hub
        self.env = LiveEnv(env, self)
        self.about = dict(about)
        self.agent: Any = None
        self.summary: dict[str, Any] | None = None
        """The run's summary, when the command sets it (shown as the run's result)."""
        self.broken = False
        self.episode = 0
        self._phases: dict[str, int] = {}
        self._phase = ""
        self._encoder = FrameEncoder()
        self._types: list[dict[str, Any]] = []
        self._last_step: dict[str, Any] = {}
        self._pending = False
        self._sent_at = 0.0
        self._seen = 0
        self._reward = 0.0
        self._progress: dict[str, Any] = {}
        hub.publish("run", {**self.about, "state": "running"}, latest=True)

    @property
    def world(self) -> World:
        # Gymnasium types `unwrapped` as any Env: here it is a NesyGridEnv
        return cast("NesyGridEnv", self.env.unwrapped).world

    def guarded(self, step: Callable[..., None], *args: Any) -> None:
        """Run `step`; a bug in the live view is reported once and ends the view, never the
        run it shows."""
        if self.broken:
            return
        try:
            step(*args)
        except Exception as exc:  # the run matters more than its view
            self.broken = True
            print(f"nesyworld: warning: the live view stopped ({type(exc).__name__}: "
                  f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); the run goes on",
                  file=sys.stderr)

    # --- hooks -------------------------------------------------------------------------
    def attach(self, agent: Any) -> None:
        """Follow `agent`'s events (chained after its `on_event`) and learning progress."""
        self.agent = agent
        self._seen = len(agent.events)
        show = agent.on_event

        def on_event(event: Any) -> None:
            if show is not None:
                show(event)
            self.guarded(self.drain)

        agent.on_event = on_event
        previous = getattr(agent, "on_progress", None)

        def on_progress(steps: int) -> None:
            if previous is not None:
                previous(steps)
            self.guarded(self.progress, steps)

        agent.on_progress = on_progress
        self.guarded(self.domain)

    def episode_starts(self, seed: Any) -> None:
        self.drain()
        learning = getattr(self.agent, "learning", True)
        self._phase = "adaptation" if learning else "evaluation"
        self._phases[self._phase] = self._phases.get(self._phase, 0) + 1
        self.episode += 1
        self._reward = 0.0
        self._last_step = {}
        self.hub.publish("episode", {"episode": self.episode, "phase": self._phase,
                                     "number": self._phases[self._phase], "seed": seed})
        self._pending = True
        self.flush()

    def stepped(self, info: dict[str, Any], reward: float, done: bool) -> None:
        self._reward += reward
        self._last_step = {"action": info.get("action"), "ok": bool(info.get("ok", True)),
                           "reason": str(info.get("reason") or ""), "reward": reward}
        self._pending = True
        if done or time.monotonic() - self._sent_at >= FRAME_INTERVAL:
            self.flush()
        if done:
            self.drain()
            self.hub.publish("episode_end", {
                "episode": self.episode, "phase": self._phase,
                "number": self._phases.get(self._phase, 0),
                "success": bool(info.get("success")), "steps": int(self.world.state.step),
                "reward": self._reward})

    def progress(self, steps: int) -> None:
        if self._progress:
            self._progress.update(steps=int(steps), state="training")
            self.hub.publish("progress", self._progress, latest=True)

    # --- publishing --------------------------------------------------------------------
    def flush(self) -> None:
        """Publish the world as it is now, when a step since the last frame changed it."""
        if not self._pending:
            return
        self._pending = False
        self._sent_at = time.monotonic()
        frame = self._encoder.frame(self.world)
        if len(self._types) != len(self._encoder.types):
            self._types = with_tile_colors(self._encoder.types)
        current = getattr(self.agent, "current", None)
        frame.update(self._last_step, episode=self.episode, phase=self._phase,
                     operator=current[0] if current else None, types=self._types)
        self.hub.publish("frame", frame, latest=True)

    def drain(self) -> None:
        """Publish the agent's events the hub has not had, in order."""
        if self.agent is None:
            return
        events = self.agent.events
        if len(events) < self._seen:  # the list was replaced
            self._seen = 0
        fresh, self._seen = events[self._seen:], len(events)
        for event in fresh:
            self.flush()
            self.publish_event(event)

    def publish_event(self, event: Any) -> None:
        data = dict(event.data or {})
        self.hub.publish("agent", {"kind": event.kind, "text": event.text,
                                   "step": int(event.step), "episode": self.episode,
                                   "data": data})
        if event.kind == "adaptation" and "budget" in data:
            self._progress = {"operator": data.get("learning", ""), "steps": 0,
                              "budget": int(data["budget"]), "epoch": None,
                              "state": "preparing"}
            self.hub.publish("progress", self._progress, latest=True)
        elif event.kind == "learning" and self._progress:
            self._progress.update(steps=int(data.get("steps", 0)), epoch=data.get("epoch"),
                                  success_rate=data.get("success_rate"), state="training")
            self.hub.publish("progress", self._progress, latest=True)
        elif event.kind in ENDS:
            if self._progress:
                self._progress.update(state=event.kind)
                self.hub.publish("progress", self._progress, latest=True)
            self._progress = {}
            if event.kind in ("learned", "repaired"):
                self.domain()

    def domain(self) -> None:
        """The agent's domain now: the page diffs a failed operator against its successor."""
        kb = getattr(self.agent, "kb", None)
        if kb is not None:
            self.hub.publish("domain", {"domain": kb.pddl()[0], "episode": self.episode})

    def finish(self, state: str = "finished", error: str = "") -> None:
        """The run ended (`state`: finished or failed): the last frame and events, the
        run's summary, then the end of every stream."""
        if not self.broken:
            self.guarded(self.drain)
            self.guarded(self.flush)
        result = {"state": state, "error": error, "summary": self.summary}
        self.hub.publish("run", {**self.about, **result}, latest=True)
        self.hub.finish(result)
