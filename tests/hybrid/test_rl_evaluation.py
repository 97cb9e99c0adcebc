"""Batched evaluation episodes of the RL baselines (`RLAgent.evaluate`): the same maps, the
same actions and the same results as `run_episode` seed by seed, after a novelty too. No
training: a network with a large random last layer acts far from uniformly, so a mis-wired
batch would show."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
import torch
from gymnasium.wrappers import TimeLimit

from nesyworld.domains import scripted_solution
from nesyworld.hybrid import run_episode
from nesyworld.hybrid.agents.planning_agent import ScriptedAgent
from nesyworld.hybrid.baselines import batched_episodes
from nesyworld.hybrid.baselines.batched_episodes import (
    play_batched,
    policy_actions,
    steady_world,
)
from nesyworld.hybrid.baselines.rl_agents import RLAgent, TransferRLAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.learning import TrainConfig
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.novelty.injection import NoveltyInjector
from nesyworld.world.novelty.transforms import Injection, apply_novelties, load_novelty

TINY = TrainConfig(step_budget=300, epoch_length=300, collect_chunk=100, num_envs=2,
                   progress=False, eval_episodes=1, max_episode_steps=30)
SEEDS = [11, 12, 13, 14, 15, 16]
LIMIT = 40


def sharp_agent(env: Any, greedy: bool = True) -> RLAgent:
    """An untrained RLAgent whose last layer is large and random (far from uniform)."""
    agent = RLAgent(env, config=RLConfig(train=TINY, greedy=greedy), shaping=None)
    state = {k: v.clone() for k, v in agent.checkpoint.actor_state.items()}
    gen = torch.Generator().manual_seed(0)
    for key in ("net.model.4.weight", "net.model.4.bias"):
        state[key] = 3 * torch.randn(state[key].shape, generator=gen)
    return RLAgent(env, config=agent.config, shaping=None,
                   checkpoint=dataclasses.replace(agent.checkpoint, actor_state=state))


def key(obs: Any, action: int) -> tuple[bytes, int]:
    return np.asarray(obs, np.float32).tobytes(), int(action)


def record_batched(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[bytes, int]]]:
    """Every batched policy call's (observation, action) rows, call by call."""
    calls: list[list[tuple[bytes, int]]] = []

    def recording(policy: Any, obs: np.ndarray, mask: np.ndarray, greedy: bool,
                  rng: np.random.Generator) -> np.ndarray:
        actions = policy_actions(policy, obs, mask, greedy, rng)
        calls.append([key(o, a) for o, a in zip(obs, actions, strict=True)])
        return actions

    monkeypatch.setattr(batched_episodes, "policy_actions", recording)
    return calls


def record_single(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bytes, int]]:
    """Every (observation, action) `RLAgent.act` sees and returns."""
    seen: list[tuple[bytes, int]] = []
    original = RLAgent.act

    def act(self: RLAgent, observation: Any, info: dict[str, Any]) -> int:
        action = original(self, observation, info)
        seen.append(key(observation, action))
        return action

    monkeypatch.setattr(RLAgent, "act", act)
    return seen


def sequential(agent: RLAgent, seeds: list[int], limit: int) -> list[Any]:
    return [run_episode(TimeLimit(agent.env, limit), agent, seed) for seed in seeds]


def outcome(results: list[Any]) -> list[tuple[int | None, bool, int, float]]:
    return [(r.seed, r.success, r.steps, r.reward) for r in results]


def test_batched_evaluation_plays_run_episodes_maps_and_actions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    batched_calls = record_batched(monkeypatch)
    batched = sharp_agent(NesyGridEnv("pogostick")).evaluate(SEEDS, LIMIT)
    single_seen = record_single(monkeypatch)
    single = sequential(sharp_agent(NesyGridEnv("pogostick")), SEEDS, LIMIT)
    # the same maps: row i of the first call is what run_episode's reset shows for seed i
    env = NesyGridEnv("pogostick")
    assert [row[0] for row in batched_calls[0]] == [
        key(env.reset(seed=s)[0], 0)[0] for s in SEEDS]
    # the same greedy actions on the same observations, step for step
    assert sorted(r for call in batched_calls for r in call) == sorted(single_seen)
    assert len({a for _, a in single_seen}) > 3  # the policy does more than one thing
    assert outcome(batched) == outcome(single)
    assert all(r.steps == LIMIT and not r.success for r in batched)  # untrained: cut at 40
    assert [r.seed for r in batched] == SEEDS


def test_play_batched_ends_episodes_and_counts_success_like_run_episode() -> None:
    script = scripted_solution("pogostick") or []
    assert script
    env = NesyGridEnv("pogostick")
    names = env.action_names

    def scripted() -> Any:
        calls = iter(script)  # every running copy is at the same step of the script

        def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            return np.full(len(obs), names.index(next(calls)), np.int64)
        return act

    for limit in (None, len(script) - 1):
        batched = play_batched(NesyVectorEnv(3, "pogostick"), [5, 6, 7], scripted(), limit)
        single = [run_episode(env if limit is None else TimeLimit(env, limit),
                              ScriptedAgent(env, script), seed) for seed in (5, 6, 7)]
        assert outcome(batched) == outcome(single)
        assert all(r.success == (limit is None) for r in batched)
        assert sum(r.wall_seconds for r in batched) > 0


