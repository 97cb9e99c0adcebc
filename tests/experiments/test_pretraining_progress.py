"""An RL pre-training outlasts a session: it saves its progress every few epochs, and the next
run of its (agent, seed) resumes it instead of starting over (experiments/protocol/
pretraining.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import torch

from nesyworld.experiments.protocol import agents as agents_module
from nesyworld.experiments.protocol import run as run_module
from nesyworld.experiments.protocol.agents import RLProtocolAgent
from nesyworld.experiments.protocol.pretraining import PretrainingProgress, progress_files
from nesyworld.experiments.protocol.records import ProtocolConfig, RunSpec
from nesyworld.experiments.protocol.run import run_protocol
from nesyworld.learning import PPOConfig


class SessionEnded(BaseException):
    """What stops a sweep from outside (a signal, the end of a session): not an Exception,
    so the run does not record it as an error."""


def _protocol(tmp_path: Path) -> ProtocolConfig:
    # 700: five epochs of 100 training steps and the trainer's evaluation episode of up to
    # 3 x 20 steps (experiments/protocol/agents.py, PRE_EPISODE_FACTOR)
    return ProtocolConfig(pre_steps=700, post_steps=100, epoch_steps=100, eval_episodes=1,
                          post_eval_episodes=1, eta=2, success_threshold=1.01,
                          max_episode_steps=20,
                          pretrained=str(tmp_path / "pre" / "{agent}_{seed}.pt"))


def same_contents(a: Any, b: Any) -> bool:
    """Equal checkpoints: every tensor and value alike (the files' bytes may differ by how the
    archive was written)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(
            same_contents(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return (isinstance(b, list | tuple) and len(a) == len(b)
                and all(same_contents(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    return bool(a == b)


def _pre(record: dict) -> list[dict]:
    return [c for c in record["curve"] if c["phase"] == "pre"]


def test_a_stopped_pretraining_resumes_where_it_stood(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_module, "PROGRESS_EVERY", 2)
    protocol = _protocol(tmp_path)
    spec = RunSpec("transfer_rl_unmasked", "pogostick", "axe", 0, protocol)
    final = tmp_path / "pre" / "transfer_rl_unmasked_0.pt"
    weights, counters = progress_files(final)
    calls: list[int] = []
    train = RLProtocolAgent.train

    def stops_at_the_fourth_epoch(self: RLProtocolAgent, steps: int, phase: str = "post"):
        calls.append(steps)
        if len(calls) == 4:
            raise SessionEnded  # the session ended mid-training
        return train(self, steps, phase)

    monkeypatch.setattr(RLProtocolAgent, "train", stops_at_the_fourth_epoch)
    with pytest.raises(SessionEnded):
        run_protocol(spec)
    assert weights.is_file() and not final.exists()
    saved = PretrainingProgress.load(counters)
    assert saved is not None and (saved.epoch, saved.learn_calls) == (3, 2)
    assert saved.spent == saved.env_steps >= 200  # training and the trainer's evaluation

    monkeypatch.setattr(RLProtocolAgent, "train", train)
    record = run_protocol(spec)
    assert record["status"] == "ok", record["error"]
    pre = _pre(record)
    # epochs 1-2 from the first run, 3-5 resumed: the whole budget, counted once
    assert [c["epoch"] for c in pre] == [1, 2, 3, 4, 5]
    steps = [c["env_steps"] for c in pre]
    assert steps == sorted(steps) and steps[:2] == [c.env_steps for c in saved.curve]
    assert final.is_file() and not weights.exists() and not counters.exists()

    # and it is the pre-training an uninterrupted run makes: every learn call seeds its own
    # random streams (learning/training/trainer.py, experiments/protocol/agents.py)
    whole = dataclasses.replace(protocol, pretrained=str(tmp_path / "whole" / "{agent}_{seed}.pt"))
    uninterrupted = run_protocol(dataclasses.replace(spec, protocol=whole))
    assert same_contents(torch.load(tmp_path / "whole" / final.name, weights_only=True),
                         torch.load(final, weights_only=True))
    assert ([(c["env_steps"], c["success_rate"]) for c in uninterrupted["curve"]]
            == [(c["env_steps"], c["success_rate"]) for c in record["curve"]])


def test_a_damaged_progress_record_starts_over(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    counters = tmp_path / "x.pt.partial.json"
    for text in ("{", "[]", json.dumps({"epoch": -1}), "x" * 10):
        counters.write_text(text)
        assert PretrainingProgress.load(counters) is None
    assert "pre-training starts over" in capsys.readouterr().err
    assert PretrainingProgress.load(tmp_path / "missing.json") is None


@pytest.mark.parametrize("full", [True, False])
def test_the_papers_rl_pretraining_runs_its_whole_budget(tmp_path: Path, full: bool) -> None:
    """The paper trained its RL agents for the whole 4M steps (sections 6 and 7): where the
    convergence test first holds is marked, and training goes on to the budget; without
    `pre_full_budget` it stops there."""
    protocol = ProtocolConfig(pre_steps=700, post_steps=100, epoch_steps=100, eval_episodes=1,
                              post_eval_episodes=1, eta=1, nu=0, success_threshold=0.0,
                              reward_threshold=-1e9, max_episode_steps=20,
                              pre_full_budget=full)
    record = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "axe", 0, protocol))
    assert record["status"] == "ok", record["error"]
    pre = _pre(record)
    assert [c["converged"] for c in pre] == ([True, False, False, False, False] if full
                                             else [True])
    assert pre[-1]["env_steps"] >= (700 if full else 100)


def test_the_paper_protocol_fixes_the_full_pretraining() -> None:
    assert ProtocolConfig().pre_full_budget and ProtocolConfig().name == "paper"
    assert ProtocolConfig(pre_full_budget=False).name == "custom"
    with pytest.raises(ValueError, match="pre_full_budget"):
        ProtocolConfig(name="paper", pre_full_budget=False)


def test_a_checkpoint_pretrained_otherwise_is_refused_not_loaded(tmp_path: Path) -> None:
    """A checkpoint stopped at convergence where the protocol pre-trains the whole budget
    (or one that does not say) would stand for a pre-training the run never had."""
    stopped = dataclasses.replace(_protocol(tmp_path), pre_full_budget=False)
    first = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "axe", 0, stopped))
    assert first["status"] == "ok", first["error"]
    again = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "fence", 0,
                                 _protocol(tmp_path)))
    assert again["status"] == "error"
    assert "'full_budget': False" in again["error"] and "delete the file" in again["error"]
    assert run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "fence", 0,
                                stopped))["status"] == "ok"  # the same rule loads it


