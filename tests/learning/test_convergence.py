"""The paper's convergence test (appendix A) on hand-made curves."""

from __future__ import annotations

import pytest

from nesyworld.learning import ConvergenceTest, TrainConfig

TEST = ConvergenceTest(success_threshold=0.9, reward_threshold=400.0, eta=5, nu=5)


def test_converges_when_last_eta_epochs_pass_and_peak_is_recent() -> None:
    success = [0.0, 0.2, 0.5, 0.8, 0.9, 0.95, 1.0, 0.95, 1.0, 1.0]
    reward = [-50, 100, 300, 600, 800, 900, 990, 950, 990, 990]
    assert TEST(success, reward)
    assert TEST.check(success, reward) == (True, "converged")


def test_not_yet_when_one_recent_epoch_is_below_a_threshold() -> None:
    assert not TEST([1.0, 1.0, 0.85, 1.0, 1.0], [990] * 5)  # success 0.85 < 0.9
    assert not TEST([1.0] * 5, [990, 990, 390, 990, 990])  # reward 390 < 400
    converged, reason = TEST.check([1.0] * 5, [990, 990, 390, 990, 990])
    assert not converged and "reward" in reason


def test_not_converged_when_an_older_epoch_peaked_higher() -> None:
    # All of the last 5 pass the thresholds, but an older epoch had a higher reward / success.
    reward_regressed = [995, 900, 900, 900, 900, 900]
    assert not TEST([1.0] * 6, reward_regressed)
    success_regressed = [1.0, 0.95, 0.95, 0.95, 0.95, 0.95]
    assert not TEST(success_regressed, [900] * 6)
    # ...and once the old peak leaves the eta+nu window, the curve converges.
    assert TEST([1.0] * 11, [995] + [900] * 10)


def test_too_few_epochs() -> None:
    assert not TEST([1.0] * 4, [990] * 4)
    assert not TEST([], [])
    full = ConvergenceTest(eta=5, nu=5, require_full_window=True)
    assert not full([1.0] * 9, [990] * 9)
    assert full([1.0] * 10, [990] * 10)


def test_tiny_eta_nu() -> None:
    test = ConvergenceTest(success_threshold=0.5, reward_threshold=0.0, eta=1, nu=0)
    assert test([0.5], [0.0])
    assert not test([0.4], [10.0])


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        TEST([1.0, 1.0], [990])
    with pytest.raises(ValueError):
        ConvergenceTest(eta=0)


def test_from_config_uses_the_paper_defaults() -> None:
    assert ConvergenceTest.from_config(TrainConfig()) == ConvergenceTest(0.9, 400.0, 5, 5, False)
