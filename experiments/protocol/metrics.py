"""The NovelGym metrics (paper section 5.2, figure 4) and novelty detection, from one run record.

A record (see `records.py`) holds the success-rate curve of a run: `pre` points while the
agent is trained on the original task, then, from the injection on, `post` points: the first
one measured right at the injection before any adaptation, the last one the separate
post-adaptation evaluation. Every metric below is a pure function of that curve, the
counters at the injection and the reported detections, so the figures can be recomputed
from stored results at any time, with no agent, world or GPU.

Definitions (success rate S = successful / evaluated episodes at one curve point):

- **S_pre-novelty**: S at the last pre point, the agent as it stands when the novelty comes
  (after the convergence criterion or the budget; `pre_converged` says which).
- **S_immediate-post**: S at the first post point, measured at the injection before the agent
  has adapted (the paper measures it "before training for adaptation").
- **I_novelty** = S_pre-novelty - S_immediate-post: how much the novelty hurt at once.
  Negative when the novelty helps straight away.
- **T_adapt**: counters (env steps, actions, CPU seconds) from the injection to the first
  post point where the convergence criterion holds (`converged`). Only defined when the
  novelty hurt: an agent with I_novelty <= 0 has nothing to adapt to (`NOT_NEEDED`), and one
  whose post curve never converges has no time to report (`NOT_ADAPTED`). Neither is a number,
  so that neither can be averaged in as a fast (0) or slow (budget) adaptation.
- **S_post-novelty**: S at the last post point, the separate post-adaptation evaluation
  after the adaptation stopped (at convergence or at the budget, paper section 5.1).
- **Δt** = t_post - t_pre, with t the mean length of the successful evaluation episodes at
  the last pre point and at the last post point. Undefined when either point has no
  successful episode. Section 5.2 of the paper writes t_pre - t_post, but its table 2 is
  computed the other way (the shortcut of the beneficial chest gets negative values, and the
  table says lower is better), so we follow the table, which is what results are compared
  against: positive means the adapted agent needs more steps than before the novelty.
- **Detection** (NovPhy / SAIL-ON style, for agents that report novelty): a detection at or
  after the injection that the protocol marks correct is a true detection; the first one
  gives the **detection delay** (its counters minus the injection's). Any detection before
  the injection is a **false positive**: there was nothing to detect. A **correctly detected
  trial** has a true detection and no false positive.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any


class MetricsError(ValueError):
    """A record the metrics cannot be computed from (failed run, curve missing a phase)."""


class Adaptation(str, Enum):
    """Whether T_adapt exists for a run, and why not when it does not."""

    ADAPTED = "adapted"
    """The novelty hurt (I_novelty > tolerance) and the post curve converged: T_adapt is set."""
    NOT_NEEDED = "not needed"
    """The novelty did not hurt (I_novelty <= tolerance): there was nothing to adapt to."""
    NOT_ADAPTED = "not adapted"
    """The novelty hurt and the post curve never met the convergence criterion."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class RunMetrics:
    """Every metric of one run. None means "undefined for this run", never zero; for T_adapt
    `adaptation` says why it is undefined."""

    key: str
    agent: str
    domain: str
    novelty: str
    seed: int
    s_pre: float
    pre_converged: bool
    s_immediate_post: float
    i_novelty: float
    adaptation: Adaptation
    t_adapt_env_steps: int | None
    t_adapt_actions: int | None
    t_adapt_cpu_seconds: float | None
    s_post: float
    t_pre: float | None
    t_post: float | None
    delta_t: float | None
    detected: bool
    detection_delay_env_steps: int | None
    detection_delay_actions: int | None
    false_positives: int

    @property
    def adapted(self) -> bool:
        return self.adaptation is Adaptation.ADAPTED

    @property
    def correctly_detected_trial(self) -> bool:
        """NovPhy's CDT: the novelty was detected after it came, and nothing before."""
        return self.detected and self.false_positives == 0

    def as_row(self) -> dict[str, Any]:
        """Flat, CSV-ready values: the enum as its text, undefined metrics as None."""
        row = asdict(self)
        row["adaptation"] = self.adaptation.value
        row["correctly_detected_trial"] = self.correctly_detected_trial
        return row


