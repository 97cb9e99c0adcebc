"""Recordings of episodes on envs that are not nesyworld's (hybrid/adapters/): the same
format as writer.py's (`nesyworld.episode/1`), so the studio replays them, with the frames
drawn by the env's host.

A host that can be recorded has `frame()`: the map as rows of kind names, the agent's cell
(row, column) and facing (0 north, 1 east, 2 south, 3 west), its inventory and what it holds;
and `appearance(kind)`: a glyph and an RGB colour for a kind. Such a recording has no
trajectory: `nesyworld replay` re-simulates only nesyworld's worlds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from nesyworld.hybrid.recording.writer import EpisodeRecording, jsonable_data


def recordable(host: Any) -> bool:
    return callable(getattr(host, "frame", None)) and callable(getattr(host, "appearance",
                                                                          None))


class HostedRecorder(gym.Wrapper):
    """Records the first episode run through it and saves it to `path` when it ends.
    Give it the agent after making the agent (its events, current operator and knowledge
    base are read) and the host that draws the frames."""

    def __init__(self, env: gym.Env, path: str | Path, host: Any, spec: str,
                 novelties: list[str] | None = None, agent: Any = None) -> None:
        super().__init__(env)
        self.path, self.host, self.env_id, self.agent = Path(path), host, spec, agent
        self.novelties = list(novelties or [])
        self.recording: EpisodeRecording | None = None
        self.saved = False
        self._index: dict[str, int] = {}
        self._events_from = 0
        self._reward = 0.0

    def _frame(self) -> dict[str, Any]:
        view = self.host.frame()
        rec = self.recording
        assert rec is not None
        for row in view["grid"]:
            for name in row:
                if name not in self._index:
                    glyph, color = self.host.appearance(name)
                    self._index[name] = len(rec.types)
                    rec.types.append({"name": name, "glyph": glyph, "color": color})
        return {"step": int(self.host.step_count),
                "grid": [[self._index[n] for n in row] for row in view["grid"]],
                "pos": list(view["pos"]), "facing": int(view["facing"]),
                "inventory": dict(view["inventory"]), "selected": view["selected"],
                "action": None, "ok": True, "reason": "", "reward": 0.0,
                "operator": None, "plan_index": None}

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        if self.saved:
            return obs, info
        agent = self.agent
        self.recording = EpisodeRecording(
            spec=self.env_id, seed=kwargs.get("seed"), agent=getattr(agent, "name", "?"),
            novelties=self.novelties, knowledge=str(getattr(agent, "knowledge", "")))
        self.recording.frames.append(self._frame())
        kb = getattr(agent, "kb", None)
        if kb is not None:
            domain, problem = kb.pddl(state=self.host.detect())
            self.recording.domains.append({"frame": 0, "domain": domain})
            self.recording.problem = problem
        self._events_from = len(getattr(agent, "events", []))
        self._reward = 0.0
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        if self.saved or self.recording is None:
            return self.env.step(action)
        rec = self.recording
        self._take_events()
        current = getattr(self.agent, "current", None)
        names = self.host.actions()
        obs, reward, terminated, truncated, info = self.env.step(action)
        frame = self._frame()
        frame.update(action=names[int(action)] if 0 <= int(action) < len(names) else None,
                     reward=float(reward), operator=current[0] if current else None,
                     plan_index=current[1] if current else None)
        rec.frames.append(frame)
        self._reward += float(reward)
        if terminated or truncated:
            self._take_events()
            rec.result = {"success": bool(self.host.goal_reached()),
                          "steps": len(rec.frames) - 1, "reward": self._reward}
            rec.save(self.path)
            self.saved = True
        return obs, reward, terminated, truncated, info

    def _take_events(self) -> None:
        rec = self.recording
        assert rec is not None
        events = getattr(self.agent, "events", [])
        frame = len(rec.frames) - 1
        for event in events[self._events_from:]:
            rec.events.append({"frame": frame, "step": int(event.step), "kind": event.kind,
                               "text": event.text, "data": jsonable_data(event.data)})
            if event.kind in ("learned", "repaired"):
                domain, _ = self.agent.kb.pddl(state=self.host.detect())
                rec.domains.append({"frame": frame, "domain": domain})
        self._events_from = len(events)
