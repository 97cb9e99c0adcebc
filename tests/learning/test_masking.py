"""Action masking: masked actions get probability exactly 0 and are never sampled."""

from __future__ import annotations

from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
import torch
from tianshou.data import Batch
from tianshou.env import DummyVectorEnv

from nesyworld.learning import (
    ActionMaskObservation,
    PPOConfig,
    apply_action_mask,
    build_learner,
    mask_from_info,
)
from nesyworld.learning.algorithms.masking import illegal_action_rows, illegal_actions
from nesyworld.learning.algorithms.networks import MaskedActor

MASK = np.array([True, False, True, False, False])


def test_apply_action_mask_gives_zero_probability() -> None:
    logits = torch.tensor([[5.0, 50.0, -3.0, 100.0, 0.0]])
    probs = torch.softmax(apply_action_mask(logits, torch.tensor(MASK)[None]), dim=-1)[0]
    assert probs[~torch.tensor(MASK)].sum().item() == 0.0
    assert probs[torch.tensor(MASK)].sum().item() == pytest.approx(1.0)


def test_all_masked_row_stays_finite() -> None:
    logits = torch.tensor([[1.0, 2.0, 3.0]])
    out = apply_action_mask(logits, torch.zeros(1, 3, dtype=torch.bool))
    assert torch.equal(out, logits)


def test_masked_actions_never_sampled_by_the_tianshou_policy() -> None:
    """Sample 20k actions through tianshou's DiscreteActorPolicy (as the Collector does)."""
    torch.manual_seed(0)
    learner = build_learner(
        gym.spaces.Box(-1, 1, (4,), np.float32),
        gym.spaces.Discrete(5),
        PPOConfig(hidden_sizes=(8,)),
    )
    # Bias the raw logits hard toward the masked actions: masking must still win.
    last = [m for m in learner.ppo.policy.actor.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.bias.copy_(torch.tensor([0.0, 30.0, 0.0, 30.0, 30.0]))
    n = 20_000
    obs = Batch(
        obs=np.random.default_rng(0).normal(size=(n, 4)).astype(np.float32),
        mask=np.tile(MASK, (n, 1)),
    )
    learner.ppo.policy.is_within_training_step = True  # sample, as during training collection
    out = learner.ppo.policy(Batch(obs=obs, info=Batch()))
    acts = out.act.numpy()
    assert set(np.unique(acts)) <= {0, 2}
    assert out.dist.probs[:, ~MASK].max().item() == 0.0
    # log-probs of legal actions stay finite (the PPO ratio needs them)
    assert torch.isfinite(out.dist.log_prob(torch.as_tensor(acts))).all()


def test_policy_handle_never_samples_masked(grid: SimpleNamespace) -> None:
    learner = build_learner(grid.GridWorld().observation_space, gym.spaces.Discrete(5), PPOConfig())
    policy = learner.policy(greedy=False, seed=0)
    env = grid.GridWorld()
    obs, info = env.reset()
    probs = policy.action_probabilities(obs, info["action_mask"])
    assert np.all(probs[~info["action_mask"]] == 0.0)
    sampled = {policy.act(obs, info["action_mask"]) for _ in range(2000)}
    assert sampled <= set(np.flatnonzero(info["action_mask"]).tolist())
    assert grid.ILLEGAL_ACTION not in sampled


def test_wrapper_moves_mask_into_observation(grid: SimpleNamespace) -> None:
    env = ActionMaskObservation(grid.GridWorld(), success_key="success")
    obs, info = env.reset()
    assert set(obs) == {"obs", "mask"}
    assert obs["obs"].dtype == np.float32 and obs["obs"].shape == (25,)
    assert obs["mask"].tolist() == [0, 1, 0, 1, 0]  # at (0, 0): down and right only
    assert info == {"success": False}
    assert env.observation_space.contains(obs)
    obs, _, _, _, info = env.step(1)
    assert obs["mask"].tolist() == [1, 0, 0, 1, 0]  # (1, 0): wall below, edge to the left
    assert set(info) == {"success"}


def test_wrapper_through_vector_env_gives_batch_with_mask(grid: SimpleNamespace) -> None:
    venv = DummyVectorEnv([lambda: ActionMaskObservation(grid.GridWorld())] * 2)
    obs, _ = venv.reset()
    batch = Batch(obs=obs)
    assert batch.obs.obs.shape == (2, 25) and batch.obs.mask.shape == (2, 5)
    venv.close()


def test_mask_from_info() -> None:
    assert mask_from_info({}, 3).tolist() == [True, True, True]
    assert mask_from_info({"action_mask": np.array([1, 0, 1], np.int8)}, 3).tolist() == [
        True,
        False,
        True,
    ]
    with pytest.raises(ValueError):
        mask_from_info({"action_mask": [1, 0]}, 3)


def test_actor_accepts_plain_arrays_without_mask() -> None:
    actor = MaskedActor(4, 3, (8,))
    logits, _ = actor(np.zeros((2, 4), np.float32))
    assert logits.shape == (2, 3)


def test_an_action_prior_biases_the_first_samples_and_masks_still_win() -> None:
    actor = MaskedActor(4, 3, (8,), prior=(2.0, 0.0, 0.0))
    obs = {"obs": np.zeros((1, 4), np.float32), "mask": np.array([[True, True, True]])}
    logits, _ = actor(obs)
    probs = torch.softmax(logits, -1)[0]
    assert probs[0] > 0.7 and probs[1] > 0.05  # preferred, but nothing is ruled out
    masked = {"obs": obs["obs"], "mask": np.array([[False, True, True]])}
    assert torch.softmax(actor(masked)[0], -1)[0, 0] == 0
    with pytest.raises(ValueError, match="2 entries for 3 actions"):
        MaskedActor(4, 3, (8,), prior=(1.0, 0.0))


def test_illegal_action_rows_is_illegal_actions_on_arrays() -> None:
    rng = np.random.default_rng(0)
    mask = (rng.random((64, 7)) < 0.4).astype(np.int8)
    mask[:5] = 0  # rows with no legal action stay unmasked
    expected = illegal_actions(torch.from_numpy(mask), mask.shape).numpy()
    assert np.array_equal(illegal_action_rows(mask), expected)
    assert not illegal_action_rows(mask)[:5].any()
