"""The categorical operations training calls are `torch.distributions.Categorical`'s, bit for
bit: the same log-probabilities, entropies, draws from the same seed, and gradients in the
order PPO's loss takes them, with masked actions at MASKED_LOGIT or -inf."""

from __future__ import annotations

import numpy as np
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
    assert np.array_equal(categorical.mode(log_probs), dist.mode.numpy())
    torch.manual_seed(7)
    drawn = categorical.draw(log_probs)
    assert drawn.dtype == np.int64
    assert np.array_equal(drawn, theirs.numpy())


@pytest.mark.parametrize("rows", [1, 4, 16])
def test_draw_gives_torch_multinomial_draws_over_many_steps(rows: int) -> None:
    """`draw` is `sample` on arrays: over 500 steps of a rollout's shape, every action is the
    one torch draws from the same stream, and the stream ends where torch's ends."""
    generator = torch.Generator().manual_seed(rows)
    for _ in range(500):
        raw = torch.randn(rows, 38, generator=generator) * torch.rand(1, generator=generator) * 8
        illegal = torch.rand(rows, 38, generator=generator) < 0.7
        illegal[:, int(torch.randint(38, (1,), generator=generator))] = False
        log_probs = categorical.normalize(raw.masked_fill(illegal, MASKED_LOGIT))
        state = torch.get_rng_state()
        ours = categorical.draw(log_probs)
        after_ours = torch.get_rng_state()
        torch.set_rng_state(state)
        theirs = categorical.sample(log_probs)
        assert np.array_equal(ours, theirs.numpy())
        assert torch.equal(after_ours, torch.get_rng_state())
        assert not illegal.numpy()[np.arange(rows), ours].any()


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


def test_the_mode_is_the_first_of_equal_probabilities_as_torchs() -> None:
    """Equal logits, and logits apart by less than their probabilities can tell: the mode is
    the argmax of the probabilities, the first of equal ones, as `Categorical.mode`."""
    raw = torch.tensor([[0.0, 1.0, 1.0, -2.0],
                        [3.0, 3.0 + 1e-7, 3.0, 3.0],
                        [MASKED_LOGIT, 0.5, MASKED_LOGIT, 0.5]])
    log_probs = categorical.normalize(raw)
    dist = torch.distributions.Categorical(logits=raw, validate_args=False)
    assert np.array_equal(categorical.mode(log_probs), dist.mode.numpy())
    assert categorical.mode(log_probs).tolist()[0] == 1 and categorical.mode(log_probs)[2] == 1
