"""The multi-agent PettingZoo (AEC) view of a world: every agent, NPCs included, is played.

Here NPC controllers are not run: whoever steps the env chooses every agent's action (a
controller can still be used by hand, ``world.controllers[i].choose()``, which draws from the
same seeded generator, so driving every NPC by its controller reproduces the Gymnasium env).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

from nesyworld.world.envs.team_rewards import TeamRewards
from nesyworld.world.observations import render_ascii, render_rgb
from nesyworld.world.observations.builder import (
    ObservationBuilder,
    ObservationConfig,
    agent_poses,
    palette,
)
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.model import WorldSpec


class NesyGridAEC(AECEnv[str, Any, int | None]):
    """All agents of a world in spec order; a round ends after the last one acts.

    Agents: the spec's agent names (``possible_agents``), in spec order, which is also the turn
    order. Each has its own ``Discrete`` action space over its action set and its own
    observation (same `ObservationConfig`, built from that agent's position and inventory).

    Rewards: only the main agent is rewarded, once per round after the last agent acts, as in
    the Gymnasium env (``reward.step``, plus ``reward.goal`` when the goal is reached, plus
    ``reward.give_up`` when some agent gave up); NPCs get 0. A spec with a ``multiagent:``
    section rewards its learners instead (`TeamRewards`): cooperative learners share the
    team reward when their pooled inventory meets the team goal; in a competitive race the
    first learner to hold the goal wins and every other learner loses. Either ends the
    episode for all; infos then carry ``success`` and ``winner``.

    Termination: every agent terminates when the main agent's goal is reached or some agent
    gave up; every agent is truncated after ``spec.max_steps`` rounds.

    Infos: after an agent acts, its info holds ``action``, ``ok``, ``reason``, ``cost`` and
    ``step``; the agent about to act also gets ``action_mask`` (int8, PettingZoo's
    convention, so ``action_space(agent).sample(info["action_mask"])`` works).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "nesygrid_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        spec: WorldSpec | str | Path = "pogostick",
        observation: ObservationConfig | str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        seed: int | None = None,
        world: World | None = None,
        render_tile: int = 16,
    ) -> None:
        """`world` wraps an existing World (one a novelty was injected into, say) instead of
        building one from `spec`; `seed` only seeds a world built here."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} "
                f"or None, got {render_mode!r}"
            )
        self.world = world if world is not None else World(spec, seed)
        self.render_mode = render_mode
        self.render_tile = render_tile
        self.config = ObservationConfig.coerce(observation)
        w = self.world
        self.possible_agents: list[str] = list(w.agent_names)
        self.main_agent = w.agent_names[w.main]
        self._index = {name: i for i, name in enumerate(w.agent_names)}
        self._builders = {
            name: ObservationBuilder(w, i, self.config) for name, i in self._index.items()
        }
        self.observation_spaces = {name: b.space for name, b in self._builders.items()}
        self.action_spaces = {
            name: spaces.Discrete(len(w.action_names(i))) for name, i in self._index.items()
        }
        self.action_names = {name: w.action_names(i) for name, i in self._index.items()}
        reward = w.spec.reward
        self._r_step, self._r_goal, self._r_give_up = reward.step, reward.goal, reward.give_up
        self._max_steps = w.spec.max_steps
        team = w.spec.multiagent
        self.team = TeamRewards(w, team) if team is not None else None
        self.learners: tuple[str, ...] = (
            self.team.learners if self.team is not None else (self.main_agent,))
        self._agent_selector = AgentSelector(self.possible_agents)
        self._skip_agent_selection: str | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Any:
        return self._builders[agent].build()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A seed re-seeds the world; None continues its random stream."""
        self.world.reset(seed)
        if seed is not None:  # observation noise (if any): one seeded stream per agent
            for k, builder in enumerate(self._builders.values()):
                builder.noise_rng = np.random.default_rng([seed, k])
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._agent_selector.reinit(self.agents)
        self.agent_selection = self._agent_selector.reset()
        self._offer_mask(self.agent_selection)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"agent {agent!r} is alive, so it needs an action, not None")
        self._cumulative_rewards[agent] = 0.0
        w = self.world
        out = w.act(self._index[agent], int(action))
        self.infos[agent] = {
            "action": out.action,
            "ok": out.ok,
            "reason": out.reason,
            "cost": out.cost,
            "step": w.state.step,
        }
        if self._agent_selector.is_last():
            self._end_round()
        else:
            self._clear_rewards()
        self.agent_selection = self._agent_selector.next()
        self._accumulate_rewards()
        self._offer_mask(self.agent_selection)

    def _end_round(self) -> None:
        w = self.world
        w.end_round()
        st = w.state
        if self.team is not None:
            self._end_team_round()
            return
        success = w.goal_reached()
        reward = self._r_step + (self._r_goal if success else 0.0)
        if st.gave_up:
            reward += self._r_give_up
        self.rewards = {a: 0.0 for a in self.agents}
        if self.main_agent in self.rewards:
            self.rewards[self.main_agent] = reward
        if success or st.gave_up:
            self.terminations = {a: True for a in self.agents}
        elif st.step >= self._max_steps:
            self.truncations = {a: True for a in self.agents}
        for a in self.agents:
            self.infos[a]["success"] = success

    def _end_team_round(self) -> None:
        assert self.team is not None
        result = self.team.score(self.world)
        self.rewards = {a: result.rewards.get(a, 0.0) for a in self.agents}
        if result.done:
            self.terminations = {a: True for a in self.agents}
        elif self.world.state.step >= self._max_steps:
            self.truncations = {a: True for a in self.agents}
        for a in self.agents:
            self.infos[a]["success"] = result.success
            self.infos[a]["winner"] = result.winner

    def _offer_mask(self, agent: str) -> None:
        if self.terminations[agent] or self.truncations[agent]:
            return
        mask = self.world.action_mask(self._index[agent]).astype(np.int8)
        self.infos[agent] = {**self.infos[agent], "action_mask": mask}

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        w = self.world
        if self.render_mode == "ansi":
            return render_ascii(w.state.grid, w.types.glyphs, agent_poses(w))
        return render_rgb(w.state.grid, palette(w), agent_poses(w), self.render_tile)

    def close(self) -> None:
        pass


def make_aec(
    spec: WorldSpec | str | Path = "pogostick", *, wrap: bool = True, **kwargs: Any
) -> Any:
    """The multi-agent env of a spec; `wrap` adds PettingZoo's usual safety wrappers
    (out-of-bounds actions and call order are asserted), as a PettingZoo ``env()`` does."""
    env: Any = NesyGridAEC(spec, **kwargs)
    if wrap:
        env = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))
    return env