def _number(value: Any) -> float | None:
    """A JSON number, or None for null/NaN (NaN marks 'no successful episode')."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _points(record: Mapping[str, Any], phase: str) -> list[Mapping[str, Any]]:
    points = [p for p in record.get("curve") or [] if p["phase"] == phase]
    # stable sort: the protocol appends in order, but a merged record need not be
    return sorted(points, key=lambda p: (p["env_steps"], p["epoch"]))


def _t_adapt(post: Sequence[Mapping[str, Any]], injection: Mapping[str, Any]
             ) -> tuple[int, int, float] | None:
    first = next((p for p in post if p["converged"]), None)
    if first is None:
        return None
    return (int(first["env_steps"]) - int(injection["env_steps"]),
            int(first["actions"]) - int(injection["actions"]),
            round(float(first["cpu_seconds"]) - float(injection["cpu_seconds"]), 3))


def detection_metrics(detections: Sequence[Mapping[str, Any]], injection: Mapping[str, Any]
                      ) -> tuple[bool, int | None, int | None, int]:
    """(detected, delay in env steps, delay in actions, false positives).

    A detection at the injection's own step counts as after it (delay 0): the novelty is in
    the world from that step on. A detection after the injection not marked correct (the
    agent named something that is not the novelty) is neither a detection nor a false
    positive; it is simply not credited.
    """
    at = int(injection["env_steps"])
    false_positives = sum(1 for d in detections if int(d["env_steps"]) < at)
    true = sorted((d for d in detections if int(d["env_steps"]) >= at and d.get("correct")),
                  key=lambda d: int(d["env_steps"]))
    if not true:
        return False, None, None, false_positives
    first = true[0]
    return (True, int(first["env_steps"]) - at,
            int(first["actions"]) - int(injection["actions"]), false_positives)


def metrics_of(record: Mapping[str, Any], impact_tolerance: float = 0.0) -> RunMetrics:
    """All metrics of one `ok` record (see the module docstring for their definitions).

    `impact_tolerance`: a drop in success rate up to this much still counts as "the novelty did
    not hurt" (T_adapt not needed); 0 by default, as the paper's I_novelty = 0 case. Raise it
    when a small evaluation makes S noisy.
    """
    key = str(record.get("key", "?"))
    if record.get("status", "ok") != "ok":
        raise MetricsError(f"run {key} did not finish: {record.get('error', '')}".strip())
    pre, post = _points(record, "pre"), _points(record, "post")
    if not pre or not post or "novelty" not in record:
        raise MetricsError(f"run {key} has no pre- or post-novelty curve")
    spec, injection = record["spec"], record["novelty"]

    s_pre, s_immediate, s_post = (float(pre[-1]["success_rate"]),
                                  float(post[0]["success_rate"]),
                                  float(post[-1]["success_rate"]))
    i_novelty = round(s_pre - s_immediate, 10)  # no 1e-17 "impact" from float noise
    t_adapt: tuple[int, int, float] | None = None
    if i_novelty <= impact_tolerance:
        adaptation = Adaptation.NOT_NEEDED
    else:
        t_adapt = _t_adapt(post, injection)
        adaptation = Adaptation.NOT_ADAPTED if t_adapt is None else Adaptation.ADAPTED

    t_pre, t_post = _number(pre[-1]["mean_steps"]), _number(post[-1]["mean_steps"])
    delta_t = None if t_pre is None or t_post is None else t_post - t_pre
    detected, delay_steps, delay_actions, false_positives = detection_metrics(
        record.get("detections") or [], injection)
    return RunMetrics(
        key=key, agent=str(spec["agent"]), domain=str(spec["domain"]),
        novelty=str(spec["novelty"]), seed=int(spec["seed"]),
        s_pre=s_pre, pre_converged=bool(pre[-1]["converged"]),
        s_immediate_post=s_immediate, i_novelty=i_novelty, adaptation=adaptation,
        t_adapt_env_steps=None if t_adapt is None else t_adapt[0],
        t_adapt_actions=None if t_adapt is None else t_adapt[1],
        t_adapt_cpu_seconds=None if t_adapt is None else t_adapt[2],
        s_post=s_post, t_pre=t_pre, t_post=t_post, delta_t=delta_t,
        detected=detected, detection_delay_env_steps=delay_steps,
        detection_delay_actions=delay_actions, false_positives=false_positives)
