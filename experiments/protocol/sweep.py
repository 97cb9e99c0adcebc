"""Running an experiment's grid of independent runs, locally or on a Ray cluster.

A sweep can take days, and machines get rebooted, so the results file is the only state: one
JSON record per run (see records.py), appended and fsynced the moment the run finishes
(results_file.py reads and appends it). A
restarted sweep reads the file, skips every run recorded as "ok" and runs the rest, so no
finished run is redone or lost; a run that raised is recorded as "error" with its traceback
and is retried on the next start.

The function that performs one run is named by a "module:function" string, not passed as an
object, so that process-pool and Ray workers import it themselves, and tests can swap in a
fake one.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from nesyworld.experiments.protocol.config import ExperimentConfig
from nesyworld.experiments.protocol.records import RunSpec
from nesyworld.experiments.protocol.results_file import (
    RecordSink,
    RunnerError,
    latest_records,
    load_records,
    read_latest,
)
from nesyworld.experiments.protocol.scheduling import dispatch

DEFAULT_RUN_FN = "nesyworld.experiments.protocol.run:run_protocol"
Record = dict[str, Any]
RunFn = Callable[[RunSpec], dict[str, Any]]
RunArgs = tuple["str | RunFn", str, dict[str, Any]]
"""What every run of a sweep is given besides its spec: the run function, the code version
and the experiment (`execute_run`'s arguments)."""


# ---------------------------------------------------------------- records and their file


@lru_cache(maxsize=1)
def code_version() -> str:
    """The package version, plus the git commit (and `.dirty`) when running from a checkout
    of nesyworld, so a record says exactly which code produced it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        base = version("nesyworld")
    except PackageNotFoundError:
        base = "0+unknown"
    here = Path(__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=here, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()

    try:
        top = Path(git("rev-parse", "--show-toplevel"))
        pyproject = top / "pyproject.toml"  # only nesyworld's own checkout, not a repo that
        if 'name = "nesyworld"' not in pyproject.read_text(encoding="utf-8"):  # holds a venv
            return base
        commit = git("rev-parse", "--short", "HEAD")
        dirty = ".dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    except (OSError, subprocess.SubprocessError):
        return base
    return f"{base}{'.' if '+' in base else '+'}g{commit}{dirty}"


def record_env_steps(record: Record) -> int:
    """Env steps a run used (its curve is cumulative, so the last point holds the total)."""
    if "env_steps" in record:
        return int(record["env_steps"])
    curve = record.get("curve") or []
    return int(max((p.get("env_steps", 0) for p in curve), default=0))


# ---------------------------------------------------------------- one run, in a worker


def resolve_run_fn(run_fn: str | RunFn) -> RunFn:
    if callable(run_fn):
        return run_fn
    module, sep, name = run_fn.partition(":")
    if not sep or not module or not name:
        raise RunnerError(f"run function '{run_fn}' is not of the form 'module:function'")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise RunnerError(f"cannot import run function '{run_fn}': {exc}") from exc


def execute_run(run_fn: str | RunFn, spec: RunSpec, code: str,
                experiment: dict[str, Any]) -> Record:
    """Perform one run and wrap its result as a record; an exception becomes an "error"
    record, so one bad run never stops a sweep."""
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    try:
        result = dict(resolve_run_fn(run_fn)(spec))
        status, error = result.pop("status", "ok"), result.pop("error", "")
    except Exception:
        result, status, error = {}, "error", traceback.format_exc()
    return {**result, "key": spec.key, "spec": spec.as_dict(), "experiment": experiment,
            "code_version": code, "started": started,
            "wall_seconds": round(time.perf_counter() - t0, 3), "status": status,
            "error": error}


def crash_record(spec: RunSpec, code: str, experiment: dict[str, Any], why: str) -> Record:
    """The record of a run whose worker died under it (out of memory, a native crash)."""
    return {"key": spec.key, "spec": spec.as_dict(), "experiment": experiment,
            "code_version": code, "started": "", "wall_seconds": 0.0, "status": "error",
            "error": why}


def _watch_parent() -> None:
    """Pool-worker initializer: exit when the sweep's process is gone (killed with -9), so
    no orphan keeps computing a result nobody will record."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


# ---------------------------------------------------------------- backends


def _local(todo: Sequence[RunSpec], args: RunArgs, workers: int
           ) -> Generator[Record, None, None]:
    """Runs in a process pool (spawned workers: no fork of the display thread), yielded as
    they finish. A run is handed to the pool only when a worker is free, the one
    `next_run` chooses (scheduling.py): a pre-trained checkpoint is used before another is
    made."""
    import multiprocessing

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_watch_parent,
                               mp_context=multiprocessing.get_context("spawn"))
    clean = False
    pending: dict[Future[Record], RunSpec] = {}

    def wait_any(futures: list[Future[Record]], timeout: float | None) -> set[Future[Record]]:
        return wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)[0]

    def submit(spec: RunSpec) -> Future[Record]:
        return pool.submit(execute_run, args[0], spec, *args[1:])

    try:
        for future, spec in dispatch(todo, workers, submit, wait_any, pending):
            try:
                yield future.result()
            except Exception as exc:  # a worker died (the pool is gone), or pickling
                raise RunnerError(
                    f"the process pool failed at run {spec.key} ({exc!r}); finished "
                    "runs are saved, start the sweep again to resume") from exc
        clean = True
    finally:
        pool.shutdown(wait=clean, cancel_futures=True)


