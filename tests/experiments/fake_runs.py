"""Stand-in run functions for testing the runner without agents.

They live in the package, not in a test module, because process-pool and Ray workers import
a run function by its "module:function" name, and test modules (imported by pytest with
--import-mode=importlib) are not importable by name from another process.

Behaviour is set through environment variables, which spawned workers inherit:
NESYWORLD_FAKE_LOG (a file: every call appends the run's key and the worker's pid, so a test
sees what ran where), NESYWORLD_FAKE_SLEEP (seconds each run with seed > 0 takes, so a sweep
can be killed mid-way while seed 0 finishes at once).
"""

from __future__ import annotations

import os
import time
from typing import Any

from nesyworld.experiments.protocol.records import RunSpec


def _log(spec: RunSpec) -> None:
    log = os.environ.get("NESYWORLD_FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{spec.key} {os.getpid()}\n")


def ok_run(spec: RunSpec) -> dict[str, Any]:
    """A successful run whose numbers are a function of the spec (100 env steps per epoch,
    seed + 1 epochs), so tests can check what was recorded."""
    _log(spec)
    if spec.seed > 0:
        time.sleep(float(os.environ.get("NESYWORLD_FAKE_SLEEP", "0")))
    epochs = spec.seed + 1
    curve = [{"phase": "pre" if e == 0 else "post", "epoch": e, "env_steps": 100 * (e + 1),
              "actions": 50 * (e + 1), "cpu_seconds": 0.01 * (e + 1), "success_rate": 1.0,
              "mean_steps": 50.0, "episodes": 2, "converged": True} for e in range(epochs)]
    return {"novelty": {"env_steps": 100, "actions": 50, "cpu_seconds": 0.01},
            "curve": curve, "detections": [], "pid": os.getpid()}


def flaky_run(spec: RunSpec) -> dict[str, Any]:
    """Like `ok_run`, but seed 1 raises: an agent bug that must not stop the sweep."""
    if spec.seed == 1:
        _log(spec)
        raise ValueError(f"fake failure in {spec.key}")
    return ok_run(spec)


def pretraining_run(spec: RunSpec) -> dict[str, Any]:
    """Like `ok_run`, but an RL agent's run first writes its pre-trained checkpoint when it is
    not there, as a real run does when its pre-training ends."""
    from nesyworld.experiments.protocol.pretraining import pretrained_checkpoint

    path = pretrained_checkpoint(spec)
    if path is not None and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"weights")
    return ok_run(spec)
