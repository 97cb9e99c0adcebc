"""PPO's passes over one collected chunk, as plain tensor code.

Why not tianshou's loop (`PPO._update_with_batch`): per minibatch it indexes a nested `Batch`,
calls the policy through its `Batch` interface (which converts the observation to a tensor
and looks the networks' device up again) and builds a `Batch` around the distribution. On the
small networks of our tasks that bookkeeping was a tenth of the update, beside the least a
PPO does (experiments/benchmarks/minimal_ppo.py). Here the chunk's tensors are indexed
directly and the networks' own layers are called; the loss is tianshou's term for term
(clipped surrogate with optional dual clip, optional value clip, entropy bonus, per-minibatch
advantage normalisation), and the minibatches are the ones `Batch.split(shuffle=True,
merge_last=True)` draws from numpy's global random stream, so a seeded update gives the same
weights as tianshou's up to float rounding (tests/learning/test_fast_path.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch
from tianshou.algorithm.modelfree.a2c import A2CTrainingStats
from tianshou.data import Batch, SequenceSummaryStats

from nesyworld.learning.algorithms import categorical
from nesyworld.learning.algorithms.masking import illegal_actions
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic

__all__ = ["ChunkTensors", "LossSettings", "SplitStep", "minibatch_indices", "run_passes"]


@dataclass(frozen=True)
class LossSettings:
    """The PPO loss's coefficients, as tianshou's PPO holds them."""

    eps_clip: float
    dual_clip: float | None
    value_clip: bool
    advantage_normalization: bool
    vf_coef: float
    ent_coef: float
    eps: float = 1e-8
    train_actor: bool = True
    """False: the actor's terms are computed for the statistics but send no gradient, so
    a step moves the critic only (`PPOConfig.critic_warmup_steps`)."""


@dataclass(frozen=True)
class ChunkTensors:
    """What the passes read of a preprocessed chunk, one row per transition."""

    obs: torch.Tensor  # (B, D) float32
    illegal: torch.Tensor | None  # (B, A) bool: the actions masked out (None: no mask)
    act: torch.Tensor  # (B,)
    adv: torch.Tensor  # (B,)
    logp_old: torch.Tensor  # (B,)
    returns: torch.Tensor  # (B,)
    v_s: torch.Tensor  # (B,)

    @classmethod
    def of(cls, view: Batch) -> ChunkTensors:
        """From `minibatch_view`'s batch (ppo.py): observation fields already tensors."""
        obs = view.obs
        if isinstance(obs, Batch):
            x, mask = obs.obs, obs.get("mask")
        else:
            x, mask = obs, None
        illegal = None
        if mask is not None:  # once for the chunk, not per minibatch
            illegal = illegal_actions(mask, (len(x), -1))

        def flat(value: object) -> torch.Tensor:
            tensor = value if torch.is_tensor(value) else torch.as_tensor(np.asarray(value))
            return tensor.flatten()

        return cls(x, illegal, flat(view.act), flat(view.adv), flat(view.logp_old),
                   flat(view.returns), flat(view.v_s))


def minibatch_indices(length: int, size: int | None) -> Iterator[np.ndarray]:
    """The row indices of tianshou's `Batch.split(size, shuffle=True, merge_last=True)`,
    drawn from numpy's global stream as it draws them: a last piece shorter than `size`
    joins the one before it."""
    size = length if size is None or size <= 0 else size
    order = np.random.permutation(length)
    merge_last = length % size > 0
    for start in range(0, length, size):
        if merge_last and start + 2 * size >= length:
            yield order[start:]
            return
        yield order[start:start + size]


def _clip_loss(actor: MaskedActor, chunk: ChunkTensors, rows: torch.Tensor, x: torch.Tensor,
               settings: LossSettings) -> tuple[torch.Tensor, torch.Tensor]:
    """(clipped surrogate loss, log-probabilities) of one minibatch, as tianshou's PPO."""
    illegal = None if chunk.illegal is None else chunk.illegal[rows]
    log_probs = categorical.normalize(actor.logits(x, illegal))
    adv = chunk.adv[rows]
    if settings.advantage_normalization:
        adv = (adv - adv.mean()) / (adv.std() + settings.eps)
    ratio = (categorical.log_prob(log_probs, chunk.act[rows])
             - chunk.logp_old[rows]).exp().float()
    surr1 = ratio * adv
    surr2 = ratio.clamp(1.0 - settings.eps_clip, 1.0 + settings.eps_clip) * adv
    if settings.dual_clip:
        clip1 = torch.min(surr1, surr2)
        clip2 = torch.max(clip1, settings.dual_clip * adv)
        return -torch.where(adv < 0, clip2, clip1).mean(), log_probs
    return -torch.min(surr1, surr2).mean(), log_probs


def _value_loss(critic: ValueCritic, chunk: ChunkTensors, rows: torch.Tensor, x: torch.Tensor,
                settings: LossSettings) -> torch.Tensor:
    """The value loss of one minibatch, as tianshou's PPO."""
    value = critic.values(x)
    returns = chunk.returns[rows]
    if settings.value_clip:
        v_s = chunk.v_s[rows]
        v_clip = v_s + (value - v_s).clamp(-settings.eps_clip, settings.eps_clip)
        return torch.max((returns - value).pow(2), (returns - v_clip).pow(2)).mean()
    return (returns - value).pow(2).mean()


