"""The NovelGym metrics on hand-made curves whose answers are worked out by hand."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from nesyworld.experiments.protocol.metrics import (
    Adaptation,
    MetricsError,
    detection_metrics,
    metrics_of,
)

INJECTION = {"env_steps": 3000, "actions": 1200, "cpu_seconds": 6.0}


def point(phase: str, epoch: int, env_steps: int, success: float, *, actions: int = 0,
          cpu: float = 0.0, mean_steps: float = 50.0, converged: bool = False) -> dict[str, Any]:
    return {"phase": phase, "epoch": epoch, "env_steps": env_steps, "actions": actions,
            "cpu_seconds": cpu, "success_rate": success, "mean_steps": mean_steps,
            "episodes": 20, "converged": converged}


def record(pre: list[dict], post: list[dict], detections: list[dict] | None = None,
           **extra: Any) -> dict[str, Any]:
    return {"key": "rapidlearn+/pogostick/axe/0", "status": "ok", "error": "",
            "spec": {"agent": "rapidlearn+", "domain": "pogostick", "novelty": "axe",
                     "seed": 0, "protocol": {}},
            "novelty": dict(INJECTION), "curve": pre + post,
            "detections": detections or [], **extra}


PRE = [point("pre", 1, 1000, 0.5, mean_steps=70.0),
       point("pre", 2, 2000, 0.9, mean_steps=45.0),
       point("pre", 3, 3000, 1.0, mean_steps=40.0, converged=True)]


def recovering_post() -> list[dict]:
    return [point("post", 0, 3000, 0.2, actions=1200, cpu=6.0),
            point("post", 1, 4000, 0.6, actions=1350, cpu=7.5),
            point("post", 2, 5000, 0.95, actions=1500, cpu=9.5, converged=True),
            point("post", 3, 6000, 1.0, actions=1700, cpu=11.0, converged=True),
            point("post", 4, 6000, 0.97, actions=1700, cpu=11.4, mean_steps=55.0,
                  converged=True)]


def test_known_answers_for_a_recovering_agent() -> None:
    curve = PRE + recovering_post()
    random.Random(0).shuffle(curve)  # order in the record must not matter
    m = metrics_of(record(curve, []))
    assert (m.s_pre, m.s_immediate_post, m.s_post) == (1.0, 0.2, 0.97)
    assert m.i_novelty == pytest.approx(0.8) and m.pre_converged
    assert m.adaptation is Adaptation.ADAPTED and m.adapted
    # to the FIRST converged post point (env 5000), not the final evaluation (env 6000)
    assert (m.t_adapt_env_steps, m.t_adapt_actions) == (2000, 300)
    assert m.t_adapt_cpu_seconds == pytest.approx(3.5)
    assert (m.t_pre, m.t_post, m.delta_t) == (40.0, 55.0, 15.0)
    assert (m.agent, m.domain, m.novelty, m.seed) == ("rapidlearn+", "pogostick", "axe", 0)


def test_agent_that_never_fails_has_no_impact_and_no_t_adapt() -> None:
    post = [point("post", 0, 3000, 1.0),
            *(point("post", e, 3000 + 1000 * e, 1.0, converged=e >= 4) for e in range(1, 6))]
    m = metrics_of(record(PRE, post))
    assert m.i_novelty == 0.0
    assert m.adaptation is Adaptation.NOT_NEEDED and not m.adapted
    # the post curve did converge at some point, yet that is no adaptation time
    assert (m.t_adapt_env_steps, m.t_adapt_actions, m.t_adapt_cpu_seconds) == (None,) * 3
    assert m.as_row()["adaptation"] == "not needed" and m.as_row()["t_adapt_env_steps"] is None
    assert m.s_post == 1.0


def test_beneficial_novelty_gives_negative_impact_and_needs_no_adaptation() -> None:
    pre = [point("pre", 1, 3000, 0.8, converged=False)]
    m = metrics_of(record(pre, [point("post", 0, 3000, 0.9), point("post", 1, 4000, 0.9)]))
    assert m.i_novelty == pytest.approx(-0.1)
    assert m.adaptation is Adaptation.NOT_NEEDED and not m.pre_converged


def test_agent_that_never_recovers_is_not_adapted_not_a_number() -> None:
    post = [point("post", e, 3000 + 1000 * e, 0.1 * e, mean_steps=math.nan) for e in range(4)]
    m = metrics_of(record(PRE, post))
    assert m.i_novelty == pytest.approx(1.0)
    assert m.adaptation is Adaptation.NOT_ADAPTED and str(m.adaptation) == "not adapted"
    assert (m.t_adapt_env_steps, m.t_adapt_actions, m.t_adapt_cpu_seconds) == (None,) * 3
    assert m.s_post == pytest.approx(0.3)
    assert m.t_post is None and m.delta_t is None  # no successful episode: t undefined


def test_impact_tolerance_absorbs_evaluation_noise() -> None:
    post = [point("post", 0, 3000, 0.98), point("post", 1, 4000, 1.0, converged=True)]
    assert metrics_of(record(PRE, post)).t_adapt_env_steps == 1000
    tolerant = metrics_of(record(PRE, post), impact_tolerance=0.05)
    assert tolerant.adaptation is Adaptation.NOT_NEEDED and tolerant.t_adapt_env_steps is None


def test_metrics_survive_a_json_round_trip_with_nan() -> None:
    post = [point("post", 0, 3000, 0.0, mean_steps=math.nan),
            point("post", 1, 4000, 1.0, mean_steps=30.0, converged=True)]
    m = metrics_of(json.loads(json.dumps(record(PRE, post))))
    assert m.t_adapt_env_steps == 1000 and m.delta_t == -10.0


def test_detection_delay_false_positives_and_wrong_detections() -> None:
    detections = [{"env_steps": 2500, "actions": 1000, "correct": False, "what": "noise"},
                  {"env_steps": 3200, "actions": 1230, "correct": False, "what": "wrong"},
                  {"env_steps": 3700, "actions": 1290, "correct": True, "what": "later"},
                  {"env_steps": 3500, "actions": 1250, "correct": True, "what": "axe"}]
    m = metrics_of(record(PRE, recovering_post(), detections))
    assert m.detected and m.false_positives == 1
    assert (m.detection_delay_env_steps, m.detection_delay_actions) == (500, 50)
    assert not m.correctly_detected_trial  # detected, but it also cried wolf before
    clean = metrics_of(record(PRE, recovering_post(), detections[1:]))
    assert clean.correctly_detected_trial and clean.false_positives == 0


def test_detection_at_the_injection_step_has_zero_delay() -> None:
    at = [{"env_steps": 3000, "actions": 1200, "correct": True, "what": "axe"}]
    assert detection_metrics(at, INJECTION) == (True, 0, 0, 0)
    assert detection_metrics([], INJECTION) == (False, None, None, 0)
    early = [{"env_steps": 2999, "actions": 1199, "correct": True, "what": "axe"}]
    assert detection_metrics(early, INJECTION) == (False, None, None, 1)


def test_failed_or_partial_runs_raise() -> None:
    with pytest.raises(MetricsError, match="did not finish"):
        metrics_of(record(PRE, recovering_post(), status="error", error="boom"))
    with pytest.raises(MetricsError, match="no pre- or post-novelty curve"):
        metrics_of(record(PRE, []))
