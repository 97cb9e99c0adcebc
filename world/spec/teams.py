"""The `multiagent:` spec section: which agents learn, and whether they share or race.

Without this section the multi-agent env rewards only the main agent (the single-agent task
seen from PettingZoo). With it, several agents are learners with a common goal:

- ``cooperative``: the team goal is met when the learners' *pooled* inventory holds it; every
  learner then gets the goal reward, so no learner can profit at the others' expense.
- ``competitive``: each learner races for the goal in its own inventory; the first to hold it
  wins (``reward.goal``), every other learner loses (``reward.lose``), and the episode ends
  for all.

The section is parsed here rather than in loader.py so the loader only gains one call; the
`SpecReader` it receives gives every error its file:line:column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from nesyworld.world.spec.model import Counts, frozen_counts

if TYPE_CHECKING:
    from nesyworld.world.spec.reader import SpecReader

Mode = Literal["cooperative", "competitive"]
MODES: tuple[Mode, ...] = ("cooperative", "competitive")
SECTION_KEYS = {
    "mode": "cooperative or competitive",
    "learners": "the names of the agents that learn (at least two)",
    "goal": "the team goal (cooperative) or each learner's goal (competitive)",
    "goals": "competitive only: {learner: {inventory: {...}}}, a learner's own goal",
    "reward": "goal, step and (competitive only) lose rewards for learners",
}
REWARD_KEYS = {"goal", "step", "lose"}


@dataclass(frozen=True)
class MultiAgentSpec:
    """How the multi-agent env rewards and ends episodes when several agents learn.

    `goal` is the team goal (pooled inventory, cooperative) or every learner's own goal
    (competitive), unless `goals` gives a learner its own (asymmetric races). Rewards go to
    learners only; other agents (traders, the rival) get 0.
    """

    mode: Mode
    learners: tuple[str, ...]
    goal: Counts
    goal_reward: float = 100.0
    step_reward: float = -1.0
    lose_reward: float = -100.0
    goals: Mapping[str, Counts] = field(default_factory=lambda: MappingProxyType({}))

    def goal_of(self, learner: str) -> Counts:
        """What `learner` must hold to win a race (the shared goal unless it has its own)."""
        return self.goals.get(learner, self.goal)

    @property
    def cooperative(self) -> bool:
        return self.mode == "cooperative"


def parse_multiagent(rd: SpecReader, raw: Any, types: Mapping[str, Any],
                     agents: Mapping[str, Any], goal: Mapping[str, int]
                     ) -> MultiAgentSpec | None:
    """The validated section, or None when the spec has none (the single-reward env).

    `types` are the raw entity types (for goal items), `agents` the parsed agents (learner
    names must be among them) and `goal` the spec's goal, used when the section gives none.
    """
    if raw is None:
        return None
    path = ("multiagent",)
    data = rd.mapping(raw, path, SECTION_KEYS)
    if "mode" not in data:
        raise rd.fail(path, "missing 'mode'", expected="mode: cooperative or competitive")
    mode = rd.string(data["mode"], (*path, "mode"))
    if mode not in MODES:
        raise rd.fail((*path, "mode"), f"unknown mode '{mode}'", found=mode,
                      expected="one of " + ", ".join(MODES))
    learners = _learners(rd, data.get("learners"), agents)
    team_goal = dict(goal)
    if "goal" in data:
        graw = rd.mapping(data["goal"], (*path, "goal"), {"inventory"})
        team_goal = rd.counts(graw.get("inventory"), (*path, "goal", "inventory"), types)
        if not team_goal:
            raise rd.fail((*path, "goal"), "empty goal",
                          expected="goal: {inventory: {item: count}}")
    goals = _own_goals(rd, data.get("goals"), mode, learners, types)
    rewards = rd.mapping(data.get("reward"), (*path, "reward"), REWARD_KEYS, nullable=True)
    if "lose" in rewards and mode != "competitive":
        raise rd.fail((*path, "reward", "lose"), "'lose' applies only to competitive mode",
                      key=True, expected="goal or step (a cooperative team never loses)")
    values = {k: rd.number(v, (*path, "reward", k)) for k, v in rewards.items()}
    goal_reward = values.get("goal", 100.0)
    return MultiAgentSpec(
        mode=mode,
        learners=learners,
        goal=frozen_counts(team_goal),
        goal_reward=goal_reward,
        step_reward=values.get("step", -1.0),
        lose_reward=values.get("lose", -goal_reward),
        goals=MappingProxyType(goals),
    )


def _own_goals(rd: SpecReader, raw: Any, mode: str, learners: tuple[str, ...],
               types: Mapping[str, Any]) -> dict[str, Counts]:
    path = ("multiagent", "goals")
    if raw is None:
        return {}
    if mode != "competitive":
        raise rd.fail(path, "per-learner goals apply only to competitive mode", key=True,
                      expected="goal: {inventory: ...} (a cooperative team has one goal)")
    out = {}
    for name, graw in rd.mapping(raw, path).items():
        if name not in learners:
            raise rd.fail((*path, name), f"'{name}' is not a learner", found=name, key=True,
                          expected="one of " + ", ".join(learners))
        graw = rd.mapping(graw, (*path, name), {"inventory"})
        counts = rd.counts(graw.get("inventory"), (*path, name, "inventory"), types)
        if not counts:
            raise rd.fail((*path, name), "empty goal",
                          expected="{inventory: {item: count}}")
        out[str(name)] = frozen_counts(counts)
    return out


def _learners(rd: SpecReader, raw: Any, agents: Mapping[str, Any]) -> tuple[str, ...]:
    path = ("multiagent", "learners")
    if raw is None:
        raise rd.fail(("multiagent",), "missing 'learners'",
                      expected="learners: [agent names], at least two")
    if not isinstance(raw, list):
        raise rd.fail(path, "wrong type", found=raw, expected="a list of agent names")
    names: list[str] = []
    for i, item in enumerate(raw):
        name = rd.string(item, (*path, i))
        if name not in agents:
            raise rd.fail((*path, i), f"unknown agent '{name}'", found=name,
                          expected="one of " + ", ".join(agents))
        if name in names:
            raise rd.fail((*path, i), f"agent '{name}' is listed twice", found=name,
                          expected="each learner once")
        names.append(name)
    if len(names) < 2:
        raise rd.fail(path, "too few learners", found=raw,
                      expected="at least two agent names")
    return tuple(names)
