"""MLP actor (with action masking), critic and ICM feature net, sized by the configs.

All three take the observation as the wrapper produces it: a tianshou Batch or dict with fields
`obs` (flat float vector) and, for the actor, `mask`. A plain array is also accepted (no mask),
so the networks stay usable on envs without masks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from tianshou.data import Batch
from tianshou.utils.net.common import MLP, AbstractDiscreteActor, ModuleWithVectorOutput
from torch import nn

from nesyworld.learning.algorithms.masking import MASKED_LOGIT, apply_action_mask

__all__ = ["ICMFeatureNet", "MaskedActor", "ValueCritic", "split_observation"]


def split_observation(
    obs: Any, device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(features, mask or None) as tensors from a Batch/dict observation or a plain array."""
    mask: Any = None
    if isinstance(obs, Batch):
        features, mask = obs.obs, obs.get("mask")
    elif isinstance(obs, dict):
        features, mask = obs["obs"], obs.get("mask")
    else:
        features = obs
    x = torch.as_tensor(np.asarray(features) if not torch.is_tensor(features) else features)
    x = x.to(device=device, dtype=torch.float32)
    if x.dim() == 1:
        x = x.unsqueeze(0)
    m = None
    if mask is not None:
        m = torch.as_tensor(np.asarray(mask) if not torch.is_tensor(mask) else mask)
        m = m.to(device=device).bool().reshape(x.shape[0], -1)
    return x, m


def _orthogonal_init(module: nn.Module, last_gain: float) -> None:
    """Orthogonal weights, zero biases, and a chosen gain on the last layer.

    Why: the standard PPO initialisation (Engstrom et al. 2020); a small last-layer gain on the
    actor starts the policy near uniform over the legal actions, which is what exploration of
    a fresh recovery subproblem needs.
    """
    linears = [m for m in module.modules() if isinstance(m, nn.Linear)]
    for i, layer in enumerate(linears):
        gain = last_gain if i == len(linears) - 1 else float(np.sqrt(2.0))
        nn.init.orthogonal_(layer.weight, gain=gain)
        nn.init.zeros_(layer.bias)


class MaskedActor(AbstractDiscreteActor):
    """obs -> logits over the actions, illegal actions set to MASKED_LOGIT.

    Used with tianshou's DiscreteActorPolicy (Categorical from logits), so masked actions get
    probability exactly 0 both when collecting and when PPO recomputes log-probs in the update.
    """

    def __init__(self, obs_dim: int, n_actions: int, hidden_sizes: Sequence[int],
                 prior: Sequence[float] = ()) -> None:
        super().__init__(n_actions)
        self.obs_dim = obs_dim
        self.n_actions = n_actions
        self.net = MLP(input_dim=obs_dim, output_dim=n_actions, hidden_sizes=hidden_sizes)
        _orthogonal_init(self.net, last_gain=0.01)
        if len(prior):
            if len(prior) != n_actions:
                raise ValueError(f"action_prior has {len(prior)} entries for {n_actions} "
                                 "actions")
            last = [m for m in self.net.modules() if isinstance(m, nn.Linear)][-1]
            with torch.no_grad():
                last.bias.copy_(torch.as_tensor(list(prior), dtype=last.bias.dtype))

    def get_preprocess_net(self) -> ModuleWithVectorOutput:
        return self.net

    def forward(
        self, obs: Any, state: Any = None, info: dict[str, Any] | None = None
    ) -> tuple[torch.Tensor, Any]:
        x, mask = split_observation(obs, device=next(self.parameters()).device)
        return apply_action_mask(self.net(x), mask), state

    def logits(self, x: torch.Tensor, illegal: torch.Tensor | None = None) -> torch.Tensor:
        """`forward` on (B, obs_dim) float32 rows already on the networks' device, with the
        `illegal` actions (masking.illegal_actions) set to MASKED_LOGIT. Why: the rollout and
        PPO's passes call the actor thousands of times a chunk on tensors they already hold;
        `forward`'s conversions and device look-ups were a tenth of those calls."""
        out = self.net.model(x)
        return out if illegal is None else out.masked_fill(illegal, MASKED_LOGIT)


class ValueCritic(ModuleWithVectorOutput):
    """obs -> V(s), ignoring the mask (the value of a state does not depend on its encoding of
    legality beyond what the features already say)."""

    def __init__(self, obs_dim: int, hidden_sizes: Sequence[int]) -> None:
        super().__init__(1)
        self.net = MLP(input_dim=obs_dim, output_dim=1, hidden_sizes=hidden_sizes)
        _orthogonal_init(self.net, last_gain=1.0)

    def forward(
        self, obs: Any, state: Any = None, info: dict[str, Any] | None = None
    ) -> torch.Tensor:
        x, _ = split_observation(obs, device=next(self.parameters()).device)
        return self.net(x)

    def values(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) values of (B, obs_dim) float32 rows already on the device (see
        `MaskedActor.logits`)."""
        return self.net.model(x).flatten()


class ICMFeatureNet(nn.Module):
    """phi(s): the ICM's learned state features (MLP over the flat obs, mask ignored)."""

    def __init__(self, obs_dim: int, hidden_sizes: Sequence[int], feature_dim: int) -> None:
        super().__init__()
        self.net = MLP(input_dim=obs_dim, output_dim=feature_dim, hidden_sizes=hidden_sizes)

    def forward(self, obs: Any) -> torch.Tensor:
        x, _ = split_observation(obs, device=next(self.parameters()).device)
        return self.net(x)
