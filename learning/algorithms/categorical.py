"""The categorical distribution over actions as the four operations training calls.

Why not `torch.distributions.Categorical`: the rollout builds one per env step and PPO one per
minibatch, and each construction checks shapes, broadcasts and wraps lazily computed
properties in Python. On the recovery's 4 copies that bookkeeping cost more than the
actor's forward pass. These functions run the operations `Categorical(logits=...)` runs, in
its order, so they give the same values, the same draws from the same random stream, and
the same gradients in the order PPO's loss takes them, bit for bit
(tests/learning/test_categorical.py).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["draw", "entropy", "log_prob", "mode", "normalize", "sample"]


def normalize(logits: torch.Tensor) -> torch.Tensor:
    """Log-probabilities from (B, A) logits: `Categorical.logits`."""
    return logits - logits.logsumexp(dim=-1, keepdim=True)


def log_prob(log_probs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """(B,) log-probability of each row's action: `Categorical.log_prob`, broadcast as it
    broadcasts (which orders the gradient's sums as its graph does)."""
    index, table = torch.broadcast_tensors(actions.long().unsqueeze(-1), log_probs)
    return table.gather(-1, index[..., :1]).squeeze(-1)


def entropy(log_probs: torch.Tensor) -> torch.Tensor:
    """(B,) entropy of each row: `Categorical.entropy`, which clamps the log-probabilities
    of masked actions (-inf or a huge negative) so that 0 x log 0 counts as 0."""
    clamped = log_probs.clamp(min=torch.finfo(log_probs.dtype).min)
    return -(clamped * torch.softmax(log_probs, dim=-1)).sum(-1)


def sample(log_probs: torch.Tensor) -> torch.Tensor:
    """(B,) one action per row, drawn as `Categorical.sample` draws it (one multinomial call
    over the rows, from torch's global generator)."""
    probs = torch.softmax(log_probs, dim=-1)
    return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, True).T.reshape(
        probs.shape[:-1])


def draw(log_probs: torch.Tensor) -> np.ndarray:
    """`sample` of (B, A) log-probabilities on the CPU, as a (B,) int64 array: the same
    actions from the same random stream.

    Why: for one draw per row, `torch.multinomial` takes argmax(p / q) with q ~ Exp(1) from
    one `exponential_` call over the (B, A) rows (its fast path), and before that it checks
    the probabilities with two reductions and a synchronising `.item()`. On a rollout's few
    rows the checks and the reshapes cost more than the draw. Here torch draws the same noise
    from the same stream and numpy divides and takes the argmax; IEEE division and the first
    maximum give the same actions (tests/learning/test_categorical.py compares them with
    `torch.multinomial`). Masked actions have p = 0 and are never drawn while a row has a
    legal one."""
    probs = torch.softmax(log_probs, dim=-1)
    noise = torch.empty_like(probs).exponential_(1)
    return (probs.numpy() / noise.numpy()).argmax(-1)


def mode(log_probs: torch.Tensor) -> np.ndarray:
    """`Categorical.mode` of (B, A) log-probabilities on the CPU, as a (B,) int64 array: the
    argmax of the probabilities (not of the log-probabilities, which can order two nearly
    equal actions otherwise once rounded), the first of equal ones, as torch takes it."""
    return torch.softmax(log_probs, dim=-1).numpy().argmax(-1)
