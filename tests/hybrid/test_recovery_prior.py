"""The recovery's action prior on the Fire novelty's failure (craft_pogo_stick refused at the
burning table): which actions it favours, and by how much."""

from __future__ import annotations

from functools import cache

from nesyworld.hybrid import PlanningAgent, PlanningConfig
from nesyworld.hybrid.agents.planning_agent import pre_novelty_actions
from nesyworld.hybrid.boundary import WorldAdapter
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.knowledge.regime import observed_types
from nesyworld.hybrid.recovery.config import RecoveryConfig
from nesyworld.hybrid.recovery.env import (
    focus_actions,
    new_types,
    novel_actions,
    recovery_actions,
)
from nesyworld.hybrid.recovery.recover import Recovery
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")
FIRE_FIX = {"approach_water_bucket", "select_water_bucket"}
"""The actions of Fire's fix that only the novelty brought (the rest, collect, use,
approaching the table and crafting, the agent had before)."""


@cache
def fire_failure() -> tuple[World, OperatorFailure]:
    """The planning agent under the Fire novelty, run until craft_pogo_stick is refused."""
    env = NesyGridEnv(apply_novelties("pogostick", ["fire"]))
    agent = PlanningAgent(env, KB, PlanningConfig(planner="in-process"))
    obs, info = env.reset(seed=0)
    agent.reset(obs, info)
    for _ in range(200):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(obs, reward, terminated, truncated, info)
        if agent.failures or terminated or truncated:
            break
    assert agent.failures, "the Fire novelty should make craft_pogo_stick fail"
    return agent.env.unwrapped.world, agent.failures[0]


def known_types() -> set[str]:
    return {o.name for o in KB.base.objects}


def fresh(world: World, failure: OperatorFailure) -> set[str]:
    """The new types the agent observed at the failure."""
    assert failure.before is not None
    return new_types(observed_types(failure.before), known_types())


def test_the_novel_actions_are_those_the_novelty_brought() -> None:
    world, failure = fire_failure()
    before = pre_novelty_actions(KB, world.action_names())
    offered = world.action_names()
    novel = novel_actions(offered, before, fresh(world, failure))
    assert failure.operator.name == "craft_pogo_stick"
    assert novel >= FIRE_FIX
    assert "select_bucket" in novel  # names a type the novelty brought
    assert not novel & set(before)  # the pogostick world had none of them
    assert novel <= focus_actions(offered, failure.operator, before, fresh(world, failure))
    # nothing is novel in the world the knowledge base was derived from
    assert novel_actions(offered, offered, ()) == set()


def test_the_prior_adds_the_novelty_bias_on_top_of_the_focus_bias() -> None:
    world, failure = fire_failure()
    before = pre_novelty_actions(KB, world.action_names())
    names = recovery_actions(world.action_names())
    focus = focus_actions(world.action_names(), failure.operator, before, fresh(world, failure))
    novel = novel_actions(world.action_names(), before, fresh(world, failure))
    config = RecoveryConfig(focus_bias=2.0, novelty_bias=3.0)
    prior = dict(zip(names, Recovery(KB, config, before).action_prior(
        WorldAdapter.of_world(world), failure, names),
                     strict=True))
    assert {n for n, b in prior.items() if b == 5.0} == novel
    assert {n for n, b in prior.items() if b == 2.0} == focus - novel
    assert {n for n, b in prior.items() if b == 0.0} == set(names) - focus
    assert prior["approach_oak_log"] == 0.0  # neither named by the failure nor new
    without = Recovery(KB, RecoveryConfig(novelty_bias=0.0), before)
    assert set(without.action_prior(WorldAdapter.of_world(world), failure, names)) == {0.0, 2.0}
    none = Recovery(KB, RecoveryConfig(focus_bias=0.0, novelty_bias=0.0), before)
    assert none.action_prior(WorldAdapter.of_world(world), failure, names) == ()
