"""The RL baselines' batched training envs against the single-env path: the same shaped
rewards, subgoal counts and masks, copy for copy, across autoresets; and RLAgent training on
them. Budgets are tiny: these check wiring, not learning."""

from __future__ import annotations

import numpy as np
import pytest

from nesyworld.domains import scripted_solution
from nesyworld.hybrid.baselines.rl_agents import ForbidActions, RLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
from nesyworld.hybrid.baselines.vector_envs import (
    VectorForbidActions,
    VectorPlanShapedReward,
    VectorTrainingEnvFactory,
)
from nesyworld.learning import TrainConfig
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.observations.builder import ObservationConfig

KB = KnowledgeBase.from_world("pogostick")
PLANNER = Planner("fast-downward", cache=PlanCache())
FORBIDDEN = ("give_up",)


@pytest.mark.parametrize("order", ["plan", "causal"])
def test_vector_shaping_pays_what_the_single_env_pays(order: str) -> None:
    n, config = 3, ShapingConfig(order=order)  # type: ignore[arg-type]
    vec = VectorForbidActions(VectorPlanShapedReward(NesyVectorEnv(n), KB, config, PLANNER),
                              FORBIDDEN)
    singles = [ForbidActions(PlanShapedReward(NesyGridEnv("pogostick"), KB, config, PLANNER),
                             FORBIDDEN) for _ in range(n)]
    _, info = vec.reset(seed=3)
    pairs = [s.reset(seed=3 + i)[1] for i, s in enumerate(singles)]
    script = scripted_solution("pogostick") or []
    names = vec.unwrapped.action_names  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    ended, paid = np.zeros(n, bool), 0.0
    for t in range(500):
        for i in range(n):
            np.testing.assert_array_equal(info["action_mask"][i], pairs[i]["action_mask"],
                                          err_msg=f"env {i} step {t}")
        actions = np.array([
            names.index(script[t % len(script)]) if rng.random() < 0.7
            else rng.choice(np.flatnonzero(info["action_mask"][i])) for i in range(n)])
        _, reward, terminated, truncated, info = vec.step(actions)
        pairs = []
        for i, single in enumerate(singles):
            if ended[i]:  # NEXT_STEP autoreset
                _, single_info = single.reset()
                r = 0.0
            else:
                _, r, _, _, single_info = single.step(actions[i])
            assert reward[i] == r, f"env {i} step {t}"
            assert info["shaping_reward"][i] == single_info.get("shaping_reward", 0.0)
            assert info["subgoals_done"][i] == single_info["subgoals_done"]
            assert info["subgoals_total"][i] == single_info["subgoals_total"]
            paid += single_info.get("shaping_reward", 0.0)
            pairs.append(single_info)
        ended = terminated | truncated
    assert paid >= 5 * 6  # subgoals were reached, so bonuses were compared


def test_forbidden_actions_stay_legal_where_nothing_else_is() -> None:
    env = VectorForbidActions(NesyVectorEnv(2), ("give_up", "nop"))
    _, info = env.reset(seed=0)
    names = env.unwrapped.action_names  # type: ignore[attr-defined]
    assert not info["action_mask"][:, names.index("give_up")].any()
    every = env.unwrapped.action_names  # type: ignore[attr-defined]
    everything = VectorForbidActions(NesyVectorEnv(2), tuple(every))
    _, info = everything.reset(seed=0)
    assert info["action_mask"].any(axis=1).all()  # the original mask, not an empty one


def test_shaping_refuses_other_vector_envs() -> None:
    import gymnasium

    other = gymnasium.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    with pytest.raises(TypeError, match="NesyVectorEnv"):
        VectorPlanShapedReward(other, KB)


def test_rl_agent_trains_on_the_batched_core() -> None:
    tiny = TrainConfig(step_budget=400, epoch_length=400, collect_chunk=200, num_envs=4,
                       progress=False, eval_episodes=2, max_episode_steps=30)
    agent = RLAgent(NesyGridEnv("pogostick"), KB, RLConfig(train=tiny))
    factory = agent.vector_env_factory()
    assert isinstance(factory, VectorTrainingEnvFactory)
    stats = agent.learn()
    assert stats["env_steps"] == 400 and stats["steps_per_second"] > 0
    # the single-env path is still there when asked for, or when the observation is not LiDAR
    single = RLAgent(NesyGridEnv("pogostick"), KB, RLConfig(train=tiny, vector=False))
    assert single.vector_env_factory() is None
    view = NesyGridEnv("pogostick", observation=ObservationConfig(kind="local_view"))
    assert RLAgent(view, KB, RLConfig(train=tiny)).vector_env_factory() is None
