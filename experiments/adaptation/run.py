"""The adaptation study: the hybrid agent against novelties that break its plan, by seed.

    nesyworld adaptation --novelties axe fence distance fire chest --seeds 5 \\
        --out results/adaptation.jsonl

Each run (novelty, seed) adapts a fresh RapidLearn+ (or RapidLearn) agent to the novelty and
evaluates it frozen under the light protocol (experiments/protocol/adaptation.py; counts as
docs/COUNTS.md says). Runs go to a JSON-lines file as they finish, so an interrupted sweep
resumes where it stopped. The table gives the median T_adapt of the runs that adapted and
how many did; it is not the paper's protocol, so it is not set beside the paper's figures
(`nesyworld experiment table2` is).
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from nesyworld.experiments.protocol.adaptation import PROTOCOL

console = Console(stderr=True)


@dataclass(frozen=True)
class AdaptationRunSpec:
    """One run of the sweep."""

    spec: str = "pogostick"
    novelty: str = "axe"
    seed: int = 0
    agent: str = "rapidlearn+"
    step_budget: int = 60_000
    eval_episodes: int = 20
    max_episodes: int = 60
    minibatch: int | None = None
    """PPO's minibatch in the recoveries (None: RecoveryConfig's own, 128)."""
    passes: int | None = None
    """PPO's passes over each chunk (None: RecoveryConfig's own, 8)."""
    novelty_bias: float | None = None
    """The recoveries' prior bias of novel actions (None: RecoveryConfig's own, 2.0)."""
    batched_copies: int | None = None
    """Copies of the batched recovery env the recoveries train on (None: RecoveryConfig's
    own, 4; 0: its 2 RecoveryEnvs)."""
    planner: str | None = None
    """The agent's planner (None: PlanningConfig's, Fast Downward; `nesyworld run` plans
    `in-process`)."""
    knowledge: str = "closed"
    """The knowledge regime (hybrid/knowledge/regime.py): "closed", or the labelled
    "oracle" baseline."""
    refusals: str = "explained"
    """Whether the env says why it refused an action ("explained") or not ("silent")."""

    @property
    def setting(self) -> str:
        """The agent, with the settings that differ from its own ("rapidlearn+ 256x8",
        "rapidlearn+ bias0 in-process")."""
        parts = [self.agent]
        if self.minibatch is not None or self.passes is not None:
            parts.append(f"{self.minibatch or 'default'}x{self.passes or 'default'}")
        if self.novelty_bias is not None:
            parts.append(f"bias{self.novelty_bias:g}")
        if self.batched_copies is not None:
            parts.append(f"copies{self.batched_copies}")
        if self.planner is not None:
            parts.append(self.planner)
        # runs recorded before the regimes were named read the post-novelty world's model:
        # their keys (no regime part) stay the oracle's
        if self.knowledge != "oracle":
            parts.append(self.knowledge)
        if self.refusals != "explained":
            parts.append(f"{self.refusals}-refusals")
        return " ".join(parts)

    @property
    def key(self) -> str:
        return f"{self.spec}/{self.novelty}/{self.setting.replace(' ', '/')}/{self.seed}"


def run_one(config: AdaptationRunSpec) -> dict[str, Any]:
    """Adapt and evaluate one agent; a JSON-able record (heavy imports stay in the worker)."""
    from nesyworld.experiments.protocol.adaptation import adapt_and_evaluate
    from nesyworld.hybrid import HybridAgent, PlanningConfig, hybrid_configs
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

    start = time.perf_counter()
    recovery, repair = hybrid_configs(config.agent, config.seed, config.step_budget)
    ppo = recovery.ppo
    if config.minibatch is not None:
        ppo = replace(ppo, batch_size=config.minibatch)
    if config.passes is not None:
        ppo = replace(ppo, epochs_per_update=config.passes)
    recovery = replace(recovery, ppo=ppo)
    if config.novelty_bias is not None:
        recovery = replace(recovery, novelty_bias=config.novelty_bias)
    if config.batched_copies is not None:
        recovery = replace(recovery, batched_copies=config.batched_copies)
    planning = PlanningConfig(planner=config.planner) if config.planner else None
    env = NoveltyInjector(NesyGridEnv(config.spec, refusals=config.refusals),  # type: ignore[arg-type]
                          [config.novelty])
    agent = HybridAgent(env, KnowledgeBase.from_world(config.spec), planning, recovery,
                        novelty=config.novelty, repair=repair,
                        knowledge=config.knowledge)  # type: ignore[arg-type]
    result = adapt_and_evaluate(env, agent, seed=config.seed,
                                max_episodes=config.max_episodes,
                                eval_episodes=config.eval_episodes)
    return {"key": config.key, "config": asdict(config), "knowledge": config.knowledge,
            "refusals": config.refusals, **result.summary(),
            "learned_operators": sorted(agent.learned),
            "repaired_operators": sorted(e.operator.name for e in agent.kb
                                         if e.origin == "repaired"),
            "wall_seconds": round(time.perf_counter() - start, 2)}


def load_done(path: Path) -> dict[str, dict[str, Any]]:
    """Finished runs by key (the runner's reading, results_file.py: a last line cut short by
    a kill is skipped, and removed by the next append)."""
    from nesyworld.experiments.protocol.results_file import read_latest

    return read_latest(path).records


def sweep(configs: Sequence[AdaptationRunSpec], out: Path, workers: int = 2
          ) -> list[dict[str, Any]]:
    """Run what `out` does not hold yet, `workers` at a time, appending as runs finish."""
    done = load_done(out)
    todo = [c for c in configs if c.key not in done]
    if done:
        console.print(f"resuming: {len(configs) - len(todo)} of {len(configs)} runs in {out}")
    from nesyworld.experiments.protocol.results_file import RecordSink

    sink = RecordSink(out)  # locked; a last line cut short by a kill is removed first
    with ProcessPoolExecutor(max_workers=workers) as pool, contextlib.closing(sink):
        futures = {pool.submit(run_one, c): c for c in todo}
        for n, future in enumerate(as_completed(futures), 1):
            record = sink.write(future.result())
            done[record["key"]] = record
            t_adapt = record["t_adapt"]
            console.print(f"[{n}/{len(todo)}] {record['key']}: "
                          + (f"T_adapt {t_adapt:,} env steps" if t_adapt is not None
                             else f"not adapted ({record['env_steps']:,} env steps)")
                          + ", post-novelty success "
                          f"{record['post_novelty_success_rate']:.2f} "
                          f"({record['wall_seconds']:.0f} s)")
    return [done[c.key] for c in configs]


def _spread(values: list[float]) -> str:
    return f"{min(values):,.0f}-{max(values):,.0f}" if values else "-"


def summary_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per novelty and agent (light protocol): how many runs adapted, the median and range
    of their T_adapt, post-novelty success and wall time. Runs that did not adapt have no
    T_adapt and are counted apart, never averaged in."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        setting = AdaptationRunSpec(**r["config"]).setting
        groups.setdefault((r["config"]["novelty"], setting), []).append(r)
    rows = []
    for (novelty, agent), rs in groups.items():
        steps = [float(r["t_adapt"]) for r in rs if r["t_adapt"] is not None]
        success = [float(r["post_novelty_success_rate"]) for r in rs]
        rows.append({
            "protocol": PROTOCOL, "novelty": novelty, "agent": agent, "seeds": len(rs),
            "adapted": len(steps),
            "t_adapt_median": statistics.median(steps) if steps else None,
            "t_adapt_range": _spread(steps),
            "recoveries_median": statistics.median(len(r["recoveries"]) for r in rs),
            "post_novelty_success_median": statistics.median(success),
            "post_novelty_success_min": min(success),
            "wall_seconds_median": statistics.median(float(r["wall_seconds"]) for r in rs),
        })
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    table = Table(title="hybrid agent: adaptation to novelties, light protocol (median over "
                  "the seeds that adapted; docs/COUNTS.md)")
    for col in ("novelty", "agent", "seeds", "adapted", "T_adapt", "range", "recoveries",
                "post success (min)", "wall s"):
        table.add_column(col)
    for r in rows:
        median = r["t_adapt_median"]
        table.add_row(r["novelty"], r["agent"], str(r["seeds"]), str(r["adapted"]),
                      "-" if median is None else f"{median:,.0f}", r["t_adapt_range"],
                      f"{r['recoveries_median']:g}",
                      f"{r['post_novelty_success_median']:.2f} "
                      f"({r['post_novelty_success_min']:.2f})",
                      f"{r['wall_seconds_median']:.0f}")
    Console().print(table)


def main(argv: Sequence[str] | None = None) -> int:
    """`nesyworld adaptation` (experiments/cli/adaptation_commands.py), under its module name."""
    from nesyworld.experiments.cli.main import main as cli

    return cli(["adaptation", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    raise SystemExit(main())
