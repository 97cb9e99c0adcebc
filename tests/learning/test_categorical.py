"""The categorical operations training calls are `torch.distributions.Categorical`'s, bit for
bit: the same log-probabilities, entropies, draws from the same seed, and gradients in the
order PPO's loss takes them, with masked actions at MASKED_LOGIT or -inf."""

from __future__ import annotations

import pytest
import torch

from nesyworld.learning.algorithms import categorical
from nesyworld.learning.algorithms.masking import MASKED_LOGIT


@pytest.mark.parametrize("masked", [MASKED_LOGIT, float("-inf")])
@pytest.mark.parametrize("rows", [1, 4, 129])
def test_same_values_and_draws_as_torch(masked: float, rows: int) -> None:
    generator = torch.Generator().manual_seed(rows)
    raw = torch.randn(rows, 38, generator=generator) * 3
    illegal = torch.rand(rows, 38, generator=generator) < 0.6
    illegal[:, 0] = False  # every row keeps a legal action
    with torch.no_grad():
        log_probs = categorical.normalize(raw.masked_fill(illegal, masked))
        dist = torch.distributions.Categorical(logits=raw.masked_fill(illegal, masked),
                                               validate_args=False)
        torch.manual_seed(7)
        theirs = dist.sample()
        torch.manual_seed(7)
        ours = categorical.sample(log_probs)
    assert torch.equal(ours, theirs)
    assert not illegal.gather(1, ours.unsqueeze(1)).any()  # masked actions never drawn
    assert torch.equal(categorical.log_prob(log_probs, ours), dist.log_prob(theirs))
    assert torch.equal(categorical.entropy(log_probs), dist.entropy())


@pytest.mark.parametrize("masked", [MASKED_LOGIT, float("-inf")])
def test_same_gradients_as_torch_in_the_loss_order(masked: float) -> None:
    """PPO's loss reads the log-probability of the taken actions, then the entropy: the
    gradient sums in the same order as through `Categorical`, so to the bit."""
    generator = torch.Generator().manual_seed(3)
    raw = torch.randn(128, 38, generator=generator) * 3
    illegal = torch.rand(128, 38, generator=generator) < 0.6
    illegal[:, 0] = False
    actions = torch.zeros(128, dtype=torch.int64)
    ours_in, theirs_in = (raw.clone().requires_grad_(True) for _ in range(2))
    log_probs = categorical.normalize(ours_in.masked_fill(illegal, masked))
    ours = categorical.log_prob(log_probs, actions).exp().mean() \
        - 0.01 * categorical.entropy(log_probs).mean()
    dist = torch.distributions.Categorical(logits=theirs_in.masked_fill(illegal, masked),
                                           validate_args=False)
    theirs = dist.log_prob(actions).exp().mean() - 0.01 * dist.entropy().mean()
    assert torch.equal(ours, theirs)
    ours.backward()
    theirs.backward()
    assert ours_in.grad is not None and theirs_in.grad is not None
    assert torch.isfinite(ours_in.grad).all()
    assert torch.equal(ours_in.grad, theirs_in.grad)
