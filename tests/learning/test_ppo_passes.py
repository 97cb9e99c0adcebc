"""PPO's own passes (learning/algorithms/ppo_passes.py) are tianshou's update, term for term:
the same minibatches from the same random draws, and the same weights after an update for
every loss variant (plain, dual clip, value clip, no advantage normalisation); and with the
critic's half of each step on a second thread, the same weights bit for bit."""

from __future__ import annotations

import contextlib
import functools
import threading

import gymnasium as gym
import numpy as np
import pytest
import torch
from tianshou.algorithm import PPO
from tianshou.data import Batch

from nesyworld.learning import PPOConfig
from nesyworld.learning.algorithms import ppo_passes
from nesyworld.learning.algorithms.ppo import build_ppo, update_thread
from nesyworld.learning.algorithms.ppo_passes import minibatch_indices

ROWS, OBS, ACTIONS = 50, 6, 4


@pytest.mark.parametrize(("length", "size"), [(50, 8), (48, 8), (7, 8), (50, 50), (50, -1)])
def test_minibatches_are_tianshous_split(length: int, size: int) -> None:
    batch = Batch(i=np.arange(length))
    np.random.seed(3)
    expected = [np.asarray(b.i) for b in batch.split(size, shuffle=True, merge_last=True)]
    np.random.seed(3)
    actual = list(minibatch_indices(length, size))
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        np.testing.assert_array_equal(a, e)
    assert sorted(np.concatenate(actual).tolist()) == list(range(length))


def _chunk(seed: int) -> Batch:
    rng = np.random.default_rng(seed)
    mask = rng.random((ROWS, ACTIONS)) < 0.7
    mask[0] = False  # a row with no legal action: left unmasked, as apply_action_mask does
    mask[1:, 0] = True
    act = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
    return Batch(obs=Batch(obs=torch.as_tensor(rng.random((ROWS, OBS)), dtype=torch.float32),
                           mask=torch.as_tensor(mask)),
                 act=torch.as_tensor(act), adv=torch.as_tensor(rng.normal(size=ROWS)),
                 logp_old=torch.as_tensor(-rng.random(ROWS) * 2, dtype=torch.float32),
                 returns=torch.as_tensor(rng.normal(size=ROWS), dtype=torch.float32),
                 v_s=torch.as_tensor(rng.normal(size=ROWS), dtype=torch.float32), info=Batch())


