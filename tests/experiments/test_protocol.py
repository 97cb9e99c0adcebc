"""The evaluation protocol's four phases on real agents, with tiny budgets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from nesyworld.experiments.protocol.records import CurvePoint, ProtocolConfig, RunSpec
from nesyworld.experiments.protocol.run import reward_held, run_protocol

TINY = ProtocolConfig(pre_steps=200, post_steps=400, epoch_steps=100, eval_episodes=2,
                      post_eval_episodes=3, eta=2, max_episode_steps=60)


def run(agent: str, novelty: str, protocol: ProtocolConfig = TINY) -> dict:
    record = run_protocol(RunSpec(agent, "pogostick", novelty, 0, protocol))
    assert record["status"] == "ok", record["error"]
    return record


def test_planning_agent_converges_before_and_fails_after_axe() -> None:
    record = run("planning", "axe")
    pre = [c for c in record["curve"] if c["phase"] == "pre"]
    post = [c for c in record["curve"] if c["phase"] == "post"]
    assert len(pre) == TINY.eta and all(c["success_rate"] == 1.0 for c in pre)
    assert pre[-1]["converged"] and not pre[0]["converged"]
    assert post[0]["epoch"] == 0 and post[0]["success_rate"] == 0.0  # immediate impact
    assert not any(c["converged"] for c in post)  # it cannot learn: never adapts
    assert post[-1]["episodes"] == TINY.post_eval_episodes
    assert record["novelty"]["env_steps"] == pre[-1]["env_steps"]
    steps = [c["env_steps"] for c in record["curve"]]
    assert steps == sorted(steps)
    assert math.isnan(post[0]["mean_steps"]) and pre[0]["mean_steps"] >= 14
    whats = {d["what"] for d in record["detections"]}
    assert "new entity type 'axe'" in whats
    assert all(d["correct"] and d["env_steps"] >= record["novelty"]["env_steps"]
               for d in record["detections"])


def test_hybrid_agent_on_chest_needs_no_adaptation() -> None:
    record = run("rapidlearn+", "chest")
    post = [c for c in record["curve"] if c["phase"] == "post"]
    assert all(c["success_rate"] == 1.0 for c in post)
    assert post[-1]["converged"]
    # no failure, so nothing was learned: env steps are the task episodes' own actions
    assert all(c["env_steps"] == c["actions"] for c in record["curve"])


def test_transfer_rl_trains_on_both_sides_of_the_novelty() -> None:
    record = run("transfer_rl", "axe", ProtocolConfig(
        pre_steps=200, post_steps=200, epoch_steps=200, eval_episodes=1, post_eval_episodes=1,
        eta=5, max_episode_steps=30))
    pre = [c for c in record["curve"] if c["phase"] == "pre"]
    post = [c for c in record["curve"] if c["phase"] == "post"]
    # the trainer's 200 steps and its one evaluation episode per epoch: at most 3 x 30 steps
    # before the novelty (pre-training cuts episodes 3 times later, as the paper's did)
    assert 200 < pre[-1]["env_steps"] <= 290 and pre[-1]["actions"] == 0
    after = post[-2]["env_steps"] - pre[-1]["env_steps"]
    assert 200 < after <= 230  # one adaptation epoch after the injection
    assert record["detections"] == []  # RL agents report no novelty


def test_an_unknown_agent_is_an_error_record() -> None:
    record = run_protocol(RunSpec("nobody", "pogostick", "axe", 0, TINY))
    assert record["status"] == "error" and "unknown agent 'nobody'" in record["error"]
    assert record["curve"] == []


def test_a_pretrained_rl_agent_is_evaluated_not_trained_before_the_novelty(
        tmp_path: Path) -> None:
    from nesyworld.hybrid import RLAgent
    from nesyworld.world.envs import NesyGridEnv

    RLAgent(NesyGridEnv("pogostick")).save(tmp_path / "rl_0.pt")
    protocol = ProtocolConfig(pre_steps=10_000, post_steps=100, epoch_steps=100,
                              eval_episodes=1, post_eval_episodes=1, eta=2,
                              max_episode_steps=20,
                              pretrained=str(tmp_path / "rl_{seed}.pt"))
    record = run("transfer_rl", "axe", protocol)
    pre = [c for c in record["curve"] if c["phase"] == "pre"]
    assert len(pre) == protocol.eta and all(c["env_steps"] == 0 for c in pre)
    # it learns after the novelty: 100 training steps, plus its trainer's one evaluation
    # episode of at most 20 steps (env steps in all, docs/COUNTS.md)
    assert 100 < record["curve"][-2]["env_steps"] <= 120


def test_the_first_run_of_an_agent_and_seed_pretrains_and_the_next_loads_it(
        tmp_path: Path) -> None:
    protocol = ProtocolConfig(pre_steps=200, post_steps=100, epoch_steps=100,
                              eval_episodes=1, post_eval_episodes=1, eta=2,
                              max_episode_steps=20,
                              pretrained=str(tmp_path / "pre" / "{agent}_{seed}.pt"))
    first = run("transfer_rl+icm", "axe", protocol)
    saved = tmp_path / "pre" / "transfer_rl_icm_0.pt"
    assert saved.exists() and not list(saved.parent.glob(".*.tmp"))
    assert [c["env_steps"] for c in first["curve"] if c["phase"] == "pre"][-1] >= 200
    second = run("transfer_rl+icm", "fence", protocol)
    pre = [c for c in second["curve"] if c["phase"] == "pre"]
    assert len(pre) == protocol.eta and all(c["env_steps"] == 0 for c in pre)


def test_every_learn_call_of_a_whole_budget_run_has_maps() -> None:
    """The paper protocol's whole budgets make more learn calls than a run's learner_envs
    stream holds at its stride: every call still maps into the stream (the calls start it
    again), and the first calls keep the maps they always had."""
    from nesyworld.experiments.protocol.agents import LEARN_CALL_STRIDE, learner_env_index
    from nesyworld.hybrid.seeding import SPAN, RunSeeds

    seeds = RunSeeds(0)
    calls = range(1, 4_000_000 // 4_800 + 1_000_000 // 4_800 + 50)
    assert len(calls) > SPAN // LEARN_CALL_STRIDE
    for call in calls:
        assert 0 <= learner_env_index(call) < SPAN
        seeds.map("learner_envs", learner_env_index(call))
    assert [learner_env_index(c) for c in (1, 2, 837)] == [
        LEARN_CALL_STRIDE * c for c in (1, 2, 837)]


def test_novelgyms_stop_asks_for_a_run_of_evaluations_at_the_reward() -> None:
    def points(*rewards: float) -> list[CurvePoint]:
        return [CurvePoint(phase="pre", epoch=i + 1, env_steps=0, actions=0, cpu_seconds=0.0,
                           success_rate=1.0, mean_steps=10.0, episodes=100, converged=False,
                           mean_reward=r) for i, r in enumerate(rewards)]

    assert reward_held(points(100, 950, 910), 900, 2)
    assert not reward_held(points(950, 899, 910), 900, 2)  # the run restarts after a miss
    assert not reward_held(points(950), 900, 2)  # too few evaluations yet
    assert not reward_held(points(950, math.nan), 900, 2)  # no reward measured: no pass
    with pytest.raises(ValueError, match="pre_full_budget false"):
        ProtocolConfig(pre_stop_reward=900)
    with pytest.raises(ValueError, match="at least 1"):
        ProtocolConfig(pre_full_budget=False, pre_stop_reward=900, pre_stop_epochs=0)
    assert ProtocolConfig(pre_full_budget=False, pre_stop_reward=900).name == "custom"