def _other_ppo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pre-train with our faster default PPO instead of the paper's."""
    monkeypatch.setattr(agents_module, "PAPER_PRE_NOVELTY_PPO", PPOConfig())


def test_the_papers_baselines_learn_with_the_papers_ppo() -> None:
    from nesyworld.experiments.protocol.agents import make_protocol_agent
    from nesyworld.hybrid.seeding import RunSeeds
    from nesyworld.world.envs import NesyGridEnv

    def configs(name: str) -> tuple[PPOConfig, PPOConfig]:
        agent = make_protocol_agent(name, NesyGridEnv("pogostick"), "pogostick", RunSeeds(0),
                                    20, 100)
        assert isinstance(agent, RLProtocolAgent)
        return agent.agent.config.ppo, agent.post_config.ppo

    pre, post = configs("transfer_rl+icm_unmasked")
    assert (pre.lr, pre.batch_size, pre.epochs_per_update) == (1e-5, 128, 20)  # tables 4, 6
    assert (post.lr, post.batch_size, post.epochs_per_update) == (1e-5, 128, 8)  # table 7
    assert configs("transfer_rl") == (PPOConfig(), PPOConfig())  # our masked variant


def _other_episodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pre-train with training episodes cut at the protocol's 20 steps, not 3 x 20."""
    monkeypatch.setattr(agents_module, "PRE_EPISODE_FACTOR", 1)


