"""`FIELD=VALUE` settings (experiments/probe/settings.py): read as YAML scalars, checked
against the field's annotation, refused in one line naming the flag."""

from __future__ import annotations

import dataclasses

import pytest

from nesyworld.experiments.probe.ablation import pre_checkpoint_template
from nesyworld.experiments.probe.settings import AblationError, changed_ppo
from nesyworld.hybrid.baselines.rl_config import PAPER_POST_NOVELTY_PPO, PAPER_PRE_NOVELTY_PPO
from nesyworld.learning import PPOConfig


def test_settings_are_read_as_yaml_scalars() -> None:
    ppo, changes = changed_ppo(PAPER_POST_NOVELTY_PPO, ["max_grad_norm=none", "ent_coef=0.02",
                                                     "value_clip=true"])
    assert (ppo.max_grad_norm, ppo.ent_coef, ppo.value_clip) == (None, 0.02, True)
    assert changes == {"max_grad_norm": None, "ent_coef": 0.02, "value_clip": True}
    assert changed_ppo(PPOConfig(), ["lr=1"])[0].lr == 1.0
    assert changed_ppo(PPOConfig(), ["lr=1e-5"])[0].lr == 1e-5  # YAML 1.1 reads it as text
    # the rest is the base's
    assert dataclasses.replace(ppo, max_grad_norm=PAPER_POST_NOVELTY_PPO.max_grad_norm,
                               ent_coef=PAPER_POST_NOVELTY_PPO.ent_coef,
                               value_clip=False) == PAPER_POST_NOVELTY_PPO


@pytest.mark.parametrize(("setting", "message"), [
    ("max_grad_norm", "expected FIELD=VALUE"),
    ("no_such_field=1", "expected FIELD=VALUE with FIELD one of"),
    ("lr=[1, 2]", "expected a single value"),
    ("lr=-1", "must be positive"),
    ("ent_coef=[", "not a YAML scalar"),
    ("lr=none", "expected float$"),
    ("lr=fast", "expected float$"),
    ("value_clip=1", "expected bool$"),
    ("batch_size=1.5", "expected int$"),
    ("hidden_sizes=[32]", "the network comes from the checkpoint"),
])
def test_bad_settings_are_refused_in_one_line(setting: str, message: str) -> None:
    with pytest.raises(AblationError, match=message.replace("[", r"\[")) as err:
        changed_ppo(PAPER_POST_NOVELTY_PPO, [setting])
    assert "\n" not in str(err.value)
    if not setting.startswith("hidden_sizes"):  # the pre-training may size the networks
        with pytest.raises(AblationError, match=r"^--pre-set[ :]"):
            changed_ppo(PAPER_PRE_NOVELTY_PPO, [setting], "--pre-set")


def test_the_pre_training_may_size_the_networks() -> None:
    ppo, changes = changed_ppo(PAPER_PRE_NOVELTY_PPO, [
        "hidden_sizes=[128, 64]", "critic_hidden_sizes=[256, 128, 64]"], "--pre-set")
    assert (ppo.hidden_sizes, ppo.critic_hidden_sizes) == ((128, 64), (256, 128, 64))
    assert ppo.critic_sizes == (256, 128, 64)
    assert changes == {"hidden_sizes": (128, 64), "critic_hidden_sizes": (256, 128, 64)}
    assert "hidden_sizes-128x64" in pre_checkpoint_template("p/{agent}_{seed}.pt", changes)
    for bad in ("hidden_sizes=[]", "hidden_sizes=[0]", "hidden_sizes=[1.5]",
                "critic_hidden_sizes=[a]"):
        with pytest.raises(AblationError, match="expected a list of positive integers"):
            changed_ppo(PAPER_PRE_NOVELTY_PPO, [bad], "--pre-set")
    with pytest.raises(AblationError, match="the prior comes from the checkpoint"):
        changed_ppo(PAPER_PRE_NOVELTY_PPO, ["action_prior=[1.0]"], "--pre-set")
    with pytest.raises(AblationError, match="the network comes from the checkpoint"):
        changed_ppo(PAPER_POST_NOVELTY_PPO, ["critic_hidden_sizes=[8]"])


def test_the_critic_warmup_is_set_after_the_novelty_only() -> None:
    ppo, changes = changed_ppo(PAPER_POST_NOVELTY_PPO, ["critic_warmup_steps=48000"])
    assert ppo.critic_warmup_steps == 48_000 and changes == {"critic_warmup_steps": 48_000}
    with pytest.raises(AblationError, match=r"^--pre-set .*\(after the novelty only: --set\)"):
        changed_ppo(PAPER_PRE_NOVELTY_PPO, ["critic_warmup_steps=48000"], "--pre-set")
