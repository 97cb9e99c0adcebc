"""Our curves as NovelGym's test logger would have shown them (its mean-return floor)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from nesyworld.experiments.protocol.metrics import Adaptation, MetricsError, metrics_of
from nesyworld.experiments.protocol.novelgym_logging import (
    logged_length,
    logged_length_record,
    logged_record,
    logged_success,
    main,
    training_steps_record,
)

INJECTION = {"env_steps": 1000, "actions": 1000, "cpu_seconds": 1.0}


def point(phase: str, epoch: int, env_steps: int, success: float, reward: float,
          converged: bool = False) -> dict[str, Any]:
    return {"phase": phase, "epoch": epoch, "env_steps": env_steps, "actions": env_steps,
            "cpu_seconds": env_steps / 1000, "success_rate": success, "mean_steps": 60.0,
            "episodes": 100, "converged": converged, "mean_reward": reward}


def record(post: list[dict[str, Any]]) -> dict[str, Any]:
    pre = [point("pre", 1, 500, 1.0, 940.0), point("pre", 2, 1000, 1.0, 940.0, True)]
    return {"key": "transfer_rl_unmasked/pogostick/axe/0", "status": "ok", "error": "",
            "spec": {"agent": "transfer_rl_unmasked", "domain": "pogostick", "novelty": "axe",
                     "seed": 0, "protocol": {"eta": 2, "nu": 1}},
            "novelty": dict(INJECTION), "curve": pre + post, "detections": []}


def test_an_evaluation_with_a_mean_return_at_or_below_the_floor_logs_no_success() -> None:
    assert logged_success(point("post", 0, 0, 0.25, -120.0)) == 0.0
    assert logged_success(point("post", 0, 0, 0.25, 0.0)) == 0.0
    assert logged_success(point("post", 0, 0, 0.4, 12.0)) == 0.4
    assert logged_success(point("post", 0, 0, 0.4, 12.0), floor=500.0) == 0.0


def test_a_point_without_a_mean_return_is_refused() -> None:
    with pytest.raises(MetricsError, match="mean return"):
        logged_success(point("post", 0, 0, 0.5, math.nan))


def test_immediate_successes_under_the_floor_log_as_a_full_impact() -> None:
    post = [point("post", 0, 1000, 0.2, -200.0),
            point("post", 1, 2000, 0.95, 850.0),
            point("post", 2, 3000, 0.97, 870.0, True),
            point("post", 3, 3000, 0.96, 860.0, True)]
    ours, logged = metrics_of(record(post)), metrics_of(logged_record(record(post)))
    assert ours.i_novelty == pytest.approx(0.8)
    assert logged.i_novelty == 1.0
    assert logged.t_adapt_env_steps == ours.t_adapt_env_steps == 2000
    assert logged.s_post == ours.s_post == 0.96


def test_convergence_is_recomputed_on_the_logged_rates_not_copied() -> None:
    # epoch 1 succeeds at 0.95 with a negative mean return (logged 0): at S = s/n it is a
    # better epoch before the last two, so epoch 3 does not converge; logged, it does
    post = [point("post", 0, 1000, 0.2, -200.0),
            point("post", 1, 2000, 0.95, -5.0),
            point("post", 2, 3000, 0.92, 600.0),
            point("post", 3, 4000, 0.93, 620.0)]
    ours, logged = metrics_of(record(post)), metrics_of(logged_record(record(post)))
    assert ours.adaptation is Adaptation.NOT_ADAPTED
    assert logged.adaptation is Adaptation.ADAPTED and logged.t_adapt_env_steps == 3000
    curve = logged_record(record(post))["curve"]
    assert [p["converged"] for p in curve if p["phase"] == "post"] == [False, False, False,
                                                                        True]


def test_the_command_prints_impact_beside_the_paper(tmp_path, capsys) -> None:
    import json

    post = [point("post", 0, 1000, 0.2, -200.0),
            point("post", 1, 1000 + 4824, 0.95, 850.0),
            point("post", 2, 1000 + 9648, 0.97, 870.0, True),
            point("post", 3, 1000 + 9648, 0.96, 860.0, True)]
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(record(post)) + "\n")
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "| axe | transfer_rl_unmasked | I_novelty ↓ | 1.00" in out
    assert "S = s/n: 0.80" in out
    assert "the same in 1 of 1 runs" in out
    assert "| axe | transfer_rl_unmasked | T_adapt ↓ | 9600 ± 0 |" in out
    # the last post point: 0.96 of episodes at 60 steps, 0.04 at the 400-step cut
    assert "| axe | transfer_rl_unmasked | Δt ↓ | 13.6 ± 0.0 |" in out
    assert "successful episodes: 0.0 ± 0.0" in out
    assert "over the 1 of 1 runs" in out


def test_training_steps_leave_out_the_learners_evaluation_episodes() -> None:
    # protocol epochs of 4,800 (the default): each post epoch adds 4,800 training steps and
    # one learner evaluation episode (24 and 400 steps here); the last is cut by the budget
    rec = record([point("post", 0, 1000, 0.2, -200.0),
                  point("post", 1, 1000 + 4824, 0.95, 850.0),
                  point("post", 2, 1000 + 9624 + 400, 0.97, 870.0, True),
                  point("post", 3, 1000 + 10024 + 1600, 0.96, 860.0),
                  point("post", 4, 1000 + 11624, 0.96, 860.0)])
    rec["spec"]["protocol"] = {}
    steps = [p["env_steps"] for p in training_steps_record(rec)["curve"] if p["phase"] == "post"]
    assert steps == [1000, 5800, 10600, 12200, 12200]
    assert metrics_of(training_steps_record(rec)).t_adapt_env_steps == 9600
    assert metrics_of(rec).t_adapt_env_steps == 10024


def test_training_steps_are_refused_for_an_agent_whose_epochs_are_not_training() -> None:
    rec = record([point("post", 0, 1000, 0.2, -200.0)])
    rec["spec"]["agent"] = "rapidlearn+"
    with pytest.raises(MetricsError, match="only an RL agent"):
        training_steps_record(rec)


def test_an_epoch_short_of_the_protocols_before_the_last_is_refused() -> None:
    rec = record([point("post", 0, 1000, 0.2, -200.0),
                  point("post", 1, 2000, 0.95, 850.0),
                  point("post", 2, 3000 + 4800, 0.97, 870.0, True)])
    rec["spec"]["protocol"] = {}
    with pytest.raises(MetricsError, match="not whole"):
        training_steps_record(rec)


def test_the_command_reports_a_curve_without_returns_in_one_line(tmp_path, capsys) -> None:
    import json

    rec = record([point("post", 0, 1000, 0.2, -200.0)])
    for p in rec["curve"]:
        del p["mean_reward"]
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mean return" in err


def test_the_logged_length_counts_every_failure_at_the_cut() -> None:
    assert logged_length({"success_rate": 0.9, "mean_steps": 20.0}, 400) == pytest.approx(58.0)
    assert logged_length({"success_rate": 1.0, "mean_steps": 20.0}, 400) == 20.0
    assert logged_length({"success_rate": 0.0, "mean_steps": math.nan}, 400) == 400.0
    with pytest.raises(MetricsError, match="mean length"):
        logged_length({"success_rate": 0.5, "mean_steps": math.nan}, 400)


def test_delta_t_from_the_logged_length_uses_the_protocols_cut() -> None:
    rec = record([point("post", 0, 1000, 0.2, -200.0),
                  point("post", 1, 2000, 0.95, 850.0, True),
                  point("post", 2, 2000, 0.9, 850.0, True)])
    assert metrics_of(rec).delta_t == 0.0
    rec["spec"]["protocol"] = {**rec["spec"]["protocol"], "max_episode_steps": 200}
    logged = metrics_of(logged_length_record(rec))
    assert logged.delta_t == pytest.approx(0.9 * 60 + 0.1 * 200 - 60)
    assert logged.s_post == 0.9 and logged.t_adapt_env_steps == 1000


def test_the_logged_length_is_refused_for_an_agent_that_can_end_episodes_early() -> None:
    rec = record([point("post", 0, 1000, 0.2, -200.0)])
    rec["spec"]["agent"] = "rapidlearn+"
    with pytest.raises(MetricsError, match="only an RL agent"):
        logged_length_record(rec)
