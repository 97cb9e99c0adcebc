"""The recovery env and learned operators, on the Axe novelty's first failure (no training:
scripted policies stand in for learned ones, so these tests stay fast)."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from functools import cache

import numpy as np
from gymnasium.utils.env_checker import check_env

from nesyworld.hybrid import PlanningAgent, PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.env import (
    RecoveryEnv,
    RecoveryEnvConfig,
    from_failure,
    recovery_env_factory,
)
from nesyworld.hybrid.recovery.learned_operator import build_learned_operator
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import World
from nesyworld.world.actions.schema import INVENTORY, CountAtLeast, CountChange
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")


@cache
def axe_failure() -> tuple[PlanningAgent, OperatorFailure]:
    """The planning agent under the Axe novelty, run until break_oak_log is refused."""
    env = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    agent = PlanningAgent(env, KB, PlanningConfig())
    obs, info = env.reset(seed=0)
    agent.reset(obs, info)
    for _ in range(100):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(obs, reward, terminated, truncated, info)
        if agent.failures or terminated or truncated:
            break
    assert agent.failures, "the Axe novelty should make break_oak_log fail"
    return agent, agent.failures[0]


def make_env(config: RecoveryEnvConfig | None = None) -> RecoveryEnv:
    agent, failure = axe_failure()
    return from_failure(agent.env.unwrapped.world, failure, KB, config or RecoveryEnvConfig())


def axe_policy(env: RecoveryEnv) -> Callable[[np.ndarray, np.ndarray], int]:
    """A scripted 'policy' over the env's actions: select the axe (read from the selected
    one-hot at the end of the LiDAR observation), then break."""
    n_types = len(env.world.types)
    axe = env.world.types.id("axe")

    def act(obs: np.ndarray, mask: np.ndarray) -> int:
        holding_axe = obs[-n_types + axe] == 1.0
        return env.action_names.index("break" if holding_axe else "select_axe")

    return act


def test_failure_is_the_axe_one() -> None:
    _, failure = axe_failure()
    assert failure.operator.name == "break_oak_log" and failure.kind == "refused"


def test_episodes_restart_at_the_failure_snapshot() -> None:
    agent, failure = axe_failure()
    env = make_env()
    z_fail = failure.before
    for _ in range(2):
        env.reset()
        assert abstract(env.world) == z_fail
        assert np.array_equal(env.world.state.grid, failure.snapshot.state.grid)
        for _ in range(3):
            env.step(env.action_names.index("move_forward"))
    assert env.world is not agent.env.unwrapped.world


def test_the_recovery_acts_with_the_whole_action_space_masked_by_legality() -> None:
    env = make_env()
    names = env.action_names
    assert list(names) == [n for n in env.world.action_names() if n != "give_up"]
    world = env.world
    held = [t for t in world.types.names if abstract(world).count(INVENTORY, t) > 0]
    present = {world.types.names[t] for t in np.unique(world.state.grid)} - {"air"}
    # a fix can need any held item selected and any present type approached
    assert held and all(f"select_{t}" in names for t in held if f"select_{t}" in
                        world.action_names())
    assert all(f"approach_{t}" in names for t in present if f"approach_{t}" in
               world.action_names())
    obs, info = env.reset()
    assert env.action_space.n == len(names) == len(info["action_mask"])
    assert obs in env.observation_space
    full = env.world.action_mask()
    assert [bool(full[env.world.action_index(n)]) for n in names] == list(
        info["action_mask"].astype(bool))


def test_scripted_fix_is_rewarded_and_counted() -> None:
    env = make_env()
    env.reset()
    _, reward, terminated, truncated, info = env.step(env.action_names.index("select_axe"))
    assert (reward, terminated, info["success"]) == (-1.0, False, False)
    _, reward, terminated, truncated, info = env.step(env.action_names.index("break"))
    assert reward == 1000.0 and terminated and not truncated and info["success"]
    assert info["plannable"] is True
    assert env.env_steps == 2


def test_steps_that_change_nothing_only_cost() -> None:
    env = make_env(RecoveryEnvConfig(horizon=5))
    env.reset()
    rewards, truncated = [], False
    for _ in range(5):
        _, reward, terminated, truncated, info = env.step(env.action_names.index("nop"))
        rewards.append(reward)
        assert not terminated and not info["success"]
    assert rewards == [-1.0] * 5 and truncated
    assert env.env_steps == 5


def test_gymnasium_check_env_and_picklable_factory() -> None:
    env = make_env()
    check_env(env, skip_render_check=True)
    agent, failure = axe_failure()
    factory = recovery_env_factory(agent.env.unwrapped.world.spec, failure.snapshot, failure, KB,
                                   planner=env.planner)
    copy = pickle.loads(pickle.dumps(factory))()
    assert copy.action_names == env.action_names
    copy.reset()
    assert abstract(copy.world) == failure.before


def test_learned_operator_from_a_scripted_policy_is_planned_with() -> None:
    _, failure = axe_failure()
    env = make_env()
    policy = axe_policy(env)
    learned = build_learned_operator(env, policy, n_rollouts=3, novelty="axe")
    assert learned.name == "learned_break_oak_log_1"
    assert learned.rollout_success_rate == 1.0 and learned.env_steps == 6
    assert CountChange(INVENTORY, "oak_log", 1) in learned.schema.effects
    assert learned.schema.action == "policy:learned_break_oak_log_1"
    assert "axe" in learned.schema.provenance

    kb = KB.without("break_oak_log")
    learned.add_to(kb)
    assert kb.entry(learned.name).origin == "learned"
    assert learned.name in kb.pddl()[0]  # the written domain has it (no new-type names)
    result = Planner("fast-downward").plan(kb.derivation(failure.before))
    assert result.ok and learned.name in [s.operator for s in result.steps]

    world = World(env.world_spec)
    world.restore(failure.snapshot)
    assert learned.run(world, horizon=10)
    assert world.inventory_dict().get("oak_log", 0) == failure.before.count(
        INVENTORY, "oak_log") + 1


def test_a_learned_operator_requires_only_what_held_at_every_start() -> None:
    """Fine-tuned on a second start where the novelty's item was no longer held (Fire: the
    water bucket already emptied), the operator must not require what only one start held:
    no fresh start would hold it, and the goal would have no plan again."""
    agent, failure = axe_failure()
    assert failure.before is not None
    axe = CountAtLeast(INVENTORY, "axe", 1)
    alone = build_learned_operator(make_env(), axe_policy(make_env()), n_rollouts=2,
                                   novelty="axe")
    assert axe in alone.schema.preconditions  # the novelty's item held at the failure
    without = dataclasses.replace(failure, before=failure.before.apply(
        (CountChange(INVENTORY, "axe", -1),)))
    env = from_failure(agent.env.unwrapped.world, failure, KB, RecoveryEnvConfig(),
                       starts=[without])
    both = build_learned_operator(env, axe_policy(env), n_rollouts=2, novelty="axe")
    assert axe not in both.schema.preconditions
    assert set(both.schema.preconditions) < set(alone.schema.preconditions)


def test_jump_ahead_accepts_states_from_which_a_tail_of_the_plan_runs() -> None:
    env = make_env()
    _, failure = axe_failure()
    before = failure.before
    assert before is not None and failure.suffix
    assert not env.jumps_ahead(before)  # no log yet: no tail of the plan works
    # the state the failed step and the next one would have produced: the plan goes on
    z = before.apply(failure.operator.schema.effects, failure.operator.binding)
    nxt = env._tails[0][0][0]
    z = z.apply(nxt.schema.effects, nxt.binding)
    assert env.jumps_ahead(z)
    assert env.meets_target(z)
