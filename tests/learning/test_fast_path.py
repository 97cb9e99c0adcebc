"""The lean training path changes speed, not learning: `Rollout` gives the transitions tianshou's
Collector gives (same actions from the same random stream), its buffer gives the same update,
the tensor minibatch view gives bit-identical weights, the fused Adam torch's Adam up to float
rounding, and `LeanEvaluation` gives the Collector's evaluation episodes, env steps, random
draws and env state."""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from tianshou.algorithm import PPO
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.utils.torch_utils import policy_within_training_step

from nesyworld.learning import (
    ICMConfig,
    PPOConfig,
    TrainConfig,
    VectorEnvAdapter,
    build_learner,
    train,
)
from nesyworld.learning.algorithms.masking import ActionMaskObservation
from nesyworld.learning.algorithms.ppo import fused_adam
from nesyworld.learning.training.evaluation import (
    CollectorEvaluation,
    EvalResult,
    LeanEvaluation,
)
from nesyworld.learning.training.rollout import Rollout, step_envs

CHUNK, N_ENVS = 24, 3
FIELDS = ("act", "rew", "terminated", "truncated", "done")


def _envs(kind: str, grid: SimpleNamespace, native_chain: type) -> tuple[Any, gym.Space, Any]:
    """A training vector env of `kind` ("dummy": single envs, "native": a gymnasium
    VectorEnv behind the adapter), its raw observation space and action space."""
    if kind == "dummy":
        def make() -> gym.Env:
            return ActionMaskObservation(grid.GridWorld(max_steps=7))
        probe = grid.GridWorld()
        return DummyVectorEnv([make] * N_ENVS), probe.observation_space, probe.action_space
    adapter = VectorEnvAdapter(native_chain(N_ENVS), max_episode_steps=9)
    return adapter, adapter.raw_observation_space, adapter.single_action_space


def _collect_both(kind: str, grid: SimpleNamespace, native_chain: type,
                  icm: ICMConfig | None = None) -> tuple[list, list, list]:
    """Two chunks from the Collector and from Rollout, same seeds; and their learners."""
    out: dict[str, list] = {"collector": [], "rollout": []}
    learners = []
    for how in out:
        venv, obs_space, act_space = _envs(kind, grid, native_chain)
        torch.manual_seed(0)
        learner = build_learner(obs_space, act_space, PPOConfig(batch_size=8), icm, False)
        learners.append(learner)
        venv.seed(3)
        torch.manual_seed(1)
        policy = learner.ppo.policy
        if how == "collector":
            collector = Collector(learner.algorithm, venv, VectorReplayBuffer(CHUNK, N_ENVS))
            collector.reset()
            for _ in range(2):
                with policy_within_training_step(policy):
                    collector.collect(n_step=CHUNK)
                out[how].append(collector.buffer)
                collector.buffer = VectorReplayBuffer(CHUNK, N_ENVS)
        else:
            rollout = Rollout(step_envs(venv), policy.actor)
            for _ in range(2):
                with policy_within_training_step(policy):
                    out[how].append(rollout.collect(CHUNK)[0])
    return out["collector"], out["rollout"], learners


@pytest.mark.parametrize("kind", ["dummy", "native"])
def test_rollout_gives_the_collectors_transitions(
    kind: str, grid: SimpleNamespace, native_chain: type
) -> None:
    expected, actual, _ = _collect_both(kind, grid, native_chain)
    for old, new in zip(expected, actual, strict=True):
        a, _ = old.sample(0)
        b, _ = new.sample(0)
        for key in FIELDS:
            np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]), err_msg=key)
        for key in ("obs", "obs_next"):
            np.testing.assert_array_equal(a[key].obs, b[key].obs, err_msg=key)
            np.testing.assert_array_equal(a[key].mask, b[key].mask, err_msg=key)
        np.testing.assert_array_equal(old.unfinished_index(), new.unfinished_index())
    assert any(b.sample(0)[0].done.any() for b in actual)  # episodes ended inside chunks