def _ray(todo: Sequence[RunSpec], args: RunArgs, workers: int | None,
         address: str | None) -> Generator[Record, None, None]:
    """The same runs as Ray tasks, one CPU each, yielded as they finish; as many in flight
    as `workers` (None: the cluster's CPUs), chosen as the pool's are."""
    try:
        import ray
    except ImportError:
        raise RunnerError("the ray backend needs Ray, an optional extra: "
                          "pip install nesyworld[ray]") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address)
        else:  # a local Ray of `workers` CPUs
            ray.init(num_cpus=workers, include_dashboard=False)
    from nesyworld.learning.training.logs import LOG_ROOT_ENV

    # `--logdir` reaches training runs through the environment (learning/training/logs.py),
    # which a process-pool worker inherits and a Ray worker does not: hand it over.
    logs = os.environ.get(LOG_ROOT_ENV)
    options: dict[str, Any] = ({"runtime_env": {"env_vars": {LOG_ROOT_ENV: logs}}}
                               if logs else {})
    task = ray.remote(num_cpus=1, max_retries=0, **options)(execute_run)
    slots = workers or max(int(ray.cluster_resources().get("CPU", 1)), 1)
    pending: dict[Any, RunSpec] = {}

    def wait_any(refs: list[Any], timeout: float | None) -> list[Any]:
        return ray.wait(refs, num_returns=1, timeout=timeout)[0]

    try:
        for ref, spec in dispatch(todo, slots, lambda s: task.remote(args[0], s, *args[1:]),
                                  wait_any, pending):
            try:
                yield ray.get(ref)
            except Exception as exc:  # the task's worker died; the others go on
                yield crash_record(spec, *args[1:], why=f"Ray worker failed: {exc!r}")
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


# ---------------------------------------------------------------- the sweep


def run_experiment(config: ExperimentConfig, out: Path,
                   run_fn: str | RunFn = DEFAULT_RUN_FN, backend: str | None = None,
                   address: str | None = None, progress: bool = True) -> list[Record]:
    """Run every run of `config` that `out` does not hold as "ok" yet; the record of each
    run of the grid, in `config.runs()` order.

    `backend` defaults to the config's; `workers` comes from the config (None: one per
    CPU). `run_fn` must be importable by the workers: a "module:function" string, or a
    module-level function.
    """
    out = Path(out)
    backend = backend or config.backend
    if backend not in ("local", "ray"):
        raise RunnerError(f"unknown backend '{backend}'; expected local or ray")
    runs = config.runs()
    sink = RecordSink(out)  # lock first: nobody else appends while we read
    try:
        if sink.mended:
            print(f"nesyworld: note: {sink.mended}", file=sys.stderr)
        latest = read_latest(out).records
        _check_same_specs(runs, latest, out)
        todo = [s for s in runs if latest.get(s.key, {}).get("status") != "ok"]
        if todo:
            resolve_run_fn(run_fn)  # a typo fails here, not once per run in the workers
        args: RunArgs = (run_fn, code_version(), config.as_dict())
        workers = config.workers or os.cpu_count() or 1
        if backend == "ray":
            results = _ray(todo, args, config.workers, address)
        else:
            results = _local(todo, args, min(workers, max(len(todo), 1)))
        with _Display(config.name, runs, latest, progress) as display:
            if todo:
                with contextlib.closing(results):  # a Ctrl-C stops the workers now
                    for result in results:
                        record = sink.write(result)
                        latest[record["key"]] = record
                        display.finished(record)
    finally:
        sink.close()
    return [latest[s.key] for s in runs if s.key in latest]


