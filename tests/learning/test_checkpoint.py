"""Checkpoints: round trip (same actions) and fine-tuning from the loaded weights."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from nesyworld.learning import (
    ICMConfig,
    PPOConfig,
    TrainResult,
    build_learner,
    load_checkpoint,
    save_checkpoint,
    train,
)


def _all_states(grid: SimpleNamespace) -> list[tuple[np.ndarray, np.ndarray]]:
    """(obs, mask) for every free cell of the gridworld."""
    env = grid.GridWorld()
    env.reset()
    out = []
    for r in range(5):
        for c in range(5):
            if not (r == 2 and c < 4):
                env.pos = (r, c)
                out.append((env._obs(), env.action_mask()))
    return out


def test_round_trip_same_actions(
    trained: TrainResult, grid: SimpleNamespace, tmp_path: Path
) -> None:
    path = save_checkpoint(tmp_path / "sub" / "policy.pt", trained, operator="learned_test_1")
    ckpt = load_checkpoint(path)
    assert ckpt.metadata == {"operator": "learned_test_1"}
    assert ckpt.env_steps == trained.env_steps
    assert ckpt.ppo == PPOConfig() and ckpt.icm is None and ckpt.train == trained.config
    loaded = ckpt.policy()
    for obs, mask in _all_states(grid):
        assert loaded.act(obs, mask) == trained.policy.act(obs, mask)
        np.testing.assert_allclose(
            loaded.action_probabilities(obs, mask), trained.policy.action_probabilities(obs, mask)
        )
    success, steps = grid.greedy_rollout(loaded.act)
    assert success and steps <= grid.SHORTEST_PATH + 2


def test_loading_restores_weights_and_sets_new_lr(
    trained: TrainResult, grid: SimpleNamespace
) -> None:
    ckpt = trained.checkpoint()
    learner = build_learner(ckpt.observation_space, ckpt.action_space, PPOConfig(lr=1e-5))
    learner.load(ckpt)
    for name, tensor in learner.ppo.policy.actor.state_dict().items():
        assert torch.equal(tensor, ckpt.actor_state[name])
    for name, tensor in learner.ppo.critic.state_dict().items():
        assert torch.equal(tensor, ckpt.critic_state[name])
    optim_state = learner.ppo.optim.state_dict()
    assert optim_state["param_groups"][0]["lr"] == 1e-5  # the new run's lr, not the saved one
    assert len(optim_state["state"]) == len(ckpt.ppo_optim_state["state"])  # Adam moments kept


def test_architecture_mismatch_is_an_error(trained: TrainResult) -> None:
    ckpt = trained.checkpoint()
    learner = build_learner(ckpt.observation_space, ckpt.action_space,
                            PPOConfig(hidden_sizes=(32,)))
    with pytest.raises(ValueError, match="hidden sizes"):
        learner.load(ckpt)


def test_fine_tuning_continues_from_the_checkpoint(
    trained: TrainResult, grid: SimpleNamespace, tmp_path: Path
) -> None:
    ckpt = load_checkpoint(save_checkpoint(tmp_path / "p.pt", trained))
    config = grid.fast_config(seed=5, step_budget=500, stop_on_convergence=False)
    # ICM added at fine-tuning time: PPO parts load, the ICM starts fresh.
    tuned = train(grid.GridWorld, config, PPOConfig(lr=1e-4), ICMConfig(), init=ckpt)
    # Starts from the trained weights: optimal from the first evaluation on.
    assert tuned.epochs[0].success_rate == 1.0
    assert tuned.epochs[0].mean_length <= grid.SHORTEST_PATH + 2
    # A fresh agent with the same seed and budget has not learned the task.
    fresh = train(grid.GridWorld, config, PPOConfig(lr=1e-4), ICMConfig())
    assert fresh.epochs[0].success_rate < 1.0 or fresh.epochs[0].mean_length > 14
    # Step accounting accumulates over continued runs.
    assert tuned.prior_env_steps == trained.env_steps
    again = tuned.checkpoint()
    assert again.env_steps == trained.env_steps + tuned.env_steps
    assert again.icm is not None and again.icm_state is not None


def test_a_setting_that_may_be_none_loads_as_none(trained: TrainResult, tmp_path: Path
                                                 ) -> None:
    """PPOConfig.max_grad_norm None (no gradient clip: the paper's RL baselines) round-trips;
    None where a number is required is refused."""
    path = save_checkpoint(tmp_path / "p.pt", trained)
    payload = torch.load(path, weights_only=True)
    payload["ppo"] = {**payload["ppo"], "max_grad_norm": None, "dual_clip": None}
    torch.save(payload, path)
    assert load_checkpoint(path).ppo.max_grad_norm is None
    payload["ppo"] = {**payload["ppo"], "lr": None}
    torch.save(payload, path)
    with pytest.raises(ValueError, match=r"ppo\.lr is malformed"):
        load_checkpoint(path)


def test_loading_keeps_this_runs_adam_implementation(trained: TrainResult) -> None:
    """A checkpoint saved by another Adam implementation (the foreach Adam of earlier
    releases) loads its moments, not its implementation: the run stays fused and steps."""
    ckpt = trained.checkpoint()
    saved = ckpt.ppo_optim_state
    assert saved is not None
    for group in saved["param_groups"]:
        group.update(foreach=True, fused=None)
    learner = build_learner(ckpt.observation_space, ckpt.action_space, PPOConfig())
    learner.load(ckpt)
    groups = learner.ppo.optim.state_dict()["param_groups"]
    assert all(g["fused"] is True and g["foreach"] is None for g in groups)
    moments = learner.ppo.optim.state_dict()["state"]
    for key, entry in saved["state"].items():
        assert torch.equal(moments[key]["exp_avg"], entry["exp_avg"])
    x = torch.zeros(1, ckpt.obs_dim)
    before = [p.detach().clone() for p in learner.ppo.critic.parameters()]
    learner.ppo.optim.step(learner.ppo.critic.values(x).sum())
    assert any(not torch.equal(b, p) for b, p in
               zip(before, learner.ppo.critic.parameters(), strict=True))


def test_a_critic_of_its_own_size_trains_saves_and_loads(grid: SimpleNamespace,
                                                         tmp_path: Path) -> None:
    """PPOConfig.critic_hidden_sizes (NovelGym's critic is deeper than its actor): the critic
    is built, saved and checked with them, and a learner of other sizes refuses it."""
    ppo = PPOConfig(hidden_sizes=(16,), critic_hidden_sizes=[24, 8])
    assert ppo.critic_hidden_sizes == (24, 8) and ppo.critic_sizes == (24, 8)
    assert PPOConfig(hidden_sizes=(16,)).critic_sizes == (16,)
    with pytest.raises(ValueError, match="critic_hidden_sizes must name at least one layer"):
        PPOConfig(critic_hidden_sizes=())
    config = grid.fast_config(seed=1, step_budget=200, stop_on_convergence=False)
    result = train(grid.GridWorld, config, ppo, None)
    path = save_checkpoint(tmp_path / "p.pt", result)
    ckpt = load_checkpoint(path)
    assert ckpt.ppo == ppo
    assert [tuple(v.shape) for k, v in ckpt.critic_state.items() if k.endswith("weight")] == [
        (24, ckpt.obs_dim), (8, 24), (1, 8)]
    same = build_learner(ckpt.observation_space, ckpt.action_space, ppo)
    same.load(ckpt)
    other = build_learner(ckpt.observation_space, ckpt.action_space,
                          PPOConfig(hidden_sizes=(16,)))
    with pytest.raises(ValueError, match=r"critic hidden sizes \(24, 8\) differ from \(16,\)"):
        other.load(ckpt)
    payload = torch.load(path, weights_only=True)
    payload["ppo"] = {**payload["ppo"], "critic_hidden_sizes": [24, 0]}
    torch.save(payload, path)
    with pytest.raises(ValueError, match=r"ppo\.critic_hidden_sizes"):
        load_checkpoint(path)
    payload["ppo"] = {**payload["ppo"], "critic_hidden_sizes": "24"}
    torch.save(payload, path)
    with pytest.raises(ValueError, match=r"ppo\.critic_hidden_sizes is malformed"):
        load_checkpoint(path)
