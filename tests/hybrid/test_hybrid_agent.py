"""The hybrid agent's learning path end to end on the Axe novelty, with model repair off (it
repairs Axe without learning: tests/hybrid/test_repair.py) and a tiny training budget: a failure
triggers recovery, the learned operator is in the knowledge base and its PDDL, a fresh plan
uses it, the saved knowledge base loads and runs, and a failing learned operator is
fine-tuned rather than relearned. One training run is shared by the whole module."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import nesyworld.hybrid.agents.hybrid_agent as hybrid_agent_module
from nesyworld.hybrid import (
    HybridAgent,
    LearnedOperator,
    RecoveryConfig,
    RepairConfig,
    run_episode,
)
from nesyworld.hybrid.agents.hybrid_agent import operator_pddl
from nesyworld.hybrid.execution.episode import EpisodeResult
from nesyworld.hybrid.recovery.recover import Recovery
from nesyworld.learning import TrainConfig
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
from nesyworld.world.errors import SpecError

TINY = TrainConfig(step_budget=4_000, epoch_length=250, collect_chunk=250, eval_episodes=2,
                   vector_env="dummy", progress=False, seed=0)
CONFIG = RecoveryConfig.rapidlearn_plus(train=TINY, rollouts=4, extra_maps=2)
NO_REPAIR = RepairConfig(enabled=False)


@dataclass
class Adapted:
    agent: HybridAgent
    env: NoveltyInjector
    first: EpisodeResult
    kinds: list[str]


def make_agent(novelty: str, **kwargs: object) -> tuple[HybridAgent, NoveltyInjector]:
    env = NoveltyInjector(NesyGridEnv("pogostick"), [novelty])
    kwargs.setdefault("repair", NO_REPAIR)
    agent = HybridAgent(env, KnowledgeBase.from_world("pogostick"), None, CONFIG,
                        novelty=novelty, **kwargs)  # type: ignore[arg-type]
    return agent, env


@cache
def adapted() -> Adapted:
    kinds: list[str] = []
    agent, env = make_agent("axe", on_event=lambda e: kinds.append(e.kind))
    first = run_episode(env, agent, seed=0)
    return Adapted(agent, env, first, kinds)


def learned_op() -> LearnedOperator:
    op = adapted().agent.learned["learned_break_oak_log_1"]
    assert isinstance(op, LearnedOperator)
    return op


def test_a_failure_triggers_recovery_and_the_episode_still_succeeds() -> None:
    run = adapted()
    assert run.first.failures and run.first.failures[0]["operator"] == "break_oak_log"
    assert run.kinds.index("failure") < run.kinds.index("adaptation") < run.kinds.index(
        "learned")
    assert "learning" in run.kinds  # per-epoch progress was reported
    outcome = run.agent.recoveries[0]
    assert outcome.ok and outcome.converged and not outcome.fine_tuned
    assert 0 < outcome.env_steps <= TINY.step_budget + (CONFIG.rollouts + 2) * 100
    assert outcome.extra_starts == 2  # the same failure, met again on two other maps
    assert len(learned_op().starts) == 3
    assert run.agent.adaptation_env_steps == outcome.env_steps
    assert run.first.success


def test_learned_operator_is_in_the_knowledge_base_and_its_pddl() -> None:
    kb = adapted().agent.kb
    entry = kb.entry("learned_break_oak_log_1")
    assert entry.origin == "learned" and entry.status == "active"
    assert entry.meta["novelty"] == "axe" and entry.meta["env_steps"] > 0
    assert kb.entry("break_oak_log").status == "demoted"
    assert "learned_break_oak_log_1" in kb.entry("break_oak_log").reason
    text = operator_pddl(kb, "learned_break_oak_log_1")
    assert text.lstrip().startswith("; learned after break_oak_log failed")
    assert "(increase (inventory oak_log) 1)" in text
    assert "(facing oak_log)" in text  # the precondition that held at the failure
    domain, _ = kb.pddl()
    assert "(:action break_oak_log\n" not in domain  # demoted: not planned with


def test_a_fresh_plan_uses_the_learned_operator() -> None:
    run = adapted()
    assert run.agent.recoveries[0].plan_uses_it
    failure = run.agent.failures[0]
    result = Planner("fast-downward").plan(run.agent.kb.derivation(failure.before))
    assert result.ok
    assert result.steps[0].operator == "learned_break_oak_log_1"


def test_frozen_agent_succeeds_on_new_maps_without_learning() -> None:
    run = adapted()
    run.agent.learning = False
    try:
        results = [run_episode(run.env, run.agent, seed=s) for s in (11, 12)]
    finally:
        run.agent.learning = True
    assert all(r.success for r in results)
    assert len(run.agent.recoveries) == 1


def test_saved_knowledge_base_loads_and_runs(tmp_path: Path) -> None:
    run = adapted()
    run.agent.save(tmp_path)
    assert (tmp_path / "policies" / "learned_break_oak_log_1.pt").exists()
    assert "learned_break_oak_log_1" in (tmp_path / "domain.pddl").read_text()
    agent, env = make_agent("axe", learning=False)
    agent.load(tmp_path)
    loaded = agent.learned["learned_break_oak_log_1"]
    assert isinstance(loaded, LearnedOperator)
    assert loaded.schema == learned_op().schema
    obs = np.zeros(loaded.checkpoint.obs_dim, np.float32)
    assert np.allclose(loaded.checkpoint.policy().action_probabilities(obs),
                       learned_op().checkpoint.policy().action_probabilities(obs))
    result = run_episode(env, agent, seed=3)
    assert result.success and not result.failures  # the learned operator is planned first


def test_missing_policy_file_is_a_clear_error(tmp_path: Path) -> None:
    adapted().agent.save(tmp_path)
    (tmp_path / "policies" / "learned_break_oak_log_1.pt").unlink()
    agent, _ = make_agent("axe")
    try:
        agent.load(tmp_path)
    except SpecError as err:
        assert "learned_break_oak_log_1" in str(err) and "missing" in str(err)
    else:
        raise AssertionError("loading without the policy file should fail")


def test_a_failing_learned_operator_is_fine_tuned_not_relearned() -> None:
    run = adapted()
    kb = run.agent.kb.copy()
    previous = learned_op()
    failure = run.agent.failures[0]
    config = replace(CONFIG, train=replace(TINY, step_budget=500))
    world = run.agent.env.unwrapped.world
    outcome = Recovery(kb, config, novelty="axe").learn(world, failure, previous)
    assert outcome.fine_tuned and outcome.operator is not None
    assert outcome.operator.name == previous.name  # replaced in place, not learned anew
    assert [e.operator.name for e in kb].count(previous.name) == 1
    assert not any(n.startswith("learned_break_oak_log_2") for n in
                   (e.operator.name for e in kb))
    assert outcome.operator.checkpoint.env_steps > previous.checkpoint.env_steps
    assert outcome.operator.action_names == previous.action_names
    # trained on the new failure and all the old ones (no new maps sampled when tuning)
    assert len(outcome.operator.starts) == 1 + len(previous.starts)
    assert outcome.extra_starts == 0


def test_chest_is_no_failure_so_nothing_is_learned() -> None:
    agent, env = make_agent("chest")
    results = [run_episode(env, agent, seed=s) for s in range(3)]
    assert all(r.success for r in results)
    assert agent.recoveries == [] and agent.learned == {}


def test_a_policy_that_cannot_read_a_grown_world_does_not_run() -> None:
    from nesyworld.world import World
    from nesyworld.world.novelty.transforms import apply_novelties

    op = learned_op()
    world = World(apply_novelties("pogostick", ["axe", "chest"]), seed=0)  # one more type
    assert not op.fits(NesyGridEnv(world=world).observation_space)
    assert list(op.actions(world)) == []
    assert op.fits(adapted().env.observation_space)


def test_the_last_attempt_at_an_operator_trains_without_the_patience_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After its last attempt an operator is given up for good, so that attempt may not be
    cut short by `patience` (Fire seeds 2 and 8 were, and then failed every episode)."""
    patience: list[int] = []

    class GivesUp:
        def __init__(self, kb: object, config: RecoveryConfig, *args: object,
                     **kwargs: object) -> None:
            patience.append(config.patience)

        def learn(self, *args: object) -> SimpleNamespace:
            return SimpleNamespace(operator=None, induced=[], env_steps=0,
                                   error="none learned", summary=dict)

    failure = adapted().agent.failures[0]  # before the patch: adapted() may run here first
    monkeypatch.setattr(hybrid_agent_module, "Recovery", GivesUp)
    agent, env = make_agent("axe")
    env.reset(seed=0)
    assert CONFIG.attempts >= 2 and CONFIG.patience > 0
    for _ in range(CONFIG.attempts):
        agent._learn(failure, None, agent.recovery_config)
    assert patience == [CONFIG.patience] * (CONFIG.attempts - 1) + [0]
