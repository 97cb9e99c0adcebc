"""Induce before training (hybrid/recovery/induction.py): a successful recovery episode on
the Axe novelty's first failure becomes operators that verify by execution. A scripted
episode stands in for the policy's first success, so no training runs here."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from nesyworld.hybrid import PlanningAgent, PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.env import RecoveryEnvConfig, Win, from_failure
from nesyworld.hybrid.recovery.induction import (
    adopt,
    explained,
    induce_from_wins,
    new_wins,
    step_operators,
)
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import HOLDING, SetFact
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")


@cache
def axe_case() -> tuple[PlanningAgent, OperatorFailure, Win]:
    """The Axe failure and one scripted successful episode from it: select the axe, break."""
    env = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    agent = PlanningAgent(env, KB.copy(), PlanningConfig())
    obs, info = env.reset(seed=0)
    agent.reset(obs, info)
    for _ in range(100):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(obs, reward, terminated, truncated, info)
        if agent.failures or terminated or truncated:
            break
    failure = agent.failures[0]
    renv = from_failure(agent.env.unwrapped.world, failure, KB, RecoveryEnvConfig())
    renv.reset()
    for name in ("select_axe", "break"):
        renv.step(renv.action_names.index(name))
    assert len(renv.wins) == 1
    return agent, failure, renv.wins[0]


def test_a_successful_episode_is_kept_step_by_step() -> None:
    _, failure, win = axe_case()
    assert [a for a, _, _ in win.steps] == ["select_axe", "break"]
    assert win.steps[0][1] == failure.before
    seen: set[tuple[int, int]] = set()
    holder = SimpleNamespace(wins=[win])
    assert new_wins([holder], seen) == [win]  # type: ignore[list-item]
    assert new_wins([holder], seen) == []  # examined once


def test_only_the_changes_the_knowledge_base_does_not_explain_become_operators() -> None:
    _, _, win = axe_case()
    (_, z0, z1) = win.steps[1]
    # break_oak_log declares what breaking did; selecting the new axe it has no operator for
    assert explained(KB, "break", z0, z1)
    assert not explained(KB, "select_axe", win.steps[0][1], win.steps[0][2])
    ops = step_operators(win, KB, new_types={"axe"})
    assert [op.action for op in ops] == ["select_axe"]
    assert SetFact(HOLDING, ("axe",), True) in ops[0].effects


def test_the_induced_operators_verify_by_execution_and_join_the_knowledge_base() -> None:
    agent, failure, win = axe_case()
    kb = KB.copy()
    found = induce_from_wins([win], kb, failure, agent.boundary.recipe, {"pogo_stick": 1},
                             Planner(), new_types={"axe"})
    assert found.ok and found.verdict == "goal" and found.env_steps > 0
    # the failed operator now requires what the episode did before it worked
    assert found.tried == 1 and found.how == "require holding(axe)"
    assert {op.name for op in found.operators} <= {e.operator.name for e in found.kb}
    adopt(kb, found, {"induced": "test"})
    names = {e.operator.name for e in kb if e.status == "active"}
    assert {op.name for op in found.operators} <= names
    # the adopted knowledge base plans past the failure
    assert Planner().plan(kb.derivation(failure.before), goal={"pogo_stick": 1}).ok


def test_an_episode_the_knowledge_base_already_explains_induces_nothing() -> None:
    _, _, win = axe_case()
    unexplained = Win(win.start, tuple(s for s in win.steps if s[0] == "nop"))
    assert step_operators(unexplained, KB, new_types={"axe"}) == []
