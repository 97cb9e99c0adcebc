"""The `_unmasked` RL agents (the paper's plain action space) in experiment configs and the
protocol: names, configs, pre-trained checkpoints kept apart from the masked ones, and a
tiny pre-training + adaptation through `run_protocol`, the entry point of every sweep."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.experiments.protocol.agents import RLProtocolAgent, make_protocol_agent
from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.experiments.protocol.pretraining import checkpoint_path
from nesyworld.experiments.protocol.records import AGENTS, ProtocolConfig, RunSpec
from nesyworld.experiments.protocol.run import run_protocol
from nesyworld.hybrid.baselines.legal_actions import CHECKPOINT_KEY
from nesyworld.hybrid.baselines.rl_agents import RLAgent
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import load_checkpoint
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.errors import SpecError

PAIRS = [("transfer_rl", "transfer_rl_unmasked"), ("transfer_rl+icm", "transfer_rl+icm_unmasked"),
         ("rl", "rl_unmasked"), ("rl+icm", "rl+icm_unmasked")]


@pytest.mark.parametrize(("masked", "unmasked"), PAIRS)
def test_unmasked_agents_are_named_and_built_without_masks(masked: str, unmasked: str
                                                           ) -> None:
    assert masked in AGENTS and unmasked in AGENTS
    for name, masks in ((masked, True), (unmasked, False)):
        agent = make_protocol_agent(name, NesyGridEnv("pogostick"), "pogostick", RunSeeds(0),
                                    30, 100)
        assert isinstance(agent, RLProtocolAgent)
        assert agent.agent.config.action_masks is masks
        assert agent.post_config.action_masks is masks
        assert (agent.agent.config.icm is None) == ("+icm" not in name)
        assert agent.transfer == name.startswith("transfer_rl")
        # the paper's baselines start a new action as its renamed placeholder no-op and a
        # new input at its initial weights, as an untrained placeholder slot
        assert agent.transfer_config.new_actions_from == ("" if masks else "nop")
        assert agent.transfer_config.new_weight_scale == (0.01 if masks else 1.0)


def test_unknown_variants_are_refused() -> None:
    for name in ("transfer_rl+foo_unmasked", "transfer_rl_unmasked_unmasked"):
        with pytest.raises(ValueError, match="unknown agent"):
            make_protocol_agent(name, NesyGridEnv("pogostick"), "pogostick", RunSeeds(0),
                                30, 100)


@pytest.mark.parametrize(("masked", "unmasked"), PAIRS)
@pytest.mark.parametrize("template", ["pre/{agent}_{seed}.pt", "pre/rl_{seed}.pt"])
def test_masked_and_unmasked_checkpoints_never_share_a_file(masked: str, unmasked: str,
                                                            template: str) -> None:
    assert checkpoint_path(template, masked, 3) != checkpoint_path(template, unmasked, 3)
    assert str(checkpoint_path(template, unmasked, 3)).endswith("unmasked_3.pt"
                                                                if "{agent}" in template
                                                                else "rl_3_unmasked.pt")


def test_table2_runs_the_papers_unmasked_baselines_and_table2_masked_ours(
        tmp_path: Path) -> None:
    config = load_experiment("table2_masked")
    assert config.agents == ("transfer_rl+icm", "transfer_rl")
    assert config.protocol == load_experiment("table2").protocol
    assert config.protocol.name == "paper" and len(config.runs()) == 100
    assert load_experiment("table2").agents == ("rapidlearn+", "rapidlearn",
                                                 "transfer_rl+icm_unmasked",
                                                 "transfer_rl_unmasked")
    assert len(load_experiment("table2").runs()) == 200
    bad = tmp_path / "b.yaml"
    bad.write_text("domain: pogostick\nagents: [transfer_rl, transfer_rl_unmaskd]\n"
                   "novelties: [axe]\nseeds: 1\n")
    with pytest.raises(SpecError, match=r"b\.yaml:2:\d+: unknown agent 'transfer_rl_unmaskd'"):
        load_experiment(bad)


def test_an_unmasked_agent_pretrains_adapts_and_keeps_its_checkpoint_apart(
        tmp_path: Path) -> None:
    protocol = ProtocolConfig(pre_steps=200, post_steps=100, epoch_steps=100,
                              eval_episodes=1, post_eval_episodes=1, eta=2,
                              max_episode_steps=20,
                              pretrained=str(tmp_path / "pre" / "{agent}_{seed}.pt"))
    record = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "axe", 0, protocol))
    assert record["status"] == "ok", record["error"]
    assert record["key"].startswith("transfer_rl_unmasked/")
    saved = tmp_path / "pre" / "transfer_rl_unmasked_0.pt"
    assert saved.exists() and load_checkpoint(saved).metadata[CHECKPOINT_KEY] is False
    post = [c for c in record["curve"] if c["phase"] == "post"]
    assert post[-1]["env_steps"] > record["novelty"]["env_steps"]  # it trained after it
    # a masked checkpoint where the unmasked agent's file should be: refused, not reused
    RLAgent(NesyGridEnv("pogostick")).save(saved)
    again = run_protocol(RunSpec("transfer_rl_unmasked", "pogostick", "fence", 0, protocol))
    assert again["status"] == "error"
    assert "trained with the world's action masks" in again["error"]
