"""How fast could training be at most? FLOPs per training env step, counted on the real path,
and this machine's matrix-product rate, measured on the shapes that path uses, in the same run.

Every env step of training costs a fixed number of matrix-product FLOPs, set by the settings
alone (the actor's forward in collection; the value and log-prob passes; `passes` forward and
backward passes of actor and critic; ICM's networks): everything is linear in the rows of a
chunk, so neither the chunk length nor the minibatch size changes it, only `passes`, ICM and
the networks' sizes. The minibatch does change the SHAPES, and small products run at a lower
rate, so the rate is measured on the very shapes counted. Then

    ceiling (env steps/s) = matmul rate (FLOP/s) / FLOPs per env step

is a rate no implementation with those settings can beat on that many threads: it counts only
matrix products, as torch calls them (each call's dispatch included, which any torch
implementation pays: measured, under 1% of the products' time at minibatch 2048 and 4-6% at
64); elementwise ops, the optimiser, Python and the env come on top. So it is an upper bound;
a target above it is out of reach at those settings on that many threads, whatever the code.

Threads: the rows train on one (TrainConfig.torch_threads). The rate is also measured on two,
but on a 2-core machine where anything else runs, each 2-thread product waits for the busy
core, so that figure says as much about the load as about the machine; "2 cores, ideal" is
twice the 1-thread ceiling, both cores multiplying with no loss: the most two cores allow.

Counting uses `torch.utils.flop_counter.FlopCounterMode` (2·m·k·n per product, forward and
backward) around the trainer's own pieces (`make_envs`, `build_learner`, `Rollout`,
`algorithm.update`, as learning/training/trainer.py's loop uses them); evaluation is left out,
as the training rate leaves it out. Note: in torch 2.13 the mode's first dispatched op imports
`torch._dynamo`, so count after timing anything that must run without it.

    python -m nesyworld.experiments.benchmarks.roofline --envs 64 --chunk 4096
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from tianshou.utils.torch_utils import policy_within_training_step
from torch.utils.flop_counter import FlopCounterMode

from nesyworld.experiments.benchmarks.minimal_ppo import MinimalPPO
from nesyworld.experiments.benchmarks.minimal_ppo import run as run_minimal_ppo
from nesyworld.experiments.benchmarks.training_cases import (
    SPEC,
    BenchmarkCase,
    axe_failure,
    ppo_settings,
    recovery_setting,
)
from nesyworld.learning import ICMConfig, PPOConfig, TrainConfig, VectorEnvFactory, build_learner
from nesyworld.learning.training.envs import EnvFactory, make_envs
from nesyworld.learning.training.rollout import Rollout, step_envs
from nesyworld.symbolic.knowledge_base import KnowledgeBase

__all__ = ["CeilingRow", "FlopCount", "Matmul", "MatmulClock", "Roofline", "chunk_steps",
           "count_minimal_ppo_flops", "count_setting", "count_training_flops", "measure_row",
           "roofline"]

aten = torch.ops.aten


@dataclass(frozen=True)
class Matmul:
    """One matrix product as it reached torch: (m x k) @ (k x n), whether each operand was a
    transposed view (backward passes multiply by W and by gradᵀ), and whether a bias was added
    (addmm: a Linear's forward)."""

    m: int
    k: int
    n: int
    a_transposed: bool = False
    b_transposed: bool = False
    bias: bool = False

    @property
    def flops(self) -> int:
        return 2 * self.m * self.k * self.n


@dataclass(frozen=True)
class FlopCount:
    """Matrix-product FLOPs of `env_steps` training env steps."""

    env_steps: int
    flops: int
    collection_flops: int | None
    """Of `flops`, those of collecting the steps (None where the run does not say)."""
    matmuls: tuple[tuple[Matmul, int], ...]
    """Each product shape met and how often: what the rate is measured on."""

    @property
    def per_step(self) -> float:
        return self.flops / self.env_steps

    @property
    def calls(self) -> int:
        return sum(n for _, n in self.matmuls)


class _Recorder:
    """Formulas for FlopCounterMode that also note each product's shape and layout."""

    def __init__(self) -> None:
        self.calls: Counter[Matmul] = Counter()

    def _note(self, a: torch.Tensor, b: torch.Tensor, bias: bool) -> int:
        (m, k), n = a.shape, b.shape[1]
        mm = Matmul(m, k, n, _transposed(a), _transposed(b), bias)
        self.calls[mm] += 1
        return mm.flops

    def mapping(self) -> dict[Any, Callable[..., int]]:
        def mm(a: torch.Tensor, b: torch.Tensor, *_: Any, **__: Any) -> int:
            return self._note(a, b, bias=False)

        def addmm(_c: torch.Tensor, a: torch.Tensor, b: torch.Tensor, *__: Any,
                  **___: Any) -> int:
            return self._note(a, b, bias=True)

        for formula in (mm, addmm):
            # tensors, not shapes: the function attribute FlopCounterMode reads
            formula.__dict__["_get_raw"] = True
        return {aten.mm: mm, aten.addmm: addmm}


def _transposed(t: torch.Tensor) -> bool:
    return not t.is_contiguous() and t.t().is_contiguous()


@contextmanager
def _threads(n: int) -> Iterator[None]:
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


@contextmanager
def _counting() -> Iterator[tuple[FlopCounterMode, _Recorder]]:
    """A FLOP counter that leaves torch's and numpy's global random state as it found it.
    One thread: the count does not depend on it, and on a busy 2-core machine every op
    with 2 threads waits for the other core (the count took 4 times as long)."""
    recorder, np_state = _Recorder(), np.random.get_state()
    try:
        with _threads(1), torch.random.fork_rng(devices=[]), \
                FlopCounterMode(display=False, custom_mapping=recorder.mapping()) as counter:
            yield counter, recorder
    finally:
        np.random.set_state(np_state)


def chunk_steps(config: TrainConfig) -> int:
    """Env steps of the trainer's first chunk (as trainer.py's loop sizes it)."""
    n = min(config.collect_chunk, config.epoch_length, config.step_budget)
    return max(n // config.num_envs, 1) * config.num_envs


def count_training_flops(config: TrainConfig, ppo: PPOConfig, icm: ICMConfig | None = None,
                         *, env_factory: EnvFactory | None = None,
                         vector_env_factory: VectorEnvFactory | None = None,
                         chunks: int = 1) -> FlopCount:
    """Matrix-product FLOPs of `chunks` chunks of training (collection, then the update), on
    the envs `train` would make from the factory, as the trainer runs them; no evaluation."""
    venvs: list[Any] = []
    with _counting() as (counter, recorder):
        torch.manual_seed(config.seed)
        np.random.seed(config.seed)
        try:
            spaces = make_envs(env_factory, vector_env_factory, config, "success", venvs)
            venvs[0].seed(config.seed if config.env_seed is None else config.env_seed)
            learner = build_learner(*spaces, ppo, icm, config.deterministic_eval)
            policy = learner.ppo.policy
            rollout = Rollout(step_envs(venvs[0]), policy.actor)
            steps = collection = 0
            for _ in range(chunks):
                with policy_within_training_step(policy):
                    before = counter.get_total_flops()
                    buffer, chunk = rollout.collect(chunk_steps(config))
                    collection += counter.get_total_flops() - before
                    learner.algorithm.update(buffer=buffer, batch_size=ppo.batch_size,
                                             repeat=ppo.epochs_per_update)
                steps += chunk.steps
        finally:
            for venv in venvs:
                venv.close()
    return FlopCount(steps, counter.get_total_flops(), collection,
                     tuple(sorted(recorder.calls.items(), key=lambda kv: -kv[0].flops)))


def count_minimal_ppo_flops(cfg: MinimalPPO, chunks: int = 1) -> FlopCount:
    """The same for the minimal PPO of minimal_ppo.py (its own `run`, untouched)."""
    steps = chunks * cfg.rollout * cfg.envs
    with _counting() as (counter, recorder):
        run_minimal_ppo(cfg, steps)
    return FlopCount(steps, counter.get_total_flops(), None,
                     tuple(sorted(recorder.calls.items(), key=lambda kv: -kv[0].flops)))


def count_setting(setting: BenchmarkCase, chunks: int = 1) -> FlopCount:
    """`count_training_flops` of a training row."""
    return count_training_flops(setting.train, setting.ppo, setting.icm, chunks=chunks,
                                env_factory=setting.env_factory,
                                vector_env_factory=setting.vector_env_factory)


def _near(mm: Matmul, timed: Matmul) -> bool:
    """`mm` is `timed` but for one dimension, at most 1/8 smaller."""
    if (mm.a_transposed, mm.b_transposed, mm.bias) != (timed.a_transposed,
                                                       timed.b_transposed, timed.bias):
        return False
    dims = [(a, b) for a, b in zip((mm.m, mm.k, mm.n), (timed.m, timed.k, timed.n), strict=True)
            if a != b]
    return len(dims) == 1 and 7 * dims[0][1] <= 8 * dims[0][0] < 8 * dims[0][1]


class MatmulClock:
    """Seconds per call of each product shape at each thread count: the best of `repeats`
    timed loops of at least `min_seconds` (others' jobs on a shared machine only ever slow a
    loop down, so the best is the least disturbed), remembered for the rest of the run.

    A shape within 1/8 in one dimension of a larger one already timed (row counts vary: a
    chunk's last minibatch is its short remainder, or the remainder merged into the one
    before) takes that one's time scaled by their FLOPs: small products run no faster than
    large ones, so the estimate errs towards a higher ceiling, as an upper bound may."""

    def __init__(self, repeats: int = 5, min_seconds: float = 0.003) -> None:
        self.repeats, self.min_seconds = repeats, min_seconds
        self._seconds: dict[tuple[Matmul, int], float] = {}
        self._timed: dict[int, list[Matmul]] = {}

    def seconds(self, mm: Matmul, threads: int) -> float:
        key = (mm, threads)
        if key not in self._seconds:
            near = next((t for t in self._timed.get(threads, []) if _near(mm, t)), None)
            if near is not None:
                self._seconds[key] = self._seconds[near, threads] * mm.flops / near.flops
            else:
                with _threads(threads), torch.no_grad():
                    self._seconds[key] = self._time(mm)
                self._timed.setdefault(threads, []).append(mm)
        return self._seconds[key]

    def _time(self, mm: Matmul) -> float:
        a = torch.randn(mm.k, mm.m).t() if mm.a_transposed else torch.randn(mm.m, mm.k)
        b = torch.randn(mm.n, mm.k).t() if mm.b_transposed else torch.randn(mm.k, mm.n)
        c = torch.randn(mm.n)

        def call() -> torch.Tensor:
            return torch.addmm(c, a, b) if mm.bias else torch.mm(a, b)

        def loop(n: int) -> float:
            start = time.perf_counter()
            for _ in range(n):
                call()
            return time.perf_counter() - start

        loops, took = 1, loop(1)  # the first call also warms the kernel
        while took < self.min_seconds:
            loops = max(2 * loops, math.ceil(loops * self.min_seconds / max(took, 1e-9)))
            took = loop(loops)
        return min(took, *(loop(loops) for _ in range(self.repeats))) / loops

    def rate(self, matmuls: Sequence[tuple[Matmul, int]], threads: int) -> float:
        """FLOP/s of this mix of products with `threads` torch threads (torch's own thread
        count is restored afterwards)."""
        flops = sum(mm.flops * n for mm, n in matmuls)
        return flops / sum(self.seconds(mm, threads) * n for mm, n in matmuls)


@dataclass(frozen=True)
class Roofline:
    """A FLOP count against the rate of its own products on `threads` threads."""

    threads: int
    flops_per_step: float
    gflops: float
    dispatch_share: float
    """Of the products' time, what as many 1x1 products take: torch's per-call floor."""

    @property
    def ceiling(self) -> float:
        """Env steps/s that the matrix products alone allow."""
        return self.gflops * 1e9 / self.flops_per_step


def roofline(count: FlopCount, clock: MatmulClock, threads: int = 1) -> Roofline:
    """The ceiling of `count` at `threads`. FLOPs outside mm/addmm (none in these networks)
    are taken at the products' rate."""
    rate = clock.rate(count.matmuls, threads)
    seconds = sum(mm.flops * n for mm, n in count.matmuls) / rate
    floor = clock.seconds(Matmul(1, 1, 1), threads) * count.calls
    return Roofline(threads, count.per_step, rate / 1e9, floor / seconds)


@dataclass(frozen=True)
class CeilingRow:
    """One setting's FLOPs, rates and ceilings (`by_threads`: the thread counts measured)."""

    name: str
    target: float
    mflop_per_step: float
    collection_mflop_per_step: float
    minimal_ppo_mflop_per_step: float
    by_threads: tuple[Roofline, ...]

    @property
    def ideal_two_cores(self) -> float:
        """Twice the 1-thread ceiling: both cores busy on products, perfectly split."""
        return 2 * next(r.ceiling for r in self.by_threads if r.threads == 1)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "by_threads"}
        for r in self.by_threads:
            out[f"gflops_{r.threads}_threads"] = r.gflops
            out[f"ceiling_{r.threads}_threads"] = r.ceiling
            out[f"reachable_{r.threads}_threads"] = r.ceiling >= self.target
            out[f"dispatch_share_{r.threads}_threads"] = r.dispatch_share
        if any(r.threads == 1 for r in self.by_threads):
            out["ceiling_two_cores_ideal"] = self.ideal_two_cores
            out["reachable_two_cores_ideal"] = self.ideal_two_cores >= self.target
        return out


def measure_row(setting: BenchmarkCase, clock: MatmulClock, threads: Sequence[int] = (1, 2),
                chunks: int = 1) -> CeilingRow:
    count = count_setting(setting, chunks)
    reference = count_minimal_ppo_flops(setting.reference, chunks)
    assert count.collection_flops is not None
    return CeilingRow(setting.name, setting.target, count.per_step / 1e6,
               count.collection_flops / count.env_steps / 1e6, reference.per_step / 1e6,
               tuple(roofline(count, clock, t) for t in threads))


def settings(envs: int, chunk: int, minibatch: int, passes: int,
             recovery: bool = True) -> list[BenchmarkCase]:
    """The issue's rows: `ppo_settings`, and recovery training on the Axe failure with the
    recovery's own settings whatever the others."""
    out = ppo_settings(2 * chunk, envs, chunk, minibatch, passes)
    if recovery:
        kb = KnowledgeBase.from_world(SPEC)
        out.append(recovery_setting(*axe_failure(kb), kb))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--envs", type=int, default=64, help="copies for the PPO rows")
    parser.add_argument("--chunk", type=int, default=4096, help="PPO rows' env steps a chunk")
    parser.add_argument("--minibatch", type=int, default=2048, help="PPO rows' minibatch")
    parser.add_argument("--passes", type=int, default=4, help="PPO rows' passes per chunk")
    parser.add_argument("--chunks", type=int, default=1, help="chunks counted per row")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=7, help="best of, per product shape")
    parser.add_argument("--skip-recovery", action="store_true", help="no recovery row")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    clock = MatmulClock(args.repeats)
    rows = [measure_row(s, clock, args.threads, args.chunks) for s in
            settings(args.envs, args.chunk, args.minibatch, args.passes, not args.skip_recovery)]
    if args.json:
        print(json.dumps({"envs": args.envs, "chunk": args.chunk, "minibatch": args.minibatch,
                          "passes": args.passes, "repeats": args.repeats,
                          "threads": args.threads, "rows": [r.as_dict() for r in rows]},
                         indent=2))
        return
    _print_table(rows)


