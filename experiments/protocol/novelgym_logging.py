"""Our results as NovelGym's own code would have logged them, to explain its I_novelty,
T_adapt and Δt.

The paper defines a success rate as S = s / n (section 5.2), and our metrics follow it
(metrics.py). NovelGym's training script logs another number: its test logger
(`ts_extensions/custom_logger.py`, `test/percent_dones`) takes the share of test episodes
that ended before the episode cut *and* whose evaluation's mean return is above a floor, where
the return it compares is the mean over all the evaluation's episodes, one number. So an
evaluation whose mean return is at or below the floor (0 for its single-agent env) logs a
success of 0 whatever share of its episodes succeeded. With a goal reward of 1,000, a step
reward of -1 and episodes cut at 400 steps, that is every evaluation below about a third of
successes. An agent whose pre-novelty policy still succeeds now and then right after the
novelty logs an immediate success of 0 and an I_novelty of 1 there.

The convergence test asks for a success of at least 0.9 and a mean return of at least 400,
where the floor never bites, so T_adapt should not change; `logged_record` recomputes the
convergence flags rather than assume it.

Our curve points keep the success rate and the mean return, not each episode, so the
episodes "ended before the cut" are our successful ones: right for the RL baselines, whose
action space has no `give_up` (NovelGym's had none either); for an agent that gives up, a
give-up ends an episode early too and NovelGym would have counted it.

Its only episode length is tianshou's `test/length`, the mean over all the test episodes,
the failures at the cut among them, where our `mean_steps` (and so Δt, metrics.py) is the mean
over the successful ones, "the average time the agent takes to solve the task" (paper, section
5.2). `logged_length_record` gives an RL agent's Δt as that length would have shown it.

NovelGym also counts time otherwise: tianshou's `env_step` is the training collector's steps,
and its 100-episode tests are not in it. Our RL agents' T_adapt counts every env step the
agent caused, which includes one evaluation episode of the learner's own per epoch
(docs/COUNTS.md). Their epochs are exactly `epoch_steps` of training, so
`training_steps_record` gives T_adapt as tianshou counted it.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

from nesyworld.experiments.protocol.metrics import MetricsError
from nesyworld.experiments.protocol.records import RL_AGENTS, UNMASKED, CurvePoint, RunSpec

RETURN_FLOOR = 0.0
"""NovelGym's `rew_min` for its single-agent env (train.py: 500 only for its `sa_a` env)."""


def _is_rl(record: Mapping[str, Any]) -> bool:
    return str(record["spec"]["agent"]).removesuffix(UNMASKED) in RL_AGENTS


def logged_success(point: Mapping[str, Any], floor: float = RETURN_FLOOR) -> float:
    """NovelGym's logged success of one evaluation: our success rate, or 0 when the
    evaluation's mean return is not above `floor`."""
    reward = float(point.get("mean_reward", math.nan))
    if math.isnan(reward):
        raise MetricsError("a curve point without a mean return (recorded before it was kept) "
                           "has no NovelGym-logged success")
    return float(point["success_rate"]) if reward > floor else 0.0


def logged_record(record: Mapping[str, Any], floor: float = RETURN_FLOOR) -> dict[str, Any]:
    """The record with every curve point's success rate as NovelGym logged it and the
    convergence flags recomputed on those rates (paper appendix A, `run.converged`), so that
    `metrics_of` gives I_novelty and T_adapt as NovelGym's logs would have shown them."""
    from nesyworld.experiments.protocol.run import converged

    protocol = RunSpec.from_dict(dict(record["spec"])).protocol
    out: list[dict[str, Any]] = []
    for phase in ("pre", "post"):
        points = [CurvePoint(**{**p, "success_rate": logged_success(p, floor)})
                  for p in record.get("curve") or [] if p["phase"] == phase]
        # the test reads the last eta + nu epochs (and the immediate point is not one)
        span = protocol.eta + protocol.nu + 1
        first = next((i for i, p in enumerate(points) if p.epoch > 0
                      and converged(protocol, points[max(0, i + 1 - span):i + 1])), None)
        # the protocol flags the first converged point; the points after it (training to the
        # full budget, the post-adaptation evaluation) keep the flags they were written with
        flags = ([False] * len(points) if first is None else
                 [False] * first + [True] + [p.converged for p in points[first + 1:]])
        out.extend(replace(p, converged=f).as_dict() for p, f in zip(points, flags, strict=True))
    return {**record, "curve": out}


def logged_length(point: Mapping[str, Any], cut: int) -> float:
    """NovelGym's `test/length` of one evaluation: the mean length of all its episodes, each
    failure counted at the episode cut `cut`, from our success rate and our mean length of
    the successful episodes."""
    success = float(point["success_rate"])
    if success <= 0.0:
        return float(cut)
    steps = float(point.get("mean_steps", math.nan))
    if math.isnan(steps):
        raise MetricsError("a curve point with successes but no mean length has no "
                           "NovelGym-logged length")
    return success * steps + (1.0 - success) * cut


