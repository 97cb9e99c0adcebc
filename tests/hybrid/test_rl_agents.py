"""The RL baselines: plan-shaped rewards (D.1), the RL agent, and transfer across a novelty
that grows the spaces. Training budgets are tiny: these check wiring, not learning."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from nesyworld.domains import scripted_solution
from nesyworld.hybrid import Agent, run_episode
from nesyworld.hybrid.agents.planning_agent import ScriptedAgent
from nesyworld.hybrid.baselines.rl_agents import ForbidActions, RLAgent, TransferRLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
from nesyworld.hybrid.baselines.transfer import TransferConfig, space_names
from nesyworld.hybrid.execution.operators import ground
from nesyworld.learning import ICMConfig, TrainConfig
from nesyworld.learning.algorithms import curiosity_module
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner, PlanResult, PlanStep
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.injection import NoveltyInjector
from nesyworld.world.novelty.transforms import apply_novelties

KB = KnowledgeBase.from_world("pogostick")
PLANNER = Planner("fast-downward", cache=PlanCache())  # shared: initial states repeat
SHIPPED = scripted_solution("pogostick") or []
# The gaining steps of a pogostick plan, in the order the planner happens to choose today;
# fixed here so the order tests do not depend on the planner's tie-breaking.
PLAN_ORDER = ("collect_oak_log", "break_oak_log", "craft_planks",
              "break_block_of_platinum_with_iron_pickaxe", "break_diamond_ore_with_iron_pickaxe",
              "trade_block_of_titanium_1", "craft_stick", "craft_pogo_stick")
TINY = TrainConfig(step_budget=300, epoch_length=300, collect_chunk=100, num_envs=2,
                   vector_env="dummy", progress=False, eval_episodes=1, max_episode_steps=30)


def fixed_planner(steps: tuple[str, ...] = PLAN_ORDER) -> Planner:
    def solve(*_: Any) -> PlanResult:
        return PlanResult("plan", tuple(PlanStep(s) for s in steps), "fixed")
    return Planner("fast-downward", cache=PlanCache(), solve=solve)


def shaped(order: str = "plan", planner: Planner | None = None, rehit: float = 0.5
           ) -> PlanShapedReward:
    return PlanShapedReward(NesyGridEnv("pogostick"), KB,
                            ShapingConfig(order=order, rehit_decay=rehit),  # type: ignore[arg-type]
                            planner or fixed_planner())


def drive(env: gym.Env, script: list[str], seed: int = 0) -> tuple[Any, list[float]]:
    bonuses: list[float] = []
    result = run_episode(env, ScriptedAgent(env, script), seed=seed,
                         on_step=lambda info: bonuses.append(info.get("shaping_reward", 0.0)))
    return result, bonuses


def test_planned_subgoals_pay_once_each_plus_the_task_reward() -> None:
    env = shaped(planner=PLANNER)
    env.reset(seed=0)
    assert env.plan_result is not None and env.plan_result.ok
    names = [g.operator.name for g in env.subgoals]
    assert names[-1] == "craft_pogo_stick" and len(names) >= 6
    assert not any(n.startswith(("approach", "select")) for n in names)  # filtered out
    operators = {e.operator.name: e.operator for e in KB}
    script = [ground(s, operators).env_action for s in env.plan_result.steps]
    result, bonuses = drive(env, script)
    plain, _ = drive(NesyGridEnv("pogostick"), script)
    assert result.success and plain.success
    assert env.paid == list(range(len(names))) and not env.skipped
    assert [b for b in bonuses if b] == [5.0] * len(names)
    assert result.reward == pytest.approx(plain.reward + 5.0 * len(names))


def test_plan_order_pays_only_in_order_and_causal_order_pays_the_shipped_script() -> None:
    # the shipped script mines platinum and trades it away before the plan's first subgoal
    strict, bonuses = drive(env := shaped("plan"), SHIPPED)
    assert strict.success and env.paid == [0, 1, 2] and bonuses.count(5.0) == 3
    causal_env = shaped("causal")
    causal, bonuses = drive(causal_env, SHIPPED)
    assert causal.success and sorted(causal_env.paid) == list(range(8))
    assert [b for b in bonuses if b] == [5.0] * 8
    assert causal_env.paid[:2] == [3, 5]  # platinum, then the titanium it buys
    assert causal.reward == pytest.approx(strict.reward + 5 * 5)


def test_held_subgoals_are_skipped_and_repeats_pay_half() -> None:
    script = ["approach_diamond_ore", "select_iron_pickaxe", "break",  # before its turn
              "approach_oak_log", "select_tree_tap", "collect", "break", "craft_planks",
              "approach_block_of_platinum", "select_iron_pickaxe", "break",
              "approach_trader", "trade_block_of_titanium_1", "craft_stick", "craft_stick",
              "craft_stick", "approach_crafting_table", "craft_pogo_stick"]
    env = shaped("plan")
    result, bonuses = drive(env, script)
    assert result.success
    assert env.skipped == [4]  # the diamonds were already in the inventory
    assert [b for b in bonuses if b] == [5.0] * 6 + [2.5, 5.0]  # the 3rd stick: no planks
    _, bonuses = drive(shaped("plan", rehit=0.0), script)
    assert [b for b in bonuses if b] == [5.0] * 7


def test_forbidden_actions_are_masked_by_name() -> None:
    env = ForbidActions(NesyGridEnv(apply_novelties("pogostick", ["axe"])), ["give_up", "nop"])
    _, info = env.reset(seed=0)
    names = env.unwrapped.action_names
    assert not info["action_mask"][names.index("give_up")]
    assert not info["action_mask"][names.index("nop")]
    assert info["action_mask"][names.index("select_axe")]


class MaskChecker(gym.Wrapper):
    """Records whether every action taken was legal under the mask the agent was shown."""

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.mask, self.illegal, self.actions = info["action_mask"], 0, []
        return obs, info

    def step(self, action: Any) -> Any:
        self.illegal += not self.mask[int(action)]
        self.actions.append(self.env.unwrapped.action_names[int(action)])
        out = self.env.step(action)
        self.mask = out[-1]["action_mask"]
        return out


@cache
def trained() -> tuple[RLAgent, dict[str, float]]:
    agent = RLAgent(NesyGridEnv("pogostick"), KB, RLConfig(train=TINY))
    return agent, agent.learn()


def test_rl_agent_trains_and_acts_legally(tmp_path: Path) -> None:
    trainee, stats = trained()
    assert stats["env_steps"] == 300 and trainee.checkpoint.env_steps == 300
    fresh = RLAgent(NesyGridEnv("pogostick"), KB, RLConfig(train=TINY))
    assert not torch.equal(fresh.checkpoint.actor_state["net.model.0.weight"],
                           trainee.checkpoint.actor_state["net.model.0.weight"])
    env = MaskChecker(NesyGridEnv("pogostick"))
    agent = RLAgent(env, KB, trainee.config, checkpoint=trainee.checkpoint)
    assert isinstance(agent, Agent)
    result = run_episode(env, agent, seed=3)
    assert result.steps == 400 and env.illegal == 0 and "give_up" not in env.actions
    agent.save(tmp_path / "rl.pt")
    fresh.load(tmp_path / "rl.pt")
    obs, info = env.reset(seed=1)
    assert np.allclose(fresh.policy.action_probabilities(obs, info["action_mask"]),
                       agent.policy.action_probabilities(obs, info["action_mask"]))


def test_rl_agent_refuses_spaces_it_was_not_trained_for() -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    agent = RLAgent(env, KB, RLConfig(train=TINY))
    obs, info = env.reset(seed=0)
    with pytest.raises(ValueError, match="TransferRLAgent"):
        agent.act(obs, info)


def sharpened(agent: RLAgent) -> RLAgent:
    """A copy whose last layer is large and random, so its action probabilities are far from
    uniform and a mis-wired copy could not match them by accident."""
    ckpt = agent.checkpoint
    state = {k: v.clone() for k, v in ckpt.actor_state.items()}
    gen = torch.Generator().manual_seed(0)
    for key in ("net.model.4.weight", "net.model.4.bias"):
        state[key] = torch.randn(state[key].shape, generator=gen)
    return RLAgent(agent.env, KB, agent.config, checkpoint=dataclasses.replace(
        ckpt, actor_state=state))


@pytest.mark.parametrize("kind", ["lidar", "local_view"])
def test_observation_labels_name_what_each_slot_holds(kind: str) -> None:
    env = NesyGridEnv(apply_novelties("pogostick", ["axe"]), observation=kind)
    labels = space_names(env).observation
    obs, _ = env.reset(seed=0)
    flat = gym.spaces.utils.flatten(env.observation_space, obs)
    assert len(labels) == len(flat)
    world = env.world
    for name in ("axe", "iron_pickaxe", "tree_tap", "planks"):  # the axe is handed out
        count = world.state.inventory[world.main][world.types.id(name)]
        assert flat[labels.index(("inventory", name))] == count
    selected = [label[1] for label, v in zip(labels, flat, strict=True)
                if label[0] == "selected" and v]
    assert selected == [world.types.names[world.state.selected[world.main]]]


def test_transfer_grows_the_network_and_keeps_the_old_policy() -> None:
    source = sharpened(trained()[0])
    old_env = NesyGridEnv("pogostick")
    new_env = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    agent = TransferRLAgent(new_env, source)
    assert agent.expansions[0]["new_types"] == ["axe"]
    assert agent.expansions[0]["new_actions"] == ["select_axe"]
    old, new = space_names(old_env), space_names(new_env)
    assert agent.checkpoint.obs_dim == len(new.observation) == len(old.observation) + 10
    # the labels say what the slots hold: the axe the novelty hands out is in its slot
    obs_new, _ = new_env.reset(seed=0)
    assert obs_new[new.observation.index(("inventory", "axe"))] == 1.0
    assert obs_new[new.observation.index(("selected", "air"))] == 1.0
    for seed in range(3):
        obs, info = old_env.reset(seed=seed)
        by_label = dict(zip(old.observation, obs, strict=True))
        embedded = np.array([by_label.get(label, 0.0) for label in new.observation], np.float32)
        mask = np.array([name in old.actions and info["action_mask"][old.actions.index(name)]
                         for name in new.actions])
        before = source.policy.action_probabilities(obs, info["action_mask"])
        after = agent.policy.action_probabilities(embedded, mask)
        assert before.max() > 0.2  # far from uniform (1/37): a mis-wiring shows
        for i, name in enumerate(old.actions):  # same probability for the same action name
            assert after[new.actions.index(name)] == pytest.approx(before[i], abs=1e-5)


def test_a_new_action_starts_at_the_old_logits_mean_wherever_they_drifted() -> None:
    """Softmax ignores a common offset: a policy whose logits all drifted up (as Adam lets
    them over a long training) must still give a new action the share of an average old
    action, not the e^-30 of a logit left at 0."""
    source = sharpened(trained()[0])
    state = {k: v.clone() for k, v in source.checkpoint.actor_state.items()}
    state["net.model.4.bias"] += 30.0  # the same policy, every logit 30 higher
    drifted = RLAgent(source.env, KB, source.config, checkpoint=dataclasses.replace(
        source.checkpoint, actor_state=state))
    env = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    agent = TransferRLAgent(env, drifted)
    names = agent.names.actions
    new = names.index("select_axe")
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        x = torch.as_tensor(gym.spaces.utils.flatten(env.observation_space, obs))[None]
        with torch.no_grad():
            logits = agent.policy.actor.logits(x)[0]
        old = torch.cat([logits[:new], logits[new + 1:]])
        assert old.mean() > 25  # the drift is there
        assert logits[new] == pytest.approx(float(old.mean()), abs=0.05)


def test_a_new_action_can_start_as_the_trained_no_op_as_the_papers_placeholders_did() -> None:
    """NovelGym renames a trained placeholder no-op into the new action: the new action must
    get the no-op's logit in every state, and every old action keep its own."""
    source = sharpened(trained()[0])
    env = NesyGridEnv(apply_novelties("pogostick", ["fire"]))
    agent = TransferRLAgent(env, source, transfer=TransferConfig(new_actions_from="nop"))
    centred = TransferRLAgent(env, source)
    names = agent.names.actions
    new = [names.index(a) for a in ("approach_water_bucket", "select_water_bucket")]
    nop = names.index("nop")
    spread = []
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        x = torch.as_tensor(gym.spaces.utils.flatten(env.observation_space, obs))[None]
        with torch.no_grad():
            logits = agent.policy.actor.logits(x)[0]
            mean_start = centred.policy.actor.logits(x)[0]
        for i in new:
            assert logits[i] == pytest.approx(float(logits[nop]), abs=1e-5)
        old = [i for i in range(len(names)) if i not in new and names[i] != "select_bucket"]
        assert torch.allclose(logits[old], mean_start[old], atol=1e-5)
        spread.append(float(logits[nop] - mean_start[new[0]]))
    assert max(abs(d) for d in spread) > 0.1  # the two starts differ: the option did something