def test_pretraining_episodes_are_cut_where_the_papers_were() -> None:
    """Table 6 cuts pre-training episodes at 1,200 steps, table 7 the ones after the novelty
    at the protocol's 400; a protocol with another cut scales both."""
    from nesyworld.experiments.protocol.agents import make_protocol_agent
    from nesyworld.hybrid.seeding import RunSeeds
    from nesyworld.world.envs import NesyGridEnv

    for cut, pre in ((400, 1200), (20, 60)):
        agent = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"),
                                    "pogostick", RunSeeds(0), cut, 100)
        assert isinstance(agent, RLProtocolAgent)
        assert agent.agent.config.train.max_episode_steps == pre
        assert agent.post_config.train.max_episode_steps == cut
        assert agent.max_episode_steps == cut  # every evaluation


@pytest.mark.parametrize(("otherwise", "said"), [
    (_other_ppo, ("other PPO settings", "lr 0.0003 != 1e-05")),
    (_other_episodes, ("'max_episode_steps': 20", "delete the file"))])
def test_a_checkpoint_pretrained_with_other_settings_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, otherwise: Any,
        said: tuple[str, str]) -> None:
    with monkeypatch.context() as m:
        otherwise(m)
        first = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "axe", 0,
                                     _protocol(tmp_path)))
    assert first["status"] == "ok", first["error"]
    again = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "fence", 0,
                                 _protocol(tmp_path)))
    assert again["status"] == "error"
    line = again["error"].strip().splitlines()[-1]
    assert all(part in line for part in said), line


@pytest.mark.parametrize(("otherwise", "said"), [
    (_other_ppo, "lr 0.0003 != 1e-05"), (_other_episodes, "'max_episode_steps': 20")])
def test_an_unfinished_pretraining_made_otherwise_starts_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], otherwise: Any, said: str) -> None:
    monkeypatch.setattr(run_module, "PROGRESS_EVERY", 2)
    spec = RunSpec("transfer_rl_unmasked", "pogostick", "axe", 0, _protocol(tmp_path))
    weights, counters = progress_files(tmp_path / "pre" / "transfer_rl_unmasked_0.pt")
    calls: list[int] = []
    train = RLProtocolAgent.train

    def stops_at_the_fourth_epoch(self: RLProtocolAgent, steps: int, phase: str = "post"):
        calls.append(steps)
        if len(calls) == 4:
            raise SessionEnded
        return train(self, steps, phase)

    with monkeypatch.context() as m:
        otherwise(m)
        m.setattr(RLProtocolAgent, "train", stops_at_the_fourth_epoch)
        with pytest.raises(SessionEnded):
            run_protocol(spec)
    assert weights.is_file() and counters.is_file()
    record = run_protocol(spec)
    assert record["status"] == "ok", record["error"]
    assert [c["epoch"] for c in _pre(record)] == [1, 2, 3, 4, 5]  # from the start
    err = capsys.readouterr().err
    assert "an unfinished pre-training made otherwise" in err and said in err


def test_the_critic_sized_as_the_actor_is_the_default_network() -> None:
    from nesyworld.experiments.protocol.pretraining import ppo_differences

    plain = PPOConfig(hidden_sizes=(32, 16))
    spelt_out = dataclasses.replace(plain, critic_hidden_sizes=(32, 16))
    assert ppo_differences(plain, spelt_out) == ppo_differences(spelt_out, plain) == ""
    other = dataclasses.replace(plain, critic_hidden_sizes=(64, 16))
    assert ppo_differences(plain, other) == "critic_hidden_sizes None != (64, 16)"
