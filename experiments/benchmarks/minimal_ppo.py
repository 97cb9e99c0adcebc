"""A minimal masked PPO over `NesyVectorEnv`: the speed reference for the real training path.

Plain torch and numpy, no tianshou, nothing but what PPO needs: sample from masked logits,
store (T, N) arrays, GAE, then a few passes of clipped-surrogate minibatch steps. The same
networks as `nesyworld.learning` (256-64 MLPs, one Adam over actor and critic, fused as the
real path's: learning/algorithms/ppo.py `fused_adam`) and the same losses; no evaluation, no
convergence test, no statistics. What the real path spends beyond this, at the same env,
copies and minibatch settings, is its overhead
(experiments/benchmarks/training.py puts the two side by side).

Copies whose episode ended are restarted at once by a partial reset, as the real path does
(learning/training/vector_adapter.py), so every step counted is a transition trained on.
Left to Gymnasium's NEXT_STEP autoreset, the step after an episode's end only resets the
copy: it was counted as an env step, its action ignored and its row dropped from the update,
which made this reference look faster than the PPO it stands for (on 64 copies for 40,960
steps at 2048 x 4, 30% of the counted steps were such resets: PPO soon learns to give up).

    python -m nesyworld.experiments.benchmarks.minimal_ppo --envs 64 --steps 32768
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from nesyworld.world.envs.vector_env import NesyVectorEnv


@dataclass(frozen=True)
class MinimalPPO:
    envs: int = 64
    rollout: int = 64  # steps per env between updates
    passes: int = 4
    minibatch: int = 2048
    lr: float = 3e-4
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    ent: float = 0.01
    vf: float = 0.5
    reward_scale: float = 0.01


def _mlp(n_in: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, 256), nn.ReLU(), nn.Linear(256, 64), nn.ReLU(),
                         nn.Linear(64, n_out))


def run(cfg: MinimalPPO, steps: int, seed: int = 0) -> float:
    """Train for `steps` env steps; return env steps per second (updates included)."""
    torch.manual_seed(seed)
    env = NesyVectorEnv(cfg.envs)
    obs, info = env.reset(seed=seed)
    n, a = cfg.envs, int(env.single_action_space.n)
    actor, critic = _mlp(obs.shape[1], a), _mlp(obs.shape[1], 1)
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=cfg.lr, fused=True)
    t_len = cfg.rollout
    start, taken = time.perf_counter(), 0
    while taken < steps:
        o = np.empty((t_len, n, obs.shape[1]), np.float32)
        m = np.empty((t_len, n, a), bool)
        act, rew, done = (np.empty((t_len, n), np.int64), np.empty((t_len, n), np.float32),
                          np.empty((t_len, n), bool))
        for t in range(t_len):
            o[t], m[t] = obs, info["action_mask"]
            with torch.no_grad():
                logits = actor(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(m[t]), -1e8)
                act[t] = torch.distributions.Categorical(logits=logits).sample().numpy()
            obs, r, term, trunc, info = env.step(act[t])
            rew[t], done[t] = r * cfg.reward_scale, term | trunc
            if done[t].any():  # restart the ended copies now, so every step is a transition
                obs, info = env.reset(options={"reset_mask": done[t]})
        taken += t_len * n
        x = torch.from_numpy(o.reshape(t_len * n, -1))
        mt = torch.from_numpy(m.reshape(t_len * n, a))
        at = torch.from_numpy(act.reshape(-1))
        with torch.no_grad():
            v = critic(x).reshape(t_len, n).numpy()
            v_last = critic(torch.from_numpy(obs)).flatten().numpy()
            logp_old = torch.distributions.Categorical(
                logits=actor(x).masked_fill(~mt, -1e8)).log_prob(at)
        adv, gae = np.zeros((t_len, n), np.float32), np.zeros(n, np.float32)
        for t in reversed(range(t_len)):
            v_next = v_last if t == t_len - 1 else v[t + 1]
            delta = rew[t] + cfg.gamma * v_next * ~done[t] - v[t]
            gae = delta + cfg.gamma * cfg.lam * ~done[t] * gae
            adv[t] = gae
        ret = torch.from_numpy((adv + v).reshape(-1))
        advt = torch.from_numpy(adv.reshape(-1))
        for _ in range(cfg.passes):
            for idx in torch.randperm(t_len * n).split(cfg.minibatch):
                logits = actor(x[idx]).masked_fill(~mt[idx], -1e8)
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(at[idx]) - logp_old[idx]).exp()
                ad = (advt[idx] - advt[idx].mean()) / (advt[idx].std() + 1e-8)
                pg = -torch.min(ratio * ad, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * ad).mean()
                vf = (ret[idx] - critic(x[idx]).flatten()).pow(2).mean()
                loss = pg + cfg.vf * vf - cfg.ent * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 0.5)
                opt.step()
    env.close()
    return taken / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=32768)
    parser.add_argument("--minibatch", type=int, default=2048)
    parser.add_argument("--passes", type=int, default=4)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = MinimalPPO(envs=args.envs, minibatch=args.minibatch, passes=args.passes)
    print(f"{run(cfg, args.steps):,.0f} env steps/s")


if __name__ == "__main__":
    main()