def with_curiosity(agent: RLAgent) -> RLAgent:
    """A copy whose checkpoint carries an ICM (random weights: only the wiring is tested)."""
    ckpt = agent.checkpoint
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        module = curiosity_module(ckpt.obs_dim, int(ckpt.action_space.n), ICMConfig())
    return RLAgent(agent.env, KB, agent.config, checkpoint=dataclasses.replace(
        ckpt, icm=ICMConfig(), icm_state=module.state_dict()))


def test_the_papers_transfer_carries_the_curiosity_model_over() -> None:
    """NovelGym's placeholders changed no space, so its ICM came through a novelty trained:
    grown to the new spaces, the ICM must predict and classify every old transition as
    before, and a new action must look like the no-op it is copied from."""
    source = with_curiosity(sharpened(trained()[0]))
    env = NesyGridEnv(apply_novelties("pogostick", ["fire"]))
    config = TransferConfig(new_weight_scale=1.0, new_actions_from="nop", keep_curiosity=True)
    agent = TransferRLAgent(env, source, transfer=config)
    assert TransferRLAgent(env, source, transfer=dataclasses.replace(
        config, keep_curiosity=False)).checkpoint.icm_state is None
    old_names, new_names = source.names, agent.names
    before, after = (curiosity_module(c.obs_dim, int(c.action_space.n), ICMConfig())
                     for c in (source.checkpoint, agent.checkpoint))
    before.load_state_dict(source.checkpoint.icm_state)
    after.load_state_dict(agent.checkpoint.icm_state)
    old_env = NesyGridEnv("pogostick")
    obs, _ = old_env.reset(seed=0)
    x_old = torch.as_tensor(gym.spaces.utils.flatten(old_env.observation_space, obs))[None]
    by_label = dict(zip(old_names.observation, x_old[0].tolist(), strict=True))
    x_new = torch.tensor([[by_label.get(label, 0.0) for label in new_names.observation]])
    with torch.no_grad():
        phi_old, phi_new = before.feature_net.net(x_old), after.feature_net.net(x_new)
        assert torch.allclose(phi_old, phi_new, atol=1e-5)
        for name in ("break", "craft_planks", "nop"):
            one_old = torch.zeros(1, len(old_names.actions))
            one_old[0, old_names.actions.index(name)] = 1.0
            one_new = torch.zeros(1, len(new_names.actions))
            one_new[0, new_names.actions.index(name)] = 1.0
            assert torch.allclose(before.forward_model(torch.cat([phi_old, one_old], 1)),
                                  after.forward_model(torch.cat([phi_new, one_new], 1)),
                                  atol=1e-5)
        inverse_old = before.inverse_model(torch.cat([phi_old, phi_old], 1))[0]
        inverse_new = after.inverse_model(torch.cat([phi_new, phi_new], 1))[0]
        for i, name in enumerate(old_names.actions):
            assert inverse_new[new_names.actions.index(name)] == pytest.approx(
                float(inverse_old[i]), abs=1e-5)
        nop = new_names.actions.index("nop")
        water = new_names.actions.index("approach_water_bucket")
        assert inverse_new[water] == pytest.approx(float(inverse_new[nop]), abs=1e-5)
        one_hots = torch.zeros(2, len(new_names.actions))
        one_hots[0, nop] = one_hots[1, water] = 1.0
        predicted = after.forward_model(torch.cat([phi_new.expand(2, -1), one_hots], 1))
        assert torch.allclose(predicted[0], predicted[1], atol=1e-5)