def _check_same_specs(runs: Sequence[RunSpec], latest: dict[str, Record], out: Path) -> None:
    """A key recorded under other budgets would mix two protocols in one table: refuse."""
    for spec in runs:
        record = latest.get(spec.key)
        if record is None:
            continue
        try:
            # a record that names its regime beside its spec (written before the spec held
            # it) ran in that regime
            data = {**{k: record[k] for k in ("knowledge", "refusals") if k in record},
                    **record["spec"]}
            same = RunSpec.from_dict(data) == spec
        except (KeyError, TypeError, ValueError):
            same = False
        if not same:
            raise RunnerError(f"{out} already holds run {spec.key} with a different spec "
                              f"({record.get('spec')}); write this sweep to another file "
                              "(--out)")


class _EtaColumn(ProgressColumn):
    """Time left, from this session's throughput (the rate of resumed runs is unknown)."""

    def render(self, task: Task) -> Text:
        done = task.completed - task.fields["resumed"]
        left = (task.total or 0) - task.completed
        elapsed = task.elapsed or 0.0
        if left <= 0:
            return Text("done", style="progress.remaining")
        if done <= 0 or elapsed <= 0:
            return Text("ETA -:--:--", style="progress.remaining")
        seconds = int(left * elapsed / done)
        return Text(f"ETA {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}",
                    style="progress.remaining")


class _Display:
    """The live progress display on stderr: runs done / total, env steps, errors, ETA, and a
    line per finished run."""

    def __init__(self, name: str, runs: Sequence[RunSpec], latest: dict[str, Record],
                 enabled: bool) -> None:
        self.enabled = enabled
        keys = {s.key for s in runs}
        ok = [r for k, r in latest.items() if k in keys and r.get("status") == "ok"]
        self.steps = sum(record_env_steps(r) for r in ok)
        self.errors = 0
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("runs  {task.fields[steps]:,} env steps  {task.fields[errors]} errors"),
            TimeElapsedColumn(), _EtaColumn(), console=Console(stderr=True),
            disable=not enabled)
        self.task = self.progress.add_task(name, total=len(runs), completed=len(ok),
                                           resumed=len(ok), steps=self.steps, errors=0)
        if enabled and ok:
            self.progress.console.print(f"resuming {name}: {len(ok)} of {len(runs)} runs "
                                        "already recorded")

    def __enter__(self) -> _Display:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def finished(self, record: Record) -> None:
        ok = record.get("status") == "ok"
        if ok:
            self.steps += record_env_steps(record)
        else:
            self.errors += 1
        self.progress.update(self.task, advance=1, steps=self.steps, errors=self.errors)
        if self.enabled:
            last = (record.get("error") or "").strip().splitlines()[-1:] or [""]
            text = (f"[green]ok[/green]    {record['key']}  {record['wall_seconds']:.1f} s  "
                    f"{record_env_steps(record):,} steps" if ok else
                    f"[red]error[/red] {record['key']}  {last[0]}")
            self.progress.console.print(text, highlight=False)


__all__ = ["DEFAULT_RUN_FN", "RecordSink", "RunnerError", "code_version", "execute_run",
           "latest_records", "load_records", "record_env_steps", "resolve_run_fn",
           "run_experiment"]
