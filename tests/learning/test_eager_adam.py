"""EagerAdam is torch's Adam, bit for bit, without importing torch's compiler."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import torch

from nesyworld.learning.algorithms.eager_adam import EAGER_SUPPORTED, EagerAdam


def _nets() -> list[torch.nn.Module]:
    torch.manual_seed(0)
    nets = [torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3))
            for _ in range(3)]
    for net in nets[1:]:
        net.load_state_dict(nets[0].state_dict())
    return nets


def _train(net: torch.nn.Module, opt: torch.optim.Optimizer, steps: int) -> None:
    x = torch.randn(16, 5, generator=torch.Generator().manual_seed(1))
    for _ in range(steps):
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()


def test_the_pinned_torch_is_supported() -> None:
    assert EAGER_SUPPORTED  # torch==2.13.0 is pinned: a new release must be checked here


def test_same_weights_and_state_as_torch_adam_through_a_reload() -> None:
    plain_net, eager_net, reloaded_net = _nets()
    plain = torch.optim.Adam(plain_net.parameters(), lr=1e-2, foreach=True)
    eager = EagerAdam(eager_net.parameters(), lr=1e-2, foreach=True)
    _train(plain_net, plain, 12)
    _train(eager_net, eager, 7)
    # a reload mid-run carries the moments over exactly
    reloaded_net.load_state_dict(eager_net.state_dict())
    reloaded = EagerAdam(reloaded_net.parameters(), lr=1e-2, foreach=True)
    reloaded.load_state_dict(eager.state_dict())
    _train(reloaded_net, reloaded, 5)
    for p, q in zip(plain_net.parameters(), reloaded_net.parameters(), strict=True):
        assert torch.equal(p, q)
    plain_state, reloaded_state = plain.state_dict()["state"], reloaded.state_dict()["state"]
    assert plain_state.keys() == reloaded_state.keys()
    for k in plain_state:
        for name in ("exp_avg", "exp_avg_sq", "step"):
            assert torch.equal(plain_state[k][name], reloaded_state[k][name])


def test_step_restores_the_grad_mode() -> None:
    (net, *_) = _nets()
    opt = EagerAdam(net.parameters(), lr=1e-2)
    net(torch.randn(2, 5)).sum().backward()
    with torch.enable_grad():
        opt.step()
        assert torch.is_grad_enabled()
    with torch.no_grad():
        opt.step()
        assert not torch.is_grad_enabled()


def test_training_never_imports_torch_compiler() -> None:
    """A whole PPO+ICM run, evaluation included, in a fresh process."""
    code = textwrap.dedent("""
        import sys
        import gymnasium as gym
        from nesyworld.learning import ICMConfig, PPOConfig, TrainConfig, train
        config = TrainConfig(step_budget=256, epoch_length=128, collect_chunk=64, num_envs=2,
                             vector_env="dummy", eval_episodes=2, max_episode_steps=50)
        train(lambda: gym.make("CartPole-v1"), config, PPOConfig(), ICMConfig())
        print("torch._dynamo" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False"
