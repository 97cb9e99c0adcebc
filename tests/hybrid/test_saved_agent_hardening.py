"""Saved agents (issue 22): a folder for `nesyworld run --kb DIR` with a missing or broken
part is one located project error, and the agent keeps what it knew.

kb.json and the PDDL beside it are KnowledgeBase.load's to check (a KnowledgeBaseError, which is
a SpecError with the `entries[0].operator.name` path); a saved agent adds only its policy files
and the learned operators' names that name them."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces

from nesyworld.hybrid import HybridAgent, PlanningAgent
from nesyworld.hybrid.agents.saved_agent import policy_file
from nesyworld.learning import PPOConfig, save_checkpoint
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.learning.training.checkpoint import Checkpoint, CheckpointError
from nesyworld.symbolic.knowledge_base import KnowledgeBase, KnowledgeBaseError
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.errors import SpecError

LEARNED = "learned_break_oak_log_1"


@pytest.fixture(scope="module")
def agent() -> HybridAgent:
    return HybridAgent(NesyGridEnv("pogostick"), KnowledgeBase.from_world("pogostick"))


def tiny_checkpoint() -> Checkpoint:
    ppo = PPOConfig(hidden_sizes=(4,))
    return Checkpoint(ppo=ppo, icm=None, train=None,
                      observation_space=spaces.Box(0.0, 1.0, (5,), np.float32),
                      action_space=spaces.Discrete(2), obs_dim=5,
                      actor_state=MaskedActor(5, 2, (4,)).state_dict(),
                      critic_state=ValueCritic(5, (4,)).state_dict())


@pytest.fixture(scope="module")
def saved(agent: HybridAgent, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved folder with one learned operator (a derived one relabelled) and its policy."""
    folder = tmp_path_factory.mktemp("kb")
    agent.save(folder)
    kb = agent.kb.copy()
    kb.add(replace(next(iter(kb)).operator, name=LEARNED), origin="learned",
           meta={"actions": ["nop", "break"], "observation": {}})
    kb.save(folder)  # kb.json, and the domain.pddl that must match it
    save_checkpoint(folder / "policies" / f"{LEARNED}.pt", tiny_checkpoint())
    return folder


def copy_of(saved: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(saved, tmp_path / "kb"))


def test_a_good_folder_loads_its_learned_operator(agent: HybridAgent, saved: Path) -> None:
    agent.load(saved)
    assert LEARNED in agent.learned


def test_a_missing_policy_names_its_file(agent: HybridAgent, saved: Path,
                                         tmp_path: Path) -> None:
    folder = copy_of(saved, tmp_path)
    (folder / "policies" / f"{LEARNED}.pt").unlink()
    before, learned = agent.kb, agent.learned
    with pytest.raises(SpecError, match="missing") as info:
        agent.load(folder)
    assert f"{LEARNED}.pt" in str(info.value) and "\n" not in str(info.value)
    assert info.value.file == str(folder / "policies" / f"{LEARNED}.pt")
    assert agent.kb is before and agent.learned is learned  # nothing changed


def test_a_learned_name_that_leaves_the_folder_is_refused(agent: HybridAgent,
                                                          saved: Path) -> None:
    """KnowledgeBase.load admits only PDDL names; the policy path is checked all the same."""
    kb = KnowledgeBase.load(saved, agent.kb.base)
    kb.add(replace(next(iter(kb)).operator, name="../../etc/x"), origin="learned")
    with pytest.raises(SpecError) as info:
        policy_file(saved, kb, "../../etc/x", "policies")
    assert info.value.key_path == f"entries[{len(kb) - 1}].operator.name"
    assert info.value.file == str(saved / "kb.json") and "\n" not in str(info.value)
    assert policy_file(saved, kb, LEARNED, "policies") == saved / "policies" / f"{LEARNED}.pt"


def test_a_corrupt_policy_is_a_checkpoint_error(agent: HybridAgent, saved: Path,
                                                tmp_path: Path) -> None:
    folder = copy_of(saved, tmp_path)
    policy = folder / "policies" / f"{LEARNED}.pt"
    policy.write_bytes(policy.read_bytes()[:200])
    with pytest.raises(CheckpointError, match=str(policy)):
        agent.load(folder)
    payload = torch.load(save_checkpoint(policy, tiny_checkpoint()), weights_only=True)
    payload["actor_state"]["net.model.0.weight"] = torch.zeros(9, 9)
    torch.save(payload, policy)
    with pytest.raises(CheckpointError, match="actor_state"):
        agent.load(folder)


@pytest.mark.parametrize(("edit", "where", "error"), [
    (lambda kb: kb.update(format="other"), "format", KnowledgeBaseError),
    (lambda kb: kb["entries"][0].update(origin="stolen"), "entries[0].origin",
     KnowledgeBaseError),
    (lambda kb: kb["entries"][0]["operator"].pop("params"), "entries[0].operator.params",
     KnowledgeBaseError),
    (lambda kb: kb["entries"][0]["operator"].update(name="../../etc/x"),
     "entries[0].operator.name", KnowledgeBaseError),
    (lambda kb: kb["entries"][0]["operator"]["preconditions"].insert(0, {"kind": "magic"}),
     "entries[0].operator.preconditions[0].kind", KnowledgeBaseError),
    (lambda kb: kb["entries"][-1].update(meta={"actions": 3}), "entries[{last}].meta",
     SpecError),  # kb.json is well formed; the learned operator cannot be rebuilt from it
])
def test_a_broken_kb_json_is_located(agent: HybridAgent, saved: Path, tmp_path: Path, edit,
                                     where: str, error: type[SpecError]) -> None:
    folder = copy_of(saved, tmp_path)
    kb = json.loads((folder / "kb.json").read_text())
    edit(kb)
    (folder / "kb.json").write_text(json.dumps(kb))
    before, learned = agent.kb, agent.learned
    with pytest.raises(error) as info:
        agent.load(folder)
    assert info.value.key_path == where.format(last=len(kb["entries"]) - 1), str(info.value)
    assert info.value.file == str(folder / "kb.json")
    assert str(info.value).startswith(f"{folder / 'kb.json'}: ") and "\n" not in str(info.value)
    assert f"(at '{info.value.key_path}')" in str(info.value) and "; expected " in str(info.value)
    assert agent.kb is before and agent.learned is learned  # nothing changed


@pytest.mark.parametrize("content", [b"", b"\xff\xfe", b"{" * 50_000, b'{"format": '])
def test_an_unreadable_kb_json_is_one_line(saved: Path, tmp_path: Path, content: bytes) -> None:
    folder = copy_of(saved, tmp_path)
    (folder / "kb.json").write_bytes(content)
    planner = PlanningAgent(NesyGridEnv("pogostick"), KnowledgeBase.from_world("pogostick"))
    before = planner.kb
    with pytest.raises(KnowledgeBaseError) as info:
        planner.load(folder)
    assert isinstance(info.value, SpecError) and info.value.file == str(folder / "kb.json")
    assert "kb.json" in str(info.value) and "\n" not in str(info.value)
    assert planner.kb is before


def test_a_missing_folder_is_located(agent: HybridAgent, tmp_path: Path) -> None:
    before = agent.kb
    with pytest.raises(KnowledgeBaseError, match="not a folder") as info:
        agent.load(tmp_path / "nowhere")
    assert isinstance(info.value, SpecError) and info.value.file == str(tmp_path / "nowhere")
    assert agent.kb is before
