"""A failure too rare to learn from is left to replanning (hybrid/recovery/recurrence.py)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

from nesyworld.hybrid import PlanningAgent, run_episode
from nesyworld.hybrid.agents.planning_agent import PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery import recover
from nesyworld.hybrid.recovery.config import RecoveryConfig
from nesyworld.hybrid.recovery.recover import RARE, Recovery
from nesyworld.hybrid.recovery.recurrence import RecurrenceTest, binomial_cdf
from nesyworld.hybrid.recovery.starts import SampledStarts
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector


def test_binomial_cdf() -> None:
    assert binomial_cdf(0, 22, 0.1) == pytest.approx(0.9 ** 22)
    assert binomial_cdf(16, 16, 0.3) == pytest.approx(1.0)


def test_a_failure_on_every_map_is_learned_from_on_the_first_maps() -> None:
    test = RecurrenceTest()
    assert test.more_maps(16, 16) == 0 and not test.proven_rare(16, 16)
    assert test.more_maps(4, 16) == 0  # a quarter of maps: frequent, no more sampling


def test_a_failure_met_on_no_map_is_proven_rare_on_22_maps() -> None:
    test = RecurrenceTest()
    assert test.more_maps(0, 16) == 6
    assert test.proven_rare(0, 22) and not test.proven_rare(0, 21)
    assert test.maps_to_prove_rare(2) == 52


def test_the_test_errs_towards_learning() -> None:
    """Sequential sampling as Recovery does it: a failure on a fifth of maps is learned from
    99 times in 100; one on 2% of maps is left to replanning."""
    test = RecurrenceTest()
    rng = random.Random(0)

    def rare(p: float) -> bool:
        draws = [rng.random() < p for _ in range(test.max_maps)]
        maps = 16
        while more := test.more_maps(sum(draws[:maps]), maps):
            maps += more
        return test.proven_rare(sum(draws[:maps]), maps)

    assert sum(rare(0.2) for _ in range(500)) <= 10
    assert sum(rare(0.02) for _ in range(500)) >= 480


def test_turned_off_it_never_calls_a_failure_rare() -> None:
    off = RecurrenceTest(max_maps=0)
    assert not off.proven_rare(0, 1000) and off.more_maps(0, 16) == 0


def _axe_failure() -> tuple[NoveltyInjector, OperatorFailure]:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    agent = PlanningAgent(env, KnowledgeBase.from_world("pogostick"),
                          PlanningConfig(planner="in-process"))
    run_episode(env, agent, seed=0)
    return env, agent.failures[0]


def test_a_failure_the_fresh_maps_prove_rare_is_not_learned(monkeypatch: Any) -> None:
    """The maps meet the failure nowhere: 22 maps are sampled (their steps are counted), no
    operator is learned, and a second try with the same knowledge spends nothing."""
    asked: list[int] = []

    def nowhere(spec: Any, kb: Any, failure: Any, seeds: Iterable[int],
                **kwargs: Any) -> SampledStarts:
        seeds = list(seeds)
        asked.extend(seeds)
        return SampledStarts([], 10 * len(seeds), len(seeds))

    monkeypatch.setattr(recover, "sample_failure_starts", nowhere)
    env, failure = _axe_failure()
    kb = KnowledgeBase.from_world("pogostick")
    recovery = Recovery(kb, RecoveryConfig.rapidlearn_plus(), novelty="axe")
    outcome = recovery.learn(env.unwrapped.world, failure)
    assert outcome.operator is None and outcome.error.startswith(RARE)
    assert "0 of 22 fresh maps" in outcome.error
    assert outcome.learning_steps == 220 and len(set(asked)) == 22
    again = Recovery(kb, RecoveryConfig.rapidlearn_plus(), novelty="axe").learn(
        env.unwrapped.world, failure)
    assert again.operator is None and again.env_steps == 0 and len(asked) == 22
