"""The NovelGym paper's convergence test (appendix A), as a small pure class.

A learner has converged when
  1. the success rate is >= delta_G in each of the last eta epochs,
  2. the mean episode reward is >= delta_R in each of the last eta epochs, and
  3. the max success rate and the max mean reward over the last eta+nu epochs are not greater
     than those over the last eta epochs (performance is not below an earlier peak).
The paper's values: delta_G = 0.9, delta_R = 400, eta = nu = 5, epochs of 4800 steps.

Condition 3 with fewer than eta+nu epochs: by default it is checked over the epochs that exist
(so a learner can converge after eta epochs, rather than always paying nu more epochs);
`require_full_window=True` waits for the full eta+nu window instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nesyworld.learning.config import TrainConfig

__all__ = ["ConvergenceTest"]


@dataclass(frozen=True)
class ConvergenceTest:
    """Decide convergence from per-epoch evaluation curves (success rates, mean rewards)."""

    success_threshold: float = 0.9
    reward_threshold: float = 400.0
    eta: int = 5
    nu: int = 5
    require_full_window: bool = False

    def __post_init__(self) -> None:
        if self.eta <= 0 or self.nu < 0:
            raise ValueError("ConvergenceTest: eta must be positive and nu non-negative")

    @classmethod
    def from_config(cls, config: TrainConfig) -> ConvergenceTest:
        """The test a training run with `config` applies after each epoch."""
        return cls(
            success_threshold=config.success_threshold,
            reward_threshold=config.reward_threshold,
            eta=config.eta,
            nu=config.nu,
            require_full_window=config.require_full_window,
        )

    def check(
        self, success_rates: Sequence[float], mean_rewards: Sequence[float]
    ) -> tuple[bool, str]:
        """(converged, reason): the reason names the first condition that fails, for logs."""
        if len(success_rates) != len(mean_rewards):
            raise ValueError("success_rates and mean_rewards must have one entry per epoch")
        n = len(success_rates)
        needed = self.eta + self.nu if self.require_full_window else self.eta
        if n < needed:
            return False, f"only {n} epochs, need {needed}"
        recent_s = list(success_rates[-self.eta :])
        recent_r = list(mean_rewards[-self.eta :])
        if min(recent_s) < self.success_threshold:
            return (
                False,
                f"success {min(recent_s):.3f} < {self.success_threshold} in last {self.eta}",
            )
        if min(recent_r) < self.reward_threshold:
            return False, f"reward {min(recent_r):.1f} < {self.reward_threshold} in last {self.eta}"
        window = self.eta + self.nu
        if max(success_rates[-window:]) > max(recent_s):
            return False, f"success peaked before the last {self.eta} epochs"
        if max(mean_rewards[-window:]) > max(recent_r):
            return False, f"reward peaked before the last {self.eta} epochs"
        return True, "converged"

    def __call__(self, success_rates: Sequence[float], mean_rewards: Sequence[float]) -> bool:
        return self.check(success_rates, mean_rewards)[0]
