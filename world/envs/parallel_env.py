"""The PettingZoo parallel view of a world: every agent picks an action each round at once.

A round is resolved exactly as in `NesyGridAEC` (whose world it drives): actions are applied
in spec order, so when two agents reach for the same log the earlier one gets it. Agents only
choose from what they saw at the start of the round, which is what learners in a
simultaneous-move game see; the AEC view is the one where later agents see earlier moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from gymnasium import spaces
from pettingzoo import ParallelEnv

from nesyworld.world.envs.aec_env import NesyGridAEC
from nesyworld.world.observations.builder import ObservationConfig
from nesyworld.world.spec.model import WorldSpec


class NesyGridParallel(ParallelEnv[str, Any, int]):
    """Parallel API over `NesyGridAEC`: same agents, spaces, rewards and terminations.

    `step(actions)` needs an action for every live agent; rewards are the round's rewards
    (team rewards when the spec has a `multiagent:` section). Infos hold the AEC env's infos
    plus each live agent's ``action_mask`` for the next round.
    """

    metadata: ClassVar[dict[str, Any]] = {**NesyGridAEC.metadata, "name": "nesygrid_parallel_v0"}

    def __init__(
        self,
        spec: WorldSpec | str | Path = "pogostick",
        observation: ObservationConfig | str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        seed: int | None = None,
    ) -> None:
        self.aec = NesyGridAEC(spec, observation, render_mode=render_mode, seed=seed)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = render_mode
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces

    @property
    def world(self) -> Any:
        return self.aec.world

    @property
    def learners(self) -> tuple[str, ...]:
        return self.aec.learners

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.action_space(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return self._observations(), self._infos()

    def step(self, actions: dict[str, int]) -> tuple[
            dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool],
            dict[str, dict[str, Any]]]:
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"every live agent needs an action; missing: {', '.join(missing)}")
        aec = self.aec
        rewards = {a: 0.0 for a in self.agents}
        for agent in self.agents:
            if aec.agent_selection != agent:  # pragma: no cover (spec order is turn order)
                raise RuntimeError(f"turn order broke: expected {agent}, "
                                   f"the AEC env is at {aec.agent_selection}")
            aec.step(int(actions[agent]))
            for a, r in aec.rewards.items():
                rewards[a] += r
        terminations = {a: aec.terminations[a] for a in self.agents}
        truncations = {a: aec.truncations[a] for a in self.agents}
        observations, infos = self._observations(), self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Any]:
        return {a: self.aec.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        w = self.aec.world
        out = {}
        for a in self.agents:
            info = {k: v for k, v in self.aec.infos[a].items() if k != "action_mask"}
            info["action_mask"] = w.action_mask(self.aec._index[a]).astype("int8")
            out[a] = info
        return out

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