@pytest.mark.parametrize("config", [
    PPOConfig(batch_size=16),
    PPOConfig(batch_size=16, dual_clip=3.0),
    PPOConfig(batch_size=16, value_clip=True),
    PPOConfig(batch_size=64, advantage_normalization=False),
], ids=["plain", "dual-clip", "value-clip", "no-adv-norm"])
def test_the_passes_give_tianshous_weights_and_stats(config: PPOConfig) -> None:
    runs = []
    for ours in (True, False):
        torch.manual_seed(0)
        algo = build_ppo(OBS, gym.spaces.Discrete(ACTIONS), config)
        if not ours:
            algo._update_with_batch = functools.partial(  # type: ignore[method-assign]
                PPO._update_with_batch, algo)
        np.random.seed(1)
        stats = algo._update_with_batch(_chunk(0), config.batch_size, 3)
        runs.append((list(algo.parameters()), stats))
    (ours_params, ours_stats), (their_params, their_stats) = runs
    for p, q in zip(ours_params, their_params, strict=True):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    torch.manual_seed(0)
    fresh = build_ppo(OBS, gym.spaces.Discrete(ACTIONS), config)
    changed = any(not torch.equal(p, q) for p, q in zip(fresh.parameters(), ours_params,
                                                        strict=True))
    assert changed
    assert ours_stats.gradient_steps == their_stats.gradient_steps > 0
    for name in ("loss", "actor_loss", "vf_loss", "ent_loss"):
        assert getattr(ours_stats, name).mean == pytest.approx(
            getattr(their_stats, name).mean, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("config", [
    PPOConfig(batch_size=16),
    PPOConfig(batch_size=16, dual_clip=3.0),
    PPOConfig(batch_size=16, value_clip=True, max_grad_norm=0.05),
    PPOConfig(batch_size=64, advantage_normalization=False, max_grad_norm=None),
], ids=["plain", "dual-clip", "value-clip-tight-grad-clip", "no-adv-norm-no-grad-clip"])
def test_the_update_thread_gives_the_same_weights_and_stats_bit_for_bit(
        config: PPOConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    split_steps = []
    original = ppo_passes._split_step
    monkeypatch.setattr(ppo_passes, "_split_step",
                        lambda *args: split_steps.append(1) or original(*args))
    runs = []
    for threaded in (False, True):
        torch.manual_seed(0)
        algo = build_ppo(OBS, gym.spaces.Discrete(ACTIONS), config)
        np.random.seed(1)
        with update_thread(algo) if threaded else contextlib.nullcontext():
            assert (algo.update_pool is not None) == threaded
            stats = [algo._update_with_batch(_chunk(seed), config.batch_size, 3)
                     for seed in (0, 1)]
        assert algo.update_pool is None
        optimizer = algo.torch_optimizer
        assert optimizer is not None
        runs.append(([p.detach().clone() for p in algo.parameters()],
                     [v.clone() for s in optimizer.state.values() for v in s.values()],
                     stats))
    (plain_params, plain_moments, plain_stats), (split_params, split_moments, split_stats) = runs
    # every step of the threaded update was split, none of the plain one's
    assert len(split_steps) == sum(s.gradient_steps for s in split_stats) > 0
    for p, q in zip(plain_params, split_params, strict=True):
        assert torch.equal(p, q)
    for p, q in zip(plain_moments, split_moments, strict=True):
        assert torch.equal(p, q)
    for plain, split in zip(plain_stats, split_stats, strict=True):
        assert split.gradient_steps == plain.gradient_steps > 0
        for name in ("loss", "actor_loss", "vf_loss", "ent_loss"):
            assert getattr(split, name).mean == getattr(plain, name).mean


def test_an_error_in_the_update_thread_reaches_the_caller_and_the_thread_ends() -> None:
    config = PPOConfig(batch_size=16)
    algo = build_ppo(OBS, gym.spaces.Discrete(ACTIONS), config)

    def broken(x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("critic failed")

    algo.critic.values = broken  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="critic failed"), update_thread(algo):
        algo._update_with_batch(_chunk(0), config.batch_size, 1)
    assert algo.update_pool is None
    assert not [t for t in threading.enumerate() if t.name.startswith("nesyworld-update")]


def test_the_update_thread_warns_where_it_cannot_split_the_steps() -> None:
    algo = build_ppo(OBS, gym.spaces.Discrete(ACTIONS), PPOConfig(batch_size=16))
    algo.torch_optimizer = None  # as for a PPO whose optimiser fused_adam did not make
    with pytest.warns(RuntimeWarning, match="not made by fused_adam"), update_thread(algo):
        assert algo.update_pool is not None


@pytest.mark.parametrize("threaded", [False, True], ids=["one-thread", "update-thread"])
def test_the_critic_warmup_moves_only_the_critic_for_its_env_steps(threaded: bool) -> None:
    config = PPOConfig(batch_size=16, critic_warmup_steps=ROWS + 1)  # two chunks of ROWS
    algo = build_ppo(OBS, gym.spaces.Discrete(ACTIONS), config)

    def weights(net: torch.nn.Module) -> list[torch.Tensor]:
        return [p.detach().clone() for p in net.parameters()]

    actor, critic = weights(algo.policy.actor), weights(algo.critic)
    with update_thread(algo) if threaded else contextlib.nullcontext():
        for seed in (0, 1):
            stats = algo._update_with_batch(_chunk(seed), config.batch_size, 2)
            assert stats.gradient_steps > 0 and np.isfinite(stats.actor_loss.mean)
            assert all(torch.equal(p, q) for p, q in zip(
                actor, weights(algo.policy.actor), strict=True))
            moved = weights(algo.critic)
            assert any(not torch.equal(p, q) for p, q in zip(critic, moved, strict=True))
            critic = moved
        algo._update_with_batch(_chunk(2), config.batch_size, 2)  # the warm-up is spent
    assert any(not torch.equal(p, q) for p, q in zip(
        actor, weights(algo.policy.actor), strict=True))
    assert algo.steps_trained == 3 * ROWS


def test_the_critic_warmup_is_checked() -> None:
    with pytest.raises(ValueError, match="critic_warmup_steps must be 0 or more"):
        PPOConfig(critic_warmup_steps=-1)
    with pytest.raises(ValueError, match="needs recompute_advantage=False"):
        PPOConfig(critic_warmup_steps=10, recompute_advantage=True)