def test_actions_follow_the_policy_greedy_and_sampled() -> None:
    agent = sharp_agent(NesyGridEnv("pogostick"))
    env = NesyGridEnv("pogostick")
    rows = [env.reset(seed=s) for s in range(20)]
    obs = np.stack([o for o, _ in rows])
    mask = np.stack([i["action_mask"] for _, i in rows])
    rng = np.random.default_rng(0)
    greedy = policy_actions(agent.policy, obs, mask, True, rng)
    assert greedy.tolist() == [agent.policy.act(o, m, greedy=True)
                               for o, m in zip(obs, mask, strict=True)]
    n = 20_000
    probs = agent.policy.action_probabilities(obs[0], mask[0])
    drawn = policy_actions(agent.policy, np.repeat(obs[:1], n, 0), np.repeat(mask[:1], n, 0),
                           False, rng)
    freq = np.bincount(drawn, minlength=len(probs)) / n
    assert not freq[~mask[0]].any()  # never an illegal action
    assert np.abs(freq - probs).max() < 0.02


def test_transfer_agent_evaluates_after_a_novelty_in_the_novelty_world(
        monkeypatch: pytest.MonkeyPatch) -> None:
    source = sharp_agent(NesyGridEnv("pogostick"))
    greedy = RLConfig(train=TINY, greedy=True)
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    agent = TransferRLAgent(env, source, config=greedy)
    assert not agent.expansions  # the novelty arrives at the first reset, as in the protocol
    batched_calls = record_batched(monkeypatch)
    batched = agent.evaluate(SEEDS, LIMIT)
    assert [e["new_actions"] for e in agent.expansions] == [["select_axe"]]
    assert env.episode == len(SEEDS) - 1  # the schedule counted every episode
    novel = NesyGridEnv(apply_novelties("pogostick", ["axe"]))
    assert [row[0] for row in batched_calls[0]] == [
        key(novel.reset(seed=s)[0], 0)[0] for s in SEEDS]

    twin_env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    twin = TransferRLAgent(twin_env, source, config=greedy)
    single_seen = record_single(monkeypatch)
    single = sequential(twin, SEEDS, LIMIT)
    assert twin_env.episode == env.episode
    assert sorted(r for call in batched_calls for r in call) == sorted(single_seen)
    assert outcome(batched) == outcome(single)


def test_plain_rl_agent_refuses_the_novelty_world_in_batched_evaluation() -> None:
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["axe"])
    agent = sharp_agent(env)
    with pytest.raises(ValueError, match="TransferRLAgent"):
        agent.evaluate(SEEDS, LIMIT)


def test_worlds_that_change_during_the_evaluation_are_played_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    axe = load_novelty("axe")
    later = dataclasses.replace(axe, inject=Injection(episode=3))
    assert steady_world(NesyGridEnv("pogostick"), 100)
    assert steady_world(NoveltyInjector(NesyGridEnv("pogostick"), [axe]), 100)
    assert not steady_world(NoveltyInjector(NesyGridEnv("pogostick"), [later]), 4)
    assert steady_world(NoveltyInjector(NesyGridEnv("pogostick"), [later]), 3)
    assert not steady_world(NoveltyInjector(NesyGridEnv("pogostick"), ["lightning"]), 1)
    assert not steady_world(TimeLimit(NesyGridEnv("pogostick"), 10), 1)

    batched_calls = record_batched(monkeypatch)
    env = NoveltyInjector(NesyGridEnv("pogostick"), ["lightning"])  # at step 8 of each episode
    agent = TransferRLAgent(env, sharp_agent(NesyGridEnv("pogostick")),
                            config=RLConfig(train=TINY, greedy=True))
    results = agent.evaluate(SEEDS[:2], 12)
    assert not batched_calls and [r.steps for r in results] == [12, 12]
    assert agent.expansions and env.episode == 1


def test_observations_the_batched_core_cannot_make_are_played_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    batched_calls = record_batched(monkeypatch)
    agent = sharp_agent(NesyGridEnv("pogostick", observation="local_view"))
    assert not agent.batched_core()
    results = agent.evaluate(SEEDS[:2], 10)
    assert not batched_calls and [r.steps for r in results] == [10, 10]


NOISY = """novelty: noisy
category: nuisance
level: agents
description: The agent's sensors become noisy (what the batched core cannot make).
inject: {episode: 0}
changes:
  observation: {noise: 0.2}
"""


def test_a_novelty_that_makes_observations_noisy_is_played_one_by_one(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "noisy.yaml").write_text(NOISY)
    batched_calls = record_batched(monkeypatch)
    env = NoveltyInjector(NesyGridEnv("pogostick"), [tmp_path / "noisy.yaml"])
    agent = sharp_agent(env)
    assert agent.batched_core()  # before the novelty arrives
    results = agent.evaluate(SEEDS[:2], 10)
    assert not batched_calls and [r.steps for r in results] == [10, 10]
    assert env.episode == 1  # the reset that brought the noise in was taken back
