"""Multi-agent tasks: the `multiagent:` spec section, team rewards, and the PettingZoo APIs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test

from nesyworld.world import load_spec
from nesyworld.world.envs.aec_env import NesyGridAEC
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.parallel_env import NesyGridParallel
from nesyworld.world.envs.team_rewards import TeamRewards
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.world import World

SPECS = ["coop_pogostick", "race_pogostick"]


@pytest.mark.parametrize("name", SPECS)
def test_pettingzoo_api_tests_pass(name: str) -> None:
    api_test(NesyGridAEC(name, seed=0), num_cycles=100)
    parallel_api_test(NesyGridParallel(name, seed=0), num_cycles=100)


def test_the_shipped_specs_declare_their_modes() -> None:
    coop, race = (load_spec(n).multiagent for n in SPECS)
    assert (coop.mode, coop.learners) == ("cooperative", ("main_1", "helper_2"))
    assert (race.mode, race.learners, dict(race.goal)) == (
        "competitive", ("main_1", "rival_2"), {"oak_log": 2})
    assert race.lose_reward == -race.goal_reward


def test_without_the_section_only_the_main_agent_learns() -> None:
    env = NesyGridAEC("pogostick", seed=0)
    assert env.team is None and env.learners == ("main_1",)
    assert load_spec("pogostick").multiagent is None


def _give(env: NesyGridParallel, agent: str, **items: int) -> None:
    w = env.world
    for item, n in items.items():
        w.state.inventory[w.agent_names.index(agent), w.types.id(item)] = n


def _nop_round(env: NesyGridParallel) -> tuple:
    w = env.world
    return env.step({a: w.action_index("nop", w.agent_names.index(a)) for a in env.agents})


def test_cooperative_learners_share_the_pooled_goal_reward() -> None:
    env = NesyGridParallel("coop_pogostick")
    env.reset(seed=3)
    _give(env, "main_1", diamond=1)  # neither holds the goal alone: the pool does
    _give(env, "helper_2", oak_log=1)
    _, rewards, terms, _, infos = _nop_round(env)
    assert rewards == {"main_1": 99.0, "helper_2": 99.0}
    assert all(terms.values()) and env.agents == []
    assert infos["main_1"]["success"] and infos["main_1"]["winner"] is None


def test_cooperative_half_a_goal_pays_only_the_step_cost() -> None:
    env = NesyGridParallel("coop_pogostick")
    env.reset(seed=3)
    _give(env, "helper_2", oak_log=5)
    _, rewards, terms, truncs, _ = _nop_round(env)
    assert rewards == {"main_1": -1.0, "helper_2": -1.0}
    assert not any(terms.values()) and not any(truncs.values())


def test_competitive_first_to_the_goal_wins_and_ends_the_episode() -> None:
    env = NesyGridParallel("race_pogostick")
    env.reset(seed=1)
    _give(env, "rival_2", oak_log=2)
    _give(env, "main_1", oak_log=1)
    _, rewards, terms, _, infos = _nop_round(env)
    assert rewards == {"main_1": -101.0, "rival_2": 99.0}
    assert all(terms.values()) and infos["main_1"]["winner"] == "rival_2"


def test_competitive_tie_goes_to_the_earlier_turn() -> None:
    env = NesyGridParallel("race_pogostick")
    env.reset(seed=1)
    _give(env, "rival_2", oak_log=2)
    _give(env, "main_1", oak_log=2)
    _, rewards, _, _, infos = _nop_round(env)
    assert infos["rival_2"]["winner"] == "main_1" and rewards["main_1"] == 99.0


def test_a_race_won_by_breaking_trees_ends_in_the_aec_env() -> None:
    """Played through the actions (approach, break), not by editing inventories."""
    env = NesyGridAEC("race_pogostick", seed=0)
    env.reset(seed=0)
    w = env.world
    plan = ["approach_oak_log", "break"] * 2
    turns = 0
    while not all(env.terminations.values()) and turns < 40:
        agent = env.agent_selection
        i = w.agent_names.index(agent)
        name = plan[turns // 2] if agent == "main_1" and turns // 2 < len(plan) else "nop"
        env.step(w.action_index(name, i))
        turns += 1
    assert env.infos["main_1"]["winner"] == "main_1"
    assert env.rewards["rival_2"] == -101.0 and env.rewards["main_1"] == 99.0


_WORLDS = [World(name, seed=0) for name in SPECS]  # built once: examples only set inventories


@settings(max_examples=40, deadline=None)
@given(logs=st.tuples(st.integers(0, 3), st.integers(0, 3)),
       diamonds=st.tuples(st.integers(0, 2), st.integers(0, 2)))
def test_reward_semantics_hold_for_any_inventories(logs: tuple[int, int],
                                                   diamonds: tuple[int, int]) -> None:
    for w in _WORLDS:
        team = TeamRewards(w, w.spec.multiagent)
        for k, learner in enumerate(team.learners):
            row = w.agent_names.index(learner)
            w.state.inventory[row, w.types.id("oak_log")] = logs[k]
            w.state.inventory[row, w.types.id("diamond")] = diamonds[k]
        result = team.score(w)
        values = list(result.rewards.values())
        if team.team.cooperative:  # everyone gets the same, success iff the pool has it
            assert len(set(values)) == 1
            assert result.success == (sum(logs) >= 1 and sum(diamonds) >= 1)
        else:  # zero-sum apart from the step cost, and only a winner ends it
            assert result.success == result.done == (max(logs) >= 2)
            assert sum(values) == pytest.approx(len(values) * team.team.step_reward)
            if result.done:
                assert result.winner == team.learners[int(np.argmax(np.array(logs) >= 2))]


def test_the_batch_core_runs_multiagent_specs_compiled_and_alike() -> None:
    """The section changes only the PettingZoo env's rewards: the single-agent views (other
    learners run by their spec controllers) must agree step for step, compiled."""
    vec = NesyVectorEnv(2, spec="coop_pogostick")
    assert vec.batch.engine == "compiled", vec.batch.why_not
    singles = [NesyGridEnv("coop_pogostick") for _ in range(2)]
    obs, _ = vec.reset(seed=5)
    for i, env in enumerate(singles):
        o, _ = env.reset(seed=5 + i)
        np.testing.assert_array_equal(obs[i], o)
    rng = np.random.default_rng(0)
    alive = [True, True]  # compared until each copy's episode ends (then it autoresets)
    for _ in range(50):
        actions = rng.integers(0, vec.single_action_space.n, size=2)
        obs, rew, term, trunc, _ = vec.step(actions)
        for i, env in enumerate(singles):
            if not alive[i]:
                continue
            o, r, te, tr, _ = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], o)
            assert (rew[i], term[i], trunc[i]) == (r, te, tr)
            alive[i] = not (te or tr)


BASE = "extends: coop_pogostick\n"


@pytest.mark.parametrize("section, line, col, words", [
    ("multiagent:\n  mode: coop\n  learners: [main_1, helper_2]\n", 4, 9,
     "unknown mode 'coop'"),
    ("multiagent:\n  mode: competitive\n  learners: [main_1, ghost]\n", 5, 22,
     "unknown agent 'ghost'"),
    ("multiagent:\n  mode: competitive\n  learners: [main_1, main_1]\n", 5, 22,
     "listed twice"),
    ("multiagent:\n  mode: cooperative\n  learners: [main_1]\n", 5, 13, "too few learners"),
    ("multiagent:\n  mode: cooperative\n  learners: [main_1, helper_2]\n"
     "  reward: {lose: -5}\n", 6, 12, "'lose' applies only to competitive"),
    ("multiagent:\n  mode: cooperative\n  learners: [main_1, helper_2]\n"
     "  goal: {inventory: {unobtanium: 1}}\n", 6, 22, "unknown entity type 'unobtanium'"),
    ("multiagent:\n  mode: cooperative\n  learnrs: [main_1, helper_2]\n", 5, 3,
     "unknown key 'learnrs'"),
    ("multiagent:\n  mode: cooperative\n  learners: [main_1, helper_2]\n"
     "  goals: {main_1: {inventory: {oak_log: 1}}}\n", 6, 3, "only to competitive"),
    ("multiagent:\n  mode: competitive\n  learners: [main_1, helper_2]\n"
     "  goals: {trader: {inventory: {oak_log: 1}}}\n", 6, 11, "'trader' is not a learner"),
])
def test_bad_sections_are_located(section: str, line: int, col: int, words: str) -> None:
    with pytest.raises(SpecError) as err:
        load_spec(BASE + "max_steps: 60\n" + section)
    assert words in str(err.value)
    assert (err.value.location.line, err.value.location.column) == (line, col), str(err.value)


def test_a_learner_with_its_own_goal_races_for_that() -> None:
    """`goals` gives rival_2 an easier target: one log wins for it, not for main_1."""
    spec = load_spec("extends: race_pogostick\nmultiagent:\n"
                     "  goals: {rival_2: {inventory: {oak_log: 1}}}\n")
    assert dict(spec.multiagent.goal_of("rival_2")) == {"oak_log": 1}
    assert dict(spec.multiagent.goal_of("main_1")) == {"oak_log": 2}
    env = NesyGridParallel(spec)
    env.reset(seed=2)
    _give(env, "main_1", oak_log=1)
    _, rewards, terms, _, _ = _nop_round(env)
    assert not any(terms.values()) and rewards["main_1"] == -1.0
    _give(env, "rival_2", oak_log=1)
    _, rewards, terms, _, infos = _nop_round(env)
    assert all(terms.values()) and infos["main_1"]["winner"] == "rival_2"
