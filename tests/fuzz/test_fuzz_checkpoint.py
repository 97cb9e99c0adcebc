"""Checkpoints: damaged files (bytes) and edited payloads (fields) through `load_checkpoint`
and the loaded policy.

Each must load and act, or be one CheckpointError; torch's many error kinds must not escape.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.learning import PPOConfig, load_checkpoint, save_checkpoint
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.learning.training.checkpoint import Checkpoint

EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 25)
ODD_VALUES = (None, 0, -1, 2**70, 1.5, float("nan"), "x", [], {}, [1, 2], {"kind": "box"},
              torch.zeros(3), torch.full((2, 2), float("inf")), True, (1,), [[[[1]]]])


def small_checkpoint() -> Checkpoint:
    """A tiny trained-looking checkpoint: one Adam step so the optimiser has moments."""
    torch.manual_seed(0)
    ppo = PPOConfig(hidden_sizes=(8,))
    actor, critic = MaskedActor(6, 3, ppo.hidden_sizes), ValueCritic(6, ppo.hidden_sizes)
    optim = torch.optim.Adam([*actor.parameters(), *critic.parameters()])
    critic.net(torch.ones(1, 6)).sum().backward()
    optim.step()
    return Checkpoint(ppo=ppo, icm=None, train=None,
                      observation_space=spaces.Box(0.0, 1.0, (6,), np.float32),
                      action_space=spaces.Discrete(3), obs_dim=6,
                      actor_state=actor.state_dict(), critic_state=critic.state_dict(),
                      ppo_optim_state=optim.state_dict(),
                      return_stats={"mean": 0.0, "var": 1.0, "count": 3}, env_steps=10)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_checkpoint(tmp_path_factory.mktemp("ckpt") / "p.pt", small_checkpoint())


def _load_and_act(path: Path) -> None:
    ckpt = load_checkpoint(path)
    obs = np.zeros(ckpt.obs_dim, np.float32)
    probs = ckpt.policy().action_probabilities(obs)
    assert np.isfinite(probs).all()


def _edit(data: st.DataObject, value: object, depth: int = 0) -> object:
    """`value` with one entry somewhere inside it dropped or replaced by an odd value."""
    if isinstance(value, dict) and value and depth < 4:
        key = data.draw(st.sampled_from(sorted(value, key=str)), label=f"key{depth}")
        out = dict(value)
        kind = data.draw(st.sampled_from(("drop", "odd", "deeper")), label=f"edit{depth}")
        if kind == "drop":
            del out[key]
        elif kind == "odd":
            out[key] = data.draw(st.sampled_from(ODD_VALUES), label="odd")
        else:
            out[key] = _edit(data, out[key], depth + 1)
        return out
    if isinstance(value, torch.Tensor):
        return data.draw(st.sampled_from((value.T if value.dim() == 2 else value.reshape(-1)[:-1],
                                          value * float("nan"), value.to(torch.int64),
                                          value.reshape(-1)[:1])), label="tensor")
    return data.draw(st.sampled_from(ODD_VALUES), label="odd")


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_damaged_checkpoints_load_or_refuse(fuzz, data, saved, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "p.pt"
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(fuzz.mutant_bytes(data, saved.read_bytes()))
    else:
        payload = torch.load(saved, weights_only=True)
        torch.save(_edit(data, payload), path)
    fuzz.run("checkpoint damaged", lambda: _load_and_act(path))