def test_a_new_action_starts_at_the_mean_when_the_named_action_is_not_an_old_one() -> None:
    source = sharpened(trained()[0])
    env = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    named = TransferRLAgent(env, source, transfer=TransferConfig(new_actions_from="no_such"))
    centred = TransferRLAgent(env, source)
    obs, _ = env.reset(seed=0)
    x = torch.as_tensor(gym.spaces.utils.flatten(env.observation_space, obs))[None]
    with torch.no_grad():
        assert torch.allclose(named.policy.actor.logits(x), centred.policy.actor.logits(x))


def test_transfer_follows_a_novelty_arriving_at_reset_and_fine_tunes() -> None:
    source, _ = trained()
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    checker = MaskChecker(env)
    agent = TransferRLAgent(checker, source, config=RLConfig(train=TINY))
    assert not agent.expansions  # nothing has changed yet
    result = run_episode(checker, agent, seed=0)
    assert [e["new_actions"] for e in agent.expansions] == [["select_axe"]]
    assert result.steps == 400 and checker.illegal == 0
    stats = agent.learn()
    assert stats["env_steps"] == 300 and agent.checkpoint.env_steps == 600
    assert agent.checkpoint.metadata["transfers"] == [{"observation": 10, "actions": 1}]


def test_transfer_follows_a_novelty_arriving_mid_episode() -> None:
    checker = MaskChecker(NoveltyInjector(NesyGridEnv("pogostick"), ["lightning"]))
    agent = TransferRLAgent(checker, trained()[0])
    result = run_episode(checker, agent, seed=0)
    (grown,) = agent.expansions
    assert grown["step"] == 8 and grown["new_types"] == ["bucket", "water_bucket"]
    assert sorted(grown["new_actions"]) == ["select_bucket", "select_water_bucket",
                                           "trade_water_bucket_1"]
    assert result.steps == 400 and checker.illegal == 0
