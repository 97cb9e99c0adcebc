"""Round rewards of the multi-agent env when a spec has a `multiagent:` section.

Kept apart from the AEC env so the reward semantics are one small pure function of the world
state that tests (and the trainer's evaluation) can check directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nesyworld.world.simulation.world import World
from nesyworld.world.spec.teams import MultiAgentSpec


@dataclass(frozen=True)
class RoundResult:
    """What one finished round gives the learners.

    `rewards` holds every learner (others get nothing). `done` ends the episode for all;
    `winner` is the winning learner (competitive) and None otherwise.
    """

    rewards: dict[str, float]
    done: bool
    success: bool
    winner: str | None = None


class TeamRewards:
    """Scores rounds for one world: cooperative (pooled goal) or competitive (a race)."""

    def __init__(self, world: World, team: MultiAgentSpec) -> None:
        self.team = team
        self.learners: tuple[str, ...] = team.learners
        self._rows = np.array([world.agent_names.index(n) for n in team.learners])
        items = list(dict.fromkeys(
            [*team.goal, *(i for g in team.goals.values() for i in g)]))
        self._ids = np.array([world.types.id(item) for item in items], dtype=np.intp)
        # one row of needed counts per learner (all rows equal unless `goals` differ)
        self._need = np.array([[team.goal_of(n).get(i, 0) for i in items]
                               for n in team.learners], dtype=np.int64)
        self._give_up = world.spec.reward.give_up

    def _holds(self, inventory: np.ndarray) -> np.ndarray:
        """Per learner (competitive) or for the pool (cooperative): does it meet the goal?"""
        have = inventory[self._rows][:, self._ids].astype(np.int64)
        if self.team.cooperative:
            return np.atleast_1d(np.all(have.sum(axis=0) >= self._need[0]))
        return np.all(have >= self._need, axis=1)

    def score(self, world: World) -> RoundResult:
        """The rewards of the round that just ended. In a race, learners reach the goal in
        turn order within a round and nobody can lose items to another agent, so the first
        learner in turn order holding the goal is the first to have reached it."""
        team, st = self.team, world.state
        holds = self._holds(st.inventory)
        base = team.step_reward + (self._give_up if st.gave_up else 0.0)
        rewards = {name: base for name in self.learners}
        if team.cooperative:
            success = bool(holds[0])
            if success:
                rewards = {name: r + team.goal_reward for name, r in rewards.items()}
            return RoundResult(rewards, success or st.gave_up, success)
        winners: Sequence[int] = np.flatnonzero(holds).tolist()
        if not winners:
            return RoundResult(rewards, st.gave_up, False)
        winner = self.learners[winners[0]]
        for name in self.learners:
            rewards[name] += team.goal_reward if name == winner else team.lose_reward
        return RoundResult(rewards, True, True, winner)
