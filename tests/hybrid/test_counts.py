"""One vocabulary of counts (docs/COUNTS.md): a failure is shown at the world step whose
action failed, in its text, its event and its recording frame alike; a recovery's env steps
in all are its learning plus its evaluation steps."""

from __future__ import annotations

from nesyworld import KnowledgeBase, PlanningAgent, PlanningConfig, apply_novelties, run_episode
from nesyworld.hybrid.recovery.config import RecoveryResult
from nesyworld.world.envs import NesyGridEnv


def test_a_failure_is_shown_at_the_world_step_whose_action_failed() -> None:
    env = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    agent = PlanningAgent(env, KnowledgeBase.from_world("pogostick"),
                          PlanningConfig(mode="primitive", planner="in-process"))
    run_episode(env, agent, seed=0)
    failure = agent.failures[0]
    event = next(e for e in agent.events if e.kind == "failure")
    assert failure.detected == failure.step + 1  # a refused one-action operator
    assert event.step == failure.world_step == failure.detected
    assert str(failure).startswith(f"world step {failure.world_step}: break_oak_log")
    assert failure.to_dict()["world_step"] == failure.world_step
    assert failure.snapshot is not None and failure.snapshot.state.step == failure.step


def test_a_recoverys_env_steps_are_its_learning_plus_evaluation_steps() -> None:
    outcome = RecoveryResult("f", None, 2_604, 80, 1.0, True, False, False)
    assert outcome.env_steps == 2_684
    s = outcome.summary()
    assert (s["env_steps"], s["learning_steps"], s["evaluation_steps"]) == (2_684, 2_604, 80)
