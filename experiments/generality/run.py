"""Generality: how the agents fare on novelties nobody prepared them for, one case at a time.

For each novelty (a shipped name or any novelty file) this asks, on the same spec and seed:

1. Does the novelty break the pre-novelty plan? The planning agent, with the knowledge base
   of the world before the novelty, plays one episode; the first operator failure (or "no
   plan") is where the novelty is detected, and whether the episode still succeeds says if
   planning alone copes.
2. Does the hybrid agent recover? A fresh RapidLearn+ agent (or RapidLearn) is adapted and
   evaluated frozen (`adapt_and_evaluate`); a case is recovered when its post-novelty success
   reaches the threshold (0.9 by default).

Records go to a JSON-lines file as cases finish, so a stopped suite resumes where it was.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

RECOVERED_AT = 0.9
"""Post-novelty success from which a case counts as recovered (issue 19's bar)."""


@dataclass(frozen=True)
class GeneralityConfig:
    """How each case is run: the spec, the hybrid agent's variant and budgets, the seed."""

    spec: str = "pogostick"
    agent: str = "repair+rapidlearn+"
    seed: int = 0
    step_budget: int = 60_000
    max_episodes: int = 60
    eval_episodes: int = 20
    recovered_at: float = RECOVERED_AT
    knowledge: str = "closed"
    """The agent's knowledge regime (hybrid/knowledge/regime.py); "oracle" is a labelled
    baseline."""
    refusals: str = "explained"
    """Whether the env says why it refused an action ("explained") or not ("silent")."""


def novelty_key(novelty: str) -> str:
    """A case's name: the novelty file's stem, the class of a `module:Class` novelty, or the
    shipped novelty's name."""
    if novelty.endswith((".yaml", ".yml")):
        return Path(novelty).stem
    return novelty.rpartition(":")[2] if ":" in novelty else novelty


def probe_plan(spec: str, novelty: str, seed: int, refusals: str = "explained"
               ) -> dict[str, Any]:
    """One episode of the planning agent, pre-novelty knowledge, post-novelty world."""
    from nesyworld.hybrid import PlanningAgent, run_episode
    from nesyworld.hybrid.seeding import RunSeeds
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

    env = NoveltyInjector(NesyGridEnv(spec, refusals=refusals), [novelty])  # type: ignore[arg-type]
    agent = PlanningAgent(env, KnowledgeBase.from_world(spec))
    return probe_record(agent, run_episode(env, agent, seed=RunSeeds(seed).evaluation(0)))


def probe_record(agent: Any, result: Any) -> dict[str, Any]:
    """What one planning episode after the novelty shows: did it succeed, was the plan
    broken, and where (the first failure, or "no plan")."""
    detection = next((e for e in agent.events if e.kind in ("failure", "no_plan")), None)
    where = None
    if detection is not None:  # a failure names its step and operator; "no plan" its status
        where = (detection.text.splitlines()[0] if detection.kind == "failure"
                 else f"world step {detection.step}: {detection.text.split(':')[0]}")
    return {
        "plan_succeeds": bool(result.success),
        "breaks_plan": detection is not None,
        "detected_kind": None if detection is None else detection.kind,
        "detected_at": where,
        "planning_steps": result.steps,
    }


def run_case(novelty: str, config: GeneralityConfig) -> dict[str, Any]:
    """One case's JSON-able record: the plan probe, then the hybrid agent's adaptation (the
    adaptation study's run, `experiments/adaptation/run.py`, on this novelty)."""
    from nesyworld.experiments.adaptation.run import AdaptationRunSpec, run_one
    from nesyworld.experiments.generality.hosted_case import is_class_ref, run_hosted_case

    if is_class_ref(novelty):  # a novelty class on an env that is not nesyworld's
        return run_hosted_case(novelty, config, config.recovered_at)
    start = time.perf_counter()
    record: dict[str, Any] = {"key": novelty_key(novelty), "case": novelty_key(novelty),
                              "novelty": novelty, "config": asdict(config),
                              "knowledge": config.knowledge, "refusals": config.refusals,
                              **probe_plan(config.spec, novelty, config.seed, config.refusals)}
    run = run_one(AdaptationRunSpec(config.spec, novelty, config.seed, config.agent,
                                  config.step_budget, config.eval_episodes,
                                  config.max_episodes, knowledge=config.knowledge,
                                  refusals=config.refusals))
    s_post = float(run["post_novelty_success_rate"])
    recovered = s_post >= config.recovered_at
    how = ("not recovered" if not recovered
           else "repaired and learned" if run["learned_operators"] and run["repaired_operators"]
           else "learned" if run["learned_operators"]
           else "repaired" if run["repaired_operators"]
           else "plan copes" if record["plan_succeeds"] else "replanned")
    record.update({
        "s_post": s_post,
        "recovered": recovered,
        "adapted": bool(run["adapted"]),
        # only for a run that adapted: never a figure that reads as success for one that
        # did not (docs/COUNTS.md)
        "t_adapt": run["t_adapt"],
        "learning_steps": run["learning_steps"],
        "how": how,
        "learned_operators": run["learned_operators"],
        "repaired_operators": run["repaired_operators"],
        "recoveries": [r.get("method", "learning") for r in run["recoveries"]],
        "wall_seconds": round(time.perf_counter() - start, 2),
    })
    return record


def read_done(path: Path) -> dict[str, dict[str, Any]]:
    """Finished cases by name (the runner's reading, results_file.py: a last line cut short
    by a kill is skipped, and removed by the next append)."""
    from nesyworld.experiments.protocol.results_file import read_latest

    return {k: r for k, r in read_latest(path).records.items() if "case" in r}


def run_suite(novelties: Sequence[str], config: GeneralityConfig, out: Path,
              on_case: Callable[[int, int, dict[str, Any]], None] | None = None
              ) -> list[dict[str, Any]]:
    """Every case `out` does not hold yet, in order, appended as each finishes."""
    from nesyworld.experiments.protocol.results_file import RecordSink

    done = read_done(out) if out.exists() else {}
    records = []
    with contextlib.closing(RecordSink(out)) as sink:  # mends a last line cut short
        for i, novelty in enumerate(novelties, 1):
            key = novelty_key(novelty)
            record = done.get(key)
            if record is None or record.get("config") != asdict(config):
                record = sink.write(run_case(novelty, config))
            records.append(record)
            if on_case is not None:
                on_case(i, len(novelties), record)
    return records


def tally(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Recovered K of N, over all cases and over those that break the plan."""
    breaking = [r for r in records if r["breaks_plan"]]
    return {
        "cases": len(records),
        "recovered": sum(r["recovered"] for r in records),
        "breaking_cases": len(breaking),
        "breaking_recovered": sum(r["recovered"] for r in breaking),
        "learned": sum(r["how"] == "learned" for r in records),
    }