def _loss(actor: MaskedActor, critic: ValueCritic, chunk: ChunkTensors, rows: torch.Tensor,
          settings: LossSettings) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                                           torch.Tensor]:
    """(loss, clip loss, value loss, entropy) of one minibatch, as tianshou's PPO."""
    x = chunk.obs[rows]
    with _actor_grad(settings):
        clip_loss, log_probs = _clip_loss(actor, chunk, rows, x, settings)
        entropy = categorical.entropy(log_probs).mean()
    vf_loss = _value_loss(critic, chunk, rows, x, settings)
    loss = clip_loss + settings.vf_coef * vf_loss - settings.ent_coef * entropy
    return loss, clip_loss, vf_loss, entropy


def _actor_grad(settings: LossSettings) -> torch.set_grad_enabled:
    """Where the actor's terms are computed: with gradients unless the settings freeze it."""
    return torch.set_grad_enabled(settings.train_actor and torch.is_grad_enabled())


@dataclass(frozen=True)
class SplitStep:
    """A gradient step split across two threads: the critic's half runs on `pool`'s thread
    while the actor's runs on the caller's, and the step then does itself what tianshou's
    `Optimizer.step` would: zero, clip and step `optimizer`.

    Why: the actor and the critic share no parameter, so the critic's forward and backward
    can run while the actor's do. The gradients are the ones the joint loss gives, bit for
    bit (each network's terms reach it with the same factors, in the same order), and so are
    the weights (tests/learning/test_ppo_passes.py). Worth it only on a free core."""

    pool: ThreadPoolExecutor
    optimizer: torch.optim.Optimizer
    max_grad_norm: float | None

    @property
    def parameters(self) -> list[torch.Tensor]:
        """Every parameter the optimizer steps, in its order (the order tianshou clips)."""
        return [p for group in self.optimizer.param_groups for p in group["params"]]


def _critic_backward(critic: ValueCritic, chunk: ChunkTensors, rows: torch.Tensor,
                     x: torch.Tensor, settings: LossSettings) -> torch.Tensor:
    vf_loss = _value_loss(critic, chunk, rows, x, settings)
    (settings.vf_coef * vf_loss).backward()
    return vf_loss.detach()


def _split_step(actor: MaskedActor, critic: ValueCritic, chunk: ChunkTensors,
                rows: torch.Tensor, settings: LossSettings, split: SplitStep
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One gradient step with the critic's half on `split`'s thread; `_loss`'s four values."""
    x = chunk.obs[rows]
    split.optimizer.zero_grad()
    critic_half = split.pool.submit(_critic_backward, critic, chunk, rows, x, settings)
    try:
        with _actor_grad(settings):
            clip_loss, log_probs = _clip_loss(actor, chunk, rows, x, settings)
            entropy = categorical.entropy(log_probs).mean()
        if settings.train_actor:
            (clip_loss - settings.ent_coef * entropy).backward()
    finally:
        vf_loss = critic_half.result()
    if split.max_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(split.parameters, max_norm=split.max_grad_norm)
    split.optimizer.step()
    clip_loss, entropy = clip_loss.detach(), entropy.detach()
    loss = clip_loss + settings.vf_coef * vf_loss - settings.ent_coef * entropy
    return loss, clip_loss, vf_loss, entropy


def run_passes(actor: MaskedActor, critic: ValueCritic, step: Callable[[torch.Tensor], None],
               chunk: ChunkTensors,
               settings: LossSettings, batch_size: int | None, repeat: int,
               split: SplitStep | None = None) -> A2CTrainingStats:
    """`repeat` passes of minibatch gradient steps over `chunk`; `step(loss)` takes one
    optimiser step (tianshou's `Algorithm.Optimizer.step`: zero, backward, clip, step), or
    with `split` each step runs split across two threads."""
    kept: list[torch.Tensor] = []
    for _ in range(repeat):
        for idx in minibatch_indices(len(chunk.obs), batch_size):
            rows = torch.from_numpy(idx)
            if split is not None:
                loss, clip_loss, vf_loss, entropy = _split_step(actor, critic, chunk, rows,
                                                                settings, split)
            else:
                loss, clip_loss, vf_loss, entropy = _loss(actor, critic, chunk, rows, settings)
                step(loss)
            kept.append(torch.stack([loss, clip_loss, vf_loss, entropy]).detach())
    values = torch.stack(kept).tolist() if kept else []
    columns = list(zip(*values, strict=True)) if values else [(), (), (), ()]
    loss_s, clip_s, vf_s, ent_s = (SequenceSummaryStats.from_sequence(list(c))
                                   for c in columns)
    return A2CTrainingStats(loss=loss_s, actor_loss=clip_s, vf_loss=vf_s, ent_loss=ent_s,
                            gradient_steps=len(kept))