@pytest.mark.parametrize("icm", [None, ICMConfig()])
def test_update_from_the_rollout_buffer_is_the_same(
    icm: ICMConfig | None, grid: SimpleNamespace, native_chain: type
) -> None:
    """The same weights after PPO(+ICM) learns from a chunk the Collector collected (with
    tianshou's own preprocessing and minibatch loop) and from the same chunk as Rollout
    collected it (log-probs kept from sampling, the critic over each observation once, the
    tensor minibatch view), up to float rounding: a row's value or log-prob computed in a
    batch of another size can differ in its last bit. One chunk: the trainer learns from
    each chunk right after collecting it, with the policy that sampled it."""
    expected, actual, (old, new) = _collect_both("dummy", grid, native_chain, icm)
    old.ppo._update_with_batch = functools.partial(PPO._update_with_batch, old.ppo)  # type: ignore[method-assign]
    before = [p.detach().clone() for p in new.algorithm.parameters()]
    for learner, buffer in ((old, expected[0]), (new, actual[0])):
        np.random.seed(0)
        with policy_within_training_step(learner.ppo.policy):
            learner.algorithm.update(buffer=buffer, batch_size=8, repeat=2)
    for p, q in zip(old.algorithm.parameters(), new.algorithm.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    assert any(not torch.equal(p, q) for p, q in zip(before, new.algorithm.parameters(),
                                                     strict=True))


def test_the_rollout_keeps_the_log_probs_and_next_values_ppo_would_compute(
    grid: SimpleNamespace, native_chain: type
) -> None:
    """What the rollout's buffer lets PPO skip is what PPO would have computed: each sampled
    action's log-prob under the policy that sampled it, and `obs_next` equal to the next
    row's `obs` everywhere but the rows `ends` names."""
    _, actual, (_, learner) = _collect_both("dummy", grid, native_chain)
    batch, _ = actual[0].sample(0)
    with torch.no_grad():
        logits, _ = learner.ppo.policy.actor(batch.obs)
        logp = torch.distributions.Categorical(logits=logits).log_prob(
            torch.as_tensor(batch.act))
    torch.testing.assert_close(torch.as_tensor(batch.policy.logp_old), logp)
    ends = actual[0].ends()
    follows = np.flatnonzero(~ends[:-1])
    np.testing.assert_array_equal(batch.obs_next.obs[follows], batch.obs.obs[follows + 1])
    assert ends[-1] and ends.sum() < len(ends)


def test_fused_adam_is_torch_adam_up_to_rounding() -> None:
    """The fused update computes Adam's arithmetic in another order: equal weights to float
    rounding after 20 steps, including columns whose gradient is exactly 0 throughout (the
    inputs that read 0, where the fused kernel is fastest)."""
    torch.manual_seed(0)
    nets = [torch.nn.Sequential(torch.nn.Linear(6, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3))
            for _ in range(2)]
    nets[1].load_state_dict(nets[0].state_dict())
    plain = torch.optim.Adam(nets[0].parameters(), lr=1e-2, foreach=False)
    fast, _ = fused_adam(1e-2).create_instances(nets[1])
    assert fast.state_dict()["param_groups"][0]["fused"] is True
    x = torch.randn(16, 6)
    x[:, :2] = 0.0
    for _ in range(20):
        for net, opt in ((nets[0], plain), (nets[1], fast)):
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()
    first = next(nets[1].parameters())
    assert first.grad is not None and not first.grad[:, :2].any()
    for p, q in zip(nets[0].parameters(), nets[1].parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-6, atol=1e-7)


def test_no_grad_batch_size_changes_no_value() -> None:
    """PPO's value and old log-prob calls in one piece (NO_GRAD_BATCH) or in tianshou's
    256-row pieces give the same rows, bit for bit."""
    from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic

    torch.manual_seed(0)
    critic, actor = ValueCritic(40, (256, 64)), MaskedActor(40, 7, (256, 64))
    x, mask = (torch.rand(1000, 40) < 0.2).float(), torch.rand(1000, 7) < 0.5
    with torch.no_grad():
        for net, arg in ((critic, x), (actor, {"obs": x, "mask": mask})):
            out = net(arg)
            whole = out[0] if isinstance(out, tuple) else out
            parts = []
            for i in range(0, 1000, 256):
                piece = arg[i:i + 256] if torch.is_tensor(arg) else {
                    k: v[i:i + 256] for k, v in arg.items()}
                got = net(piece)
                parts.append(got[0] if isinstance(got, tuple) else got)
            assert torch.equal(whole, torch.cat(parts))


def _evaluate_both(kind: str, greedy: bool, grid: SimpleNamespace, native_chain: type,
                   episodes: int) -> dict[str, Any]:
    """Three evaluations of `episodes` episodes by each path, same seeds; then each path's
    torch RNG state, the observations it left the envs reset to, and one more env step."""
    out: dict[str, Any] = {}
    for how in ("collector", "lean"):
        if kind == "dummy":  # CartPole: random starts, random-policy episodes of many lengths
            venv = DummyVectorEnv([lambda: ActionMaskObservation(gym.make("CartPole-v1"))] * N_ENVS)
            probe = gym.make("CartPole-v1")
            obs_space, act_space = probe.observation_space, probe.action_space
        else:
            venv, obs_space, act_space = _envs(kind, grid, native_chain)
        torch.manual_seed(0)
        learner = build_learner(obs_space, act_space, PPOConfig(), None, greedy)
        venv.seed(5)
        torch.manual_seed(2)
        policy = learner.ppo.policy
        ev = (CollectorEvaluation(venv, policy, 501) if how == "collector"
              else LeanEvaluation(venv, policy))
        results: list[EvalResult] = [ev.run(episodes) for _ in range(3)]
        if isinstance(ev, CollectorEvaluation):
            pre = ev.collector._pre_collect_obs_RO
            obs, mask = np.stack([o["obs"] for o in pre]), np.stack([o["mask"] for o in pre])
        else:
            obs, mask = ev._obs, ev._mask
        after = venv.step(mask.argmax(axis=1), None)
        out[how] = (results, torch.get_rng_state(), obs, mask, after)
        venv.close()
    return out


@pytest.mark.parametrize("greedy", [False, True])
@pytest.mark.parametrize("kind", ["dummy", "native"])
def test_lean_evaluation_is_the_collectors(
    kind: str, greedy: bool, grid: SimpleNamespace, native_chain: type
) -> None:
    """Same episodes (returns, lengths, successes, order), steps (idle ones included), torch
    random draws and env state afterwards, with surplus envs dropping out (5 episodes, 3 envs)."""
    both = _evaluate_both(kind, greedy, grid, native_chain, episodes=2 * N_ENVS - 1)
    (old, old_rng, old_obs, old_mask, old_after) = both["collector"]
    (new, new_rng, new_obs, new_mask, new_after) = both["lean"]
    for a, b in zip(old, new, strict=True):
        np.testing.assert_array_equal(a.returns, b.returns)
        np.testing.assert_array_equal(a.lens, b.lens)
        assert a.returns.dtype == b.returns.dtype and a.lens.dtype == b.lens.dtype
        assert a.successes == b.successes
        assert a.episodes == b.episodes == 2 * N_ENVS - 1
        assert (a.collected_steps, a.env_steps) == (b.collected_steps, b.env_steps)
    assert torch.equal(old_rng, new_rng)
    np.testing.assert_array_equal(old_obs, new_obs)
    np.testing.assert_array_equal(old_mask, new_mask)
    for x, y in zip(old_after[:4], new_after[:4], strict=True):
        if x.dtype == object:
            x, y = np.stack([o["obs"] for o in x]), np.stack([o["obs"] for o in y])
        np.testing.assert_array_equal(x, y)
    if not greedy:  # sampled actions: episodes of different lengths, so surplus envs drop out
        assert len({int(n) for r in new for n in r.lens}) > 1
        if kind == "native":
            assert sum(r.env_steps - r.collected_steps for r in new) > 0  # idle steps counted


def test_a_run_with_the_update_thread_is_the_same_run(
        grid: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    """`TrainConfig.update_thread` changes where parts of the update run (the critic's half
    of each step, ICM's step), not the run: the same curve and the same final weights,
    PPO+ICM, to the bit."""
    from nesyworld.learning.algorithms.icm import CuriosityWrapper

    early_icm_steps = []
    original = CuriosityWrapper._icm_losses
    monkeypatch.setattr(CuriosityWrapper, "_icm_losses",
                        lambda self, batch: early_icm_steps.append(1) or original(self, batch))
    results = []
    for threaded in (False, True):
        config = TrainConfig(step_budget=480, epoch_length=240, collect_chunk=96, num_envs=3,
                             vector_env="dummy", eval_episodes=2, max_episode_steps=20,
                             progress=False, stop_on_convergence=False, seed=5,
                             update_thread=threaded)
        results.append(train(grid.GridWorld, config, PPOConfig(batch_size=32), ICMConfig()))
    plain, split = results
    def curve(r: Any) -> list[tuple[Any, ...]]:
        return [(e.steps, e.success_rate, e.mean_reward, e.train_mean_reward,
                 sorted(e.losses.items())) for e in r.epochs]

    assert len(plain.epochs) == 2
    assert curve(plain) == curve(split)
    # ICM stepped early, on the thread, at every update of the threaded run and of no other:
    # three an epoch (chunks of 96, 96 and 48 steps make its 240), two epochs
    assert len(early_icm_steps) == 3 * 2
    plain_state, split_state = (r.learner.algorithm.state_dict() for r in results)
    assert plain_state.keys() == split_state.keys()
    for key, value in plain_state.items():
        if torch.is_tensor(value):
            assert torch.equal(value, split_state[key]), key
