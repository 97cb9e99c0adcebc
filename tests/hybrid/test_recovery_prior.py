"""The recovery's action prior on the Fire novelty's failure (craft_pogo_stick refused at the
burning table): which actions it favours, and by how much."""

from __future__ import annotations

from functools import cache

from nesyworld.hybrid import PlanningAgent, PlanningConfig
from nesyworld.hybrid.agents.planning_agent import pre_novelty_actions
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.env import focus_actions, novel_actions, recovery_actions
from nesyworld.hybrid.recovery.recover import Recovery, RecoveryConfig
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
    return agent.world, agent.failures[0]


def known_types() -> set[str]:
    return {o.name for o in KB.base.objects}


def test_the_novel_actions_are_those_the_novelty_brought() -> None:
    world, failure = fire_failure()
    before = pre_novelty_actions(KB, world)
    novel = novel_actions(world, before, known_types())
    assert failure.operator.name == "craft_pogo_stick"
    assert novel >= FIRE_FIX
    assert "select_bucket" in novel  # names a type the novelty brought
    assert not novel & set(before)  # the pogostick world had none of them
    assert novel <= focus_actions(world, failure.operator, before, known_types())
    # nothing is novel in the world the knowledge base was derived from
    assert novel_actions(world, world.action_names(), world.types.names) == set()


def test_the_prior_adds_the_novelty_bias_on_top_of_the_focus_bias() -> None:
    world, failure = fire_failure()
    before = pre_novelty_actions(KB, world)
    names = recovery_actions(world)
    focus = focus_actions(world, failure.operator, before, known_types())
    novel = novel_actions(world, before, known_types())
    config = RecoveryConfig(focus_bias=2.0, novelty_bias=3.0)
    prior = dict(zip(names, Recovery(KB, config, before).action_prior(world, failure, names),
                     strict=True))
    assert {n for n, b in prior.items() if b == 5.0} == novel
    assert {n for n, b in prior.items() if b == 2.0} == focus - novel
    assert {n for n, b in prior.items() if b == 0.0} == set(names) - focus
    assert prior["approach_oak_log"] == 0.0  # neither named by the failure nor new
    without = Recovery(KB, RecoveryConfig(novelty_bias=0.0), before)
    assert set(without.action_prior(world, failure, names)) == {0.0, 2.0}
    none = Recovery(KB, RecoveryConfig(focus_bias=0.0, novelty_bias=0.0), before)
    assert none.action_prior(world, failure, names) == ()
