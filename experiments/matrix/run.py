"""Running a novelty x scenario matrix, resumably, and reducing it to NovPhy's tables.

Each cell (agent, scenario, novelty, seed) runs a fresh agent for `episodes` episodes on the
scenario after the novelty (the "none" column: no novelty), with the agent's knowledge taken
from the scenario *before* the novelty, as in the main protocol. Its record is appended to a
JSON-lines file the moment it finishes (the main sweep's `RecordSink`), so a rerun skips
what is done and redoes only missing cells, errors, and cells recorded under other settings.

A novelty that cannot apply to a scenario (its changes do not fit that world, e.g. a wall
across a room the scenario does not have an agent for) is recorded as "n/a" with the reason,
and shown as n/a in the tables: it is a fact about the pair, not a crash.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from nesyworld.experiments.matrix.config import BASELINE, MatrixConfig
from nesyworld.experiments.protocol.results_file import RecordSink, read_latest
from nesyworld.experiments.protocol.sweep import code_version
from nesyworld.world.errors import SpecError

Record = dict[str, Any]


def cell_key(agent: str, scenario: str, novelty: str, seed: int) -> str:
    return f"{agent}/{Path(scenario).stem}/{Path(novelty).stem}/{seed}"


def run_cell(config: MatrixConfig, agent_name: str, scenario: str, novelty: str,
             seed: int, cache: Any = None) -> Record:
    """One cell's record: status "ok" (with success_rate), "n/a" (with reason) or "error".
    `cache`: a `PlanCache` shared by the cells (keyed by planner, domain, state and goal, so
    sharing it changes no answer; the baseline and novelty cells of a scenario mostly plan
    the same states)."""
    from nesyworld.hybrid import PlanningAgent, PlanningConfig, RandomAgent, run_episode
    from nesyworld.hybrid.seeding import RunSeeds
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world.envs import NesyGridEnv, NoveltyInjector
    from nesyworld.world.novelty.transforms import apply_novelties

    record: Record = {"key": cell_key(agent_name, scenario, novelty, seed), "agent": agent_name,
                      "scenario": Path(scenario).stem, "novelty": Path(novelty).stem,
                      "seed": seed, "settings": config.settings(),
                      "code_version": code_version(),
                      "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    start = time.perf_counter()
    novelties = [] if novelty == BASELINE else [novelty]
    try:
        if novelties:
            apply_novelties(scenario, novelties)  # does the novelty fit this world at all?
    except SpecError as err:
        return {**record, "status": "n/a", "reason": str(err), "wall_seconds": 0.0}
    try:
        env: Any = NesyGridEnv(scenario, observation={"noise": config.noise})
        if novelties:  # on its own schedule: before the first episode or mid-episode
            env = NoveltyInjector(env, novelties)
        if agent_name == "random":
            agent: Any = RandomAgent(env, seed=seed)
        else:
            agent = PlanningAgent(env, KnowledgeBase.from_world(scenario),
                                  PlanningConfig(mode=config.mode))
            if cache is not None:
                agent.planner.cache = cache
        seeds = RunSeeds(seed)  # the run's evaluation maps: none shared with another seed
        results = [run_episode(env, agent, seeds.evaluation(ep))
                   for ep in range(config.episodes)]
    except Exception:  # any failure is recorded, and retried on the next run
        return {**record, "status": "error", "error": traceback.format_exc(),
                "wall_seconds": time.perf_counter() - start}
    successes = sum(r.success for r in results)
    return {**record, "status": "ok", "episodes": len(results), "successes": successes,
            "success_rate": successes / len(results),
            "mean_steps": float(np.mean([r.steps for r in results])),
            "wall_seconds": time.perf_counter() - start}


def _done(record: Record | None, config: MatrixConfig) -> bool:
    return (record is not None and record.get("status") in ("ok", "n/a")
            and record.get("settings") == config.settings())


def run_matrix(config: MatrixConfig, out: Path,
               on_record: Callable[[Record, int, int], None] | None = None) -> list[Record]:
    """Run every cell not yet done in `out`; the latest record of every cell, in grid order.
    `on_record(record, done, total)` is called after each cell (for progress)."""
    out = Path(out)
    latest = read_latest(out).records  # streamed: memory follows the cells, not the lines
    cells = config.cells()
    todo = [c for c in cells if not _done(latest.get(cell_key(*c)), config)]
    if todo:
        from nesyworld.symbolic.planning.planners import PlanCache

        cache, sink = PlanCache(), RecordSink(out)
        try:
            for i, cell in enumerate(todo):
                record = sink.write(run_cell(config, *cell, cache=cache))
                latest[record["key"]] = record
                if on_record is not None:
                    on_record(record, len(cells) - len(todo) + i + 1, len(cells))
        finally:
            sink.close()
    return [latest[cell_key(*c)] for c in cells if cell_key(*c) in latest]


@dataclass
class MatrixTable:
    """One agent's matrix: success rate per scenario (rows) and novelty (columns).

    A cell is the mean success rate over seeds; None means n/a (the novelty cannot apply to
    the scenario) or not run. `row_means` is NovPhy's "performance of a scenario across
    novelties" and `column_means` its "performance of a novelty across scenarios"; both
    leave out n/a cells and the no-novelty baseline column (it is not a novelty), which is
    shown beside them for comparison.
    """

    agent: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: dict[tuple[str, str], float | None]
    seeds: dict[tuple[str, str], int] = field(default_factory=dict)
    errors: int = 0

    def cell(self, row: str, column: str) -> float | None:
        return self.cells.get((row, column))

    def row_mean(self, row: str) -> float | None:
        return _mean([self.cell(row, c) for c in self.columns if c != BASELINE])

    def column_mean(self, column: str) -> float | None:
        return _mean([self.cell(r, column) for r in self.rows])

    def overall(self) -> float | None:
        return _mean([self.cell(r, c) for r in self.rows for c in self.columns if c != BASELINE])

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "rows": list(self.rows), "columns": list(self.columns),
                "cells": {r: {c: self.cell(r, c) for c in self.columns} for r in self.rows},
                "row_means": {r: self.row_mean(r) for r in self.rows},
                "column_means": {c: self.column_mean(c) for c in self.columns},
                "overall": self.overall(), "errors": self.errors}


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


def matrix_tables(config: MatrixConfig, records: list[Record]) -> list[MatrixTable]:
    """One table per agent from the cells' records (errors count as missing, and are
    counted so the report can say a table is incomplete)."""
    rows = tuple(Path(s).stem for s in config.scenarios)
    columns = tuple(Path(n).stem for n in config.columns)
    tables = []
    for agent in config.agents:
        rates: dict[tuple[str, str], list[float]] = {}
        errors = 0
        for r in records:
            if r["agent"] != agent:
                continue
            if r["status"] == "ok":
                rates.setdefault((r["scenario"], r["novelty"]), []).append(r["success_rate"])
            elif r["status"] == "error":
                errors += 1
        cells: dict[tuple[str, str], float | None] = {
            k: float(np.mean(v)) for k, v in rates.items()}
        seeds = {k: len(v) for k, v in rates.items()}
        tables.append(MatrixTable(agent, rows, columns, cells, seeds, errors))
    return tables


def na_reasons(records: list[Record]) -> dict[tuple[str, str], str]:
    """Why each n/a pair cannot be run (the first line of the located error)."""
    return {(r["scenario"], r["novelty"]): r["reason"].splitlines()[0]
            for r in records if r["status"] == "n/a"}
