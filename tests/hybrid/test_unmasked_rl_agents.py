"""RL baselines without the world's action masks (`RLConfig.action_masks=False`), as the
NovelGym paper's RL agents: their training envs, acting and batched evaluation offer every
action but the forbidden ones, the world refuses an illegal one at the cost of a step, and a
checkpoint trained the other way is refused. No training here: a policy whose last layer
prefers one illegal action shows at once whether anything re-applies the world's mask."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from gymnasium.wrappers import TimeLimit

from nesyworld.hybrid import run_episode
from nesyworld.hybrid.baselines import batched_episodes
from nesyworld.hybrid.baselines.batched_episodes import policy_actions
from nesyworld.hybrid.baselines.legal_actions import CHECKPOINT_KEY, offered
from nesyworld.hybrid.baselines.rl_agents import RLAgent, TransferRLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.learning import TrainConfig, load_checkpoint
from nesyworld.learning.training.checkpoint import CheckpointError
from nesyworld.world.envs.gym_env import NesyGridEnv

TINY = TrainConfig(step_budget=200, epoch_length=200, collect_chunk=100, num_envs=2,
                   progress=False, eval_episodes=1, max_episode_steps=20)
ILLEGAL = "craft_pogo_stick"  # refused at the start of every pogostick map
MASKED, UNMASKED = RLConfig(train=TINY, greedy=True), RLConfig(train=TINY, greedy=True,
                                                               action_masks=False)


def prefers(env: Any, config: RLConfig, action: str = ILLEGAL) -> RLAgent:
    """An untrained agent whose policy puts almost all its weight on `action`."""
    agent = RLAgent(env, config=config, shaping=None)
    state = {k: v.clone() for k, v in agent.checkpoint.actor_state.items()}
    state["net.model.4.weight"].zero_()
    state["net.model.4.bias"] = torch.zeros_like(state["net.model.4.bias"])
    state["net.model.4.bias"][agent.names.actions.index(action)] = 50.0
    return RLAgent(env, config=config, shaping=None,
                   checkpoint=dataclasses.replace(agent.checkpoint, actor_state=state))


def all_but_give_up(mask: np.ndarray, names: tuple[str, ...]) -> bool:
    expected = np.ones(len(names), bool)
    expected[names.index("give_up")] = False
    return bool((np.asarray(mask, bool) == expected).all())


def test_offered_is_the_worlds_mask_or_everything_less_the_forbidden() -> None:
    names = ("a", "b", "give_up")
    world = np.array([True, False, True])
    assert offered(world, names, ("give_up",), True).tolist() == [True, False, False]
    assert offered(world, names, ("give_up",), False).tolist() == [True, True, False]
    assert offered(world, names, (), False).tolist() == [True, True, True]


@pytest.mark.parametrize("vector", [False, True])
def test_unmasked_training_envs_report_every_action_legal_but_the_forbidden(
        vector: bool) -> None:
    reports = {}
    for config in (MASKED, UNMASKED):
        agent = RLAgent(NesyGridEnv("pogostick"), config=dataclasses.replace(
            config, vector=vector), shaping=None)
        names = agent.names.actions
        if vector:
            venv = agent.vector_env_factory()(2)  # the batched core's training envs
            _, info = venv.reset(seed=0)
            _, _, _, _, after = venv.step(np.full(2, names.index(ILLEGAL)))
            masks = [*info["action_mask"], *after["action_mask"]]
        else:
            assert agent.vector_env_factory() is None
            env = agent.env_factory()()
            _, info = env.reset(seed=0)
            after = env.step(names.index(ILLEGAL))[4]
            assert not after["ok"]  # the world refused it, whatever the env reports
            masks = [info["action_mask"], after["action_mask"]]
        reports[config.action_masks] = [all_but_give_up(m, names) for m in masks]
    assert all(reports[False]) and not any(reports[True])


def test_unmasked_acting_takes_an_action_the_world_refuses_at_a_step_cost() -> None:
    env = NesyGridEnv("pogostick")
    obs, info = env.reset(seed=3)
    assert not info["action_mask"][env.action_names.index(ILLEGAL)]
    masked = prefers(env, MASKED).act(obs, info)
    assert env.action_names[masked] != ILLEGAL and info["action_mask"][masked]
    action = prefers(env, UNMASKED).act(obs, info)
    assert env.action_names[action] == ILLEGAL
    _, reward, terminated, truncated, after = env.step(action)
    assert not after["ok"] and after["step"] == 1 and reward == -1.0
    assert not (terminated or truncated)


def test_batched_evaluation_offers_what_acting_offers(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    seen: list[np.ndarray] = []

    def recording(policy: Any, obs: np.ndarray, mask: np.ndarray, greedy: bool,
                  rng: np.random.Generator) -> np.ndarray:
        seen.append(mask.copy())
        return policy_actions(policy, obs, mask, greedy, rng)

    monkeypatch.setattr(batched_episodes, "policy_actions", recording)
    agent = prefers(NesyGridEnv("pogostick"), UNMASKED)
    assert agent.batched_core()
    batched = agent.evaluate([5, 6, 7], max_episode_steps=6)
    names = agent.names.actions
    assert seen and all(all_but_give_up(row, names) for m in seen for row in m)
    # it keeps choosing the refused action: every step taken, nothing achieved
    assert [(r.steps, r.success, r.reward) for r in batched] == [(6, False, -6.0)] * 3
    one_by_one = [run_episode(TimeLimit(agent.env, 6), agent, s) for s in (5, 6, 7)]
    assert [(r.seed, r.steps, r.success, r.reward) for r in one_by_one] == [
        (r.seed, r.steps, r.success, r.reward) for r in batched]
    seen.clear()
    masked = prefers(NesyGridEnv("pogostick"), MASKED).evaluate([5], max_episode_steps=6)
    assert seen and not any(all_but_give_up(row, names) for m in seen for row in m)
    assert masked[0].steps == 6


def test_a_checkpoint_is_refused_by_an_agent_masked_the_other_way(tmp_path: Path) -> None:
    env = NesyGridEnv("pogostick")
    RLAgent(env, config=MASKED, shaping=None).save(tmp_path / "masked.pt")
    RLAgent(env, config=UNMASKED, shaping=None).save(tmp_path / "unmasked.pt")
    assert load_checkpoint(tmp_path / "masked.pt").metadata[CHECKPOINT_KEY] is True
    assert load_checkpoint(tmp_path / "unmasked.pt").metadata[CHECKPOINT_KEY] is False
    with pytest.raises(CheckpointError, match=r"masked\.pt: this policy was trained with "
                                              r"the world's action masks"):
        RLAgent(env, config=UNMASKED, shaping=None).load(tmp_path / "masked.pt")
    with pytest.raises(CheckpointError, match="trained without action masks"):
        TransferRLAgent(env, tmp_path / "unmasked.pt", config=MASKED)
    legacy = load_checkpoint(tmp_path / "masked.pt")  # saved before the key: masked
    legacy = dataclasses.replace(legacy, metadata={
        k: v for k, v in legacy.metadata.items() if k != CHECKPOINT_KEY})
    TransferRLAgent(env, legacy, config=MASKED)
    with pytest.raises(CheckpointError):
        TransferRLAgent(env, legacy, config=UNMASKED)
    agent = RLAgent(env, config=UNMASKED, shaping=None)
    agent.load(tmp_path / "unmasked.pt")
    assert TransferRLAgent(env, agent, config=UNMASKED).config.action_masks is False