def logged_length_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """An RL agent's record with every curve point's mean length as NovelGym's `test/length`,
    so that `metrics_of` gives Δt as its logs would have shown it. Only for the RL agents: their
    episodes end at the goal or at the cut, so a failure's length is the cut."""
    if not _is_rl(record):
        raise MetricsError(f"run {record.get('key', '?')}: only an RL agent's failed "
                           "episodes all run to the cut")
    cut = RunSpec.from_dict(dict(record["spec"])).protocol.max_episode_steps
    return {**record, "curve": [{**p, "mean_steps": logged_length(p, cut)}
                                for p in record.get("curve") or []]}


def training_steps_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """An RL agent's record with its post-novelty counters in training env steps only, as
    tianshou's `env_step` counts them: each training epoch `epoch_steps` (the budget's last
    one, if cut short, its own steps), its learner's evaluation episode left out."""
    if not _is_rl(record):
        raise MetricsError(f"run {record.get('key', '?')}: only an RL agent's epochs are "
                           "whole epochs of training")
    epoch = RunSpec.from_dict(dict(record["spec"])).protocol.epoch_steps
    start = int(record["novelty"]["env_steps"])
    post = sorted((p for p in record.get("curve") or [] if p["phase"] == "post"),
                  key=lambda p: (p["env_steps"], p["epoch"]))
    grown = [b - a for a, b in pairwise([start, *(int(p["env_steps"]) for p in post)])]
    last = max((i for i, g in enumerate(grown) if g > 0), default=-1)
    if any(0 < g < epoch for i, g in enumerate(grown) if i != last):
        raise MetricsError(f"run {record.get('key', '?')}: an epoch shorter than "
                           f"{epoch} env steps before the last; its epochs are not whole")
    out, trained = [], 0
    for p, grew in zip(post, grown, strict=True):
        trained += min(grew, epoch) if grew > 0 else 0
        out.append({**p, "env_steps": start + trained})
    return {**record, "curve": [p for p in record.get("curve") or [] if p["phase"] != "post"]
            + out}


def _beside_paper(records: Sequence[Mapping[str, Any]],
                  recounted: Sequence[Mapping[str, Any]], metric: str, label: str) -> str:
    """The paper-comparison table of `metric` for `recounted` (the records as NovelGym
    counted them), each row's note giving ours as recorded, after `label`."""
    from nesyworld.experiments.protocol.paper_table2 import (
        comparison_markdown,
        paper_comparison,
    )
    from nesyworld.experiments.protocol.report import table2_rows

    ours = {(c.novelty, c.agent): c for c in paper_comparison(table2_rows(records))
            if c.metric.startswith(metric)}
    return comparison_markdown([replace(c, note=f"{label}: {ours[(c.novelty, c.agent)].ours}")
                                for c in paper_comparison(table2_rows(recounted))
                                if c.metric.startswith(metric)])


def _compare(records: Sequence[Mapping[str, Any]]) -> None:
    from nesyworld.experiments.protocol.metrics import Adaptation, metrics_of

    ok = [r for r in records if r.get("status", "ok") == "ok"]
    logged = [logged_record(r) for r in ok]
    print("I_novelty with NovelGym's logged success, beside the paper's; the note gives ours "
          "with S = s/n (the paper's definition)\n")
    print(_beside_paper(ok, logged, "I_novelty", "S = s/n"))
    def t_adapt(record: Mapping[str, Any]) -> tuple[Any, int | None]:
        m = metrics_of(record)
        return m.adaptation, m.t_adapt_env_steps

    same = sum(t_adapt(a) == t_adapt(b) for a, b in zip(ok, logged, strict=True))
    print(f"\nT_adapt and whether it was needed: the same in {same} of {len(ok)} runs")
    rl = [r for r in ok if _is_rl(r)]
    if not rl:
        return
    print("\nThe RL agents' T_adapt in training env steps only (tianshou's env_step, as "
          "NovelGym counted), beside the paper's; the note gives ours in all env steps\n")
    print(_beside_paper(rl, [training_steps_record(r) for r in rl], "T_", "all env steps"))
    # the paper's S_post (0.92-0.99 in every RL cell) says its runs converged: compare
    # only the runs of ours that converged too
    done = [r for r in rl if metrics_of(r).adaptation is not Adaptation.NOT_ADAPTED]
    print(f"\nThe RL agents' Δt with NovelGym's test/length (every episode, a failure at the "
          f"cut), over the {len(done)} of {len(rl)} runs that adapted or did not need to, "
          "beside the paper's; the note gives ours over the successful episodes\n")
    print(_beside_paper(done, [logged_length_record(r) for r in done], "Δt",
                        "successful episodes"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nesyworld.experiments.protocol.novelgym_logging",
        description="I_novelty, T_adapt and Δt of a results file as NovelGym's test logger "
                    "would have shown them, beside the paper's and ours.")
    parser.add_argument("results", help="a results file (JSON lines) of the paper's protocol")
    args = parser.parse_args(argv)
    from nesyworld.experiments.protocol.report import read_records
    from nesyworld.world.errors import SpecError

    try:
        _compare(read_records(args.results))
    except (MetricsError, SpecError, OSError) as err:
        print(f"novelgym_logging: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
