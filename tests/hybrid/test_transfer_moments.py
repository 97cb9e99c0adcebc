"""Adam's moments carried over a novelty (hybrid/baselines/transfer_moments.py): grown as the
weights are, for the optimiser each `TransferConfig.moments` names, and loadable."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
import torch
from torch import nn

from nesyworld.hybrid.baselines.rl_agents import RLAgent, TransferRLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.hybrid.baselines.transfer import TransferConfig
from nesyworld.hybrid.baselines.transfer_moments import grow_moments
from nesyworld.learning import ICMConfig, TrainConfig
from nesyworld.learning.training.learner import build_learner
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")
TINY = TrainConfig(step_budget=200, epoch_length=200, collect_chunk=100, num_envs=2,
                   vector_env="dummy", progress=False, eval_episodes=1, max_episode_steps=30)
PAPER = TransferConfig(new_weight_scale=1.0, new_actions_from="nop", keep_curiosity=True)


@cache
def trained(curiosity: bool) -> RLAgent:
    agent = RLAgent(NesyGridEnv("pogostick"), KB,
                    RLConfig(train=TINY, icm=ICMConfig() if curiosity else None))
    agent.learn()
    return agent


def moved(source: RLAgent, moments: str, novelty: str = "fire") -> TransferRLAgent:
    env = NesyGridEnv(apply_novelties("pogostick", [novelty]) if novelty else "pogostick")
    return TransferRLAgent(env, source, transfer=dataclasses.replace(PAPER, moments=moments))


def test_the_optimisers_hold_the_networks_in_the_order_the_growth_assumes() -> None:
    env = NesyGridEnv("pogostick")
    learner = build_learner(env.observation_space, env.action_space, RLConfig().ppo,
                            ICMConfig())
    # tianshou wraps the torch optimiser and keeps it private: this checks the installed
    # tianshou still builds it over actor then critic, the order grow_moments is given
    ppo_params = vars(learner.ppo.optim)["_optim"].param_groups[0]["params"]
    expected = [*learner.ppo.policy.actor.parameters(), *learner.ppo.critic.parameters()]
    assert len(ppo_params) == len(expected)
    assert all(a is b for a, b in zip(ppo_params, expected, strict=True))
    assert learner.icm is not None
    icm_params = vars(learner.icm.optim)["_optim"].param_groups[0]["params"]
    assert all(a is b for a, b in zip(icm_params, learner.icm.model.parameters(), strict=True))


def test_all_moments_are_grown_as_the_weights_and_load() -> None:
    source = trained(curiosity=True)
    agent = moved(source, "all")
    ckpt, old = agent.checkpoint, source.checkpoint
    assert ckpt.ppo_optim_state is not None and ckpt.icm_optim_state is not None
    old_names, new_names = source.names, agent.names
    first_old = old.ppo_optim_state["state"][0]  # the actor's first layer: inputs are columns
    first_new = ckpt.ppo_optim_state["state"][0]
    assert first_new["step"] == first_old["step"] > 0
    for key in ("exp_avg", "exp_avg_sq"):
        assert first_old[key].abs().sum() > 0
        for j, label in enumerate(new_names.observation):
            column = first_new[key][:, j]
            if label in old_names.observation:
                assert torch.equal(column, first_old[key][:, old_names.observation.index(label)])
            else:  # a new input never had a gradient
                assert not column.any()
    last_index = 5  # actor: 3 linear layers, weight and bias each; its last weight is 4
    last_new = ckpt.ppo_optim_state["state"][last_index - 1]["exp_avg"]
    last_old = old.ppo_optim_state["state"][last_index - 1]["exp_avg"]
    nop_old, nop_new = old_names.actions.index("nop"), new_names.actions.index("nop")
    water = new_names.actions.index("approach_water_bucket")
    assert torch.equal(last_new[water], last_old[nop_old])  # a new action copies the no-op's
    assert torch.equal(last_new[nop_new], last_old[nop_old])
    # the grown states fit a learner on the new spaces and step it
    learner = build_learner(agent.env.observation_space, agent.env.action_space,
                            ckpt.ppo, ckpt.icm)
    learner.load(ckpt)
    state = learner.ppo.optim.state_dict()["state"]
    assert torch.equal(state[0]["exp_avg"], first_new["exp_avg"])
    assert learner.icm is not None and learner.icm.optim.state_dict()["state"]


@pytest.mark.parametrize("curiosity", [True, False])
def test_novelgym_keeps_the_one_optimiser_its_checkpoint_held(curiosity: bool) -> None:
    # tianshou's ICMPolicy saves the curiosity model's optimiser as `optim`, PPO its own
    source = trained(curiosity)
    for novelty in ("fire", ""):  # a novelty that changes the spaces, and one that does not
        ckpt = moved(source, "novelgym", novelty).checkpoint
        assert (ckpt.ppo_optim_state is None) == curiosity
        assert (ckpt.icm_optim_state is not None) == curiosity


def test_by_default_moments_come_through_only_where_no_space_changed() -> None:
    source = trained(curiosity=True)
    assert moved(source, "unchanged_spaces", "").checkpoint is source.checkpoint
    changed = moved(source, "unchanged_spaces").checkpoint
    assert changed.ppo_optim_state is None and changed.icm_optim_state is None


def test_an_unknown_choice_and_a_state_of_another_network_are_refused() -> None:
    with pytest.raises(ValueError, match=r"TransferConfig\.moments"):
        TransferConfig(moments="some")
    state = trained(curiosity=False).checkpoint.ppo_optim_state
    assert state is not None
    with pytest.raises(ValueError, match="parameters"):
        grow_moments(state, nn.Linear(2, 2), nn.Linear(3, 2), lambda a, b: None)


@pytest.mark.parametrize("novelty", ["fire", ""])
def test_a_fresh_critic_starts_with_fresh_moments_and_the_actor_keeps_its_own(novelty: str
                                                                               ) -> None:
    source = trained(curiosity=False)
    env = NesyGridEnv(apply_novelties("pogostick", [novelty]) if novelty else "pogostick")
    kept = TransferRLAgent(env, source, transfer=dataclasses.replace(PAPER, moments="all"))
    fresh = TransferRLAgent(env, source, transfer=dataclasses.replace(
        PAPER, moments="all", fresh_critic=True))
    ckpt, before = fresh.checkpoint, kept.checkpoint
    assert all(torch.equal(ckpt.actor_state[k], v) for k, v in before.actor_state.items())
    assert not any(torch.equal(ckpt.critic_state[k], before.critic_state[k])
                   for k in before.critic_state if k.endswith("weight"))
    n_actor = len(ckpt.actor_state)  # one Adam entry per parameter, actor then critic
    assert ckpt.ppo_optim_state is not None and before.ppo_optim_state is not None
    assert sorted(ckpt.ppo_optim_state["state"]) == list(range(n_actor))
    assert torch.equal(ckpt.ppo_optim_state["state"][0]["exp_avg"],
                       before.ppo_optim_state["state"][0]["exp_avg"])
    learner = build_learner(env.observation_space, env.action_space, ckpt.ppo, ckpt.icm)
    learner.load(ckpt)  # the critic's moments start at the first step
    assert len(learner.ppo.optim.state_dict()["state"]) == n_actor