def _print_table(rows: list[CeilingRow]) -> None:
    from rich.console import Console
    from rich.table import Table

    threads = [r.threads for r in rows[0].by_threads] if rows else []
    table = Table(title="FLOP ceilings of training (matrix products only: upper bounds)")
    table.add_column("setting")
    for col in ("MFLOP / env step\n(collection)", "minimal PPO\nMFLOP / step",
                *(f"GFLOP/s\n{t} thread{'s' * (t > 1)}" for t in threads),
                *(f"ceiling\n{t} thread{'s' * (t > 1)}" for t in threads),
                "ceiling, 2 cores\nideal (2 × 1 thr.)", "target", "reachable?"):
        table.add_column(col, justify="right")
    for r in rows:
        d = r.as_dict()
        reach = [f"{t} thr.: {'yes' if d[f'reachable_{t}_threads'] else 'no'}" for t in threads]
        if "reachable_two_cores_ideal" in d:
            reach.append(f"2 × 1: {'yes' if d['reachable_two_cores_ideal'] else 'no'}")
        table.add_row(r.name, f"{r.mflop_per_step:.2f}\n({r.collection_mflop_per_step:.2f})",
                      f"{r.minimal_ppo_mflop_per_step:.2f}",
                      *(f"{x.gflops:.1f}" for x in r.by_threads),
                      *(f"{x.ceiling:,.0f}" for x in r.by_threads),
                      f"{d.get('ceiling_two_cores_ideal', math.nan):,.0f}",
                      f"{r.target:,.0f}", "\n".join(reach))
    Console(width=max(Console().width, 160)).print(table)


if __name__ == "__main__":
    main()
