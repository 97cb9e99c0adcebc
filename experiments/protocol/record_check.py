"""A results file's records checked before a report reads them.

Results files are JSON lines that people copy, merge and edit by hand; a report must not
crash on one that was damaged. `check_record` checks what the metrics, tables and figures read
(records.py's layout) and names the line and the field of the first thing wrong. Which lines
are records at all, and a last line cut short by a killed run, are results_file.py's business.
"""

from __future__ import annotations

import math
from typing import Any

from nesyworld.world.errors import Location, SpecError

PHASES = ("pre", "post")
STATUSES = ("ok", "error")
MAX_COUNT = 2**53
"""Counters up to what a float holds exactly; real runs stay far below."""


class _Check:
    def __init__(self, file: str, line: int) -> None:
        self.where = Location(file, line, 1)

    def fail(self, path: str, message: str, expected: str, found: object = None) -> SpecError:
        return SpecError(message, location=self.where, key_path=path, expected=expected,
                         found=found)

    def mapping(self, value: Any, path: str, required: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, "wrong type", "a JSON object", type(value).__name__)
        for key in required:
            if key not in value:
                raise self.fail(f"{path}.{key}" if path else key, "missing field",
                                f"the field '{key}' of a run record (records.py)")
        return value

    def text(self, value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise self.fail(path, "wrong type", "text", value)

    def count(self, value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise self.fail(path, "not a count", f"an integer from 0 to {MAX_COUNT}", value)

    def number(self, value: Any, path: str, low: float = -math.inf, high: float = math.inf,
               nan: bool = False) -> None:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and math.isnan(value):
            ok = nan
        elif ok:
            ok = low <= value <= high and math.isfinite(value)
        if not ok:
            expected = "a number" if (low, high) == (-math.inf, math.inf) else \
                f"a number from {low:g} to {high:g}"
            raise self.fail(path, "not a usable number", expected, value)

    def flag(self, value: Any, path: str) -> None:
        if not isinstance(value, bool):
            raise self.fail(path, "wrong type", "true or false", value)


def check_record(record: Any, file: str, line: int) -> None:
    """Raise a SpecError at `file:line` naming the first field a report could not use."""
    c = _Check(file, line)
    c.mapping(record, "", ("key", "spec"))
    c.text(record["key"], "key")
    spec = c.mapping(record["spec"], "spec", ("agent", "domain", "novelty", "seed"))
    for name in ("agent", "domain", "novelty"):
        c.text(spec[name], f"spec.{name}")
    c.count(spec["seed"], "spec.seed")
    if "protocol" in spec and not isinstance(spec["protocol"], dict):
        raise c.fail("spec.protocol", "wrong type", "a JSON object", spec["protocol"])
    status = record.get("status", "ok")
    if status not in STATUSES:
        raise c.fail("status", "unknown status", " or ".join(STATUSES), status)
    for name in ("error", "code_version", "started"):
        if name in record:
            c.text(record[name], name)
    if "wall_seconds" in record:
        c.number(record["wall_seconds"], "wall_seconds", 0.0)
    if status != "ok":
        return
    injection = c.mapping(record.get("novelty"), "novelty", ("env_steps", "actions",
                                                             "cpu_seconds"))
    _counters(c, injection, "novelty")
    curve = record.get("curve")
    if not isinstance(curve, list):
        raise c.fail("curve", "wrong type", "a list of evaluation points", curve)
    for i, point in enumerate(curve):
        path = f"curve[{i}]"
        c.mapping(point, path, ("phase", "epoch", "env_steps", "actions", "cpu_seconds",
                                "success_rate", "mean_steps", "converged"))
        if point["phase"] not in PHASES:
            raise c.fail(f"{path}.phase", "unknown phase", " or ".join(PHASES), point["phase"])
        c.count(point["epoch"], f"{path}.epoch")
        _counters(c, point, path)
        c.number(point["success_rate"], f"{path}.success_rate", 0.0, 1.0)
        c.number(point["mean_steps"], f"{path}.mean_steps", 0.0, nan=True)
        if "mean_reward" in point:
            c.number(point["mean_reward"], f"{path}.mean_reward", nan=True)
        c.flag(point["converged"], f"{path}.converged")
    detections = record.get("detections") or []
    if not isinstance(detections, list):
        raise c.fail("detections", "wrong type", "a list of detections", detections)
    for i, found in enumerate(detections):
        c.mapping(found, f"detections[{i}]", ("env_steps", "actions"))
        c.count(found["env_steps"], f"detections[{i}].env_steps")
        c.count(found["actions"], f"detections[{i}].actions")


def _counters(c: _Check, data: dict[str, Any], path: str) -> None:
    c.count(data["env_steps"], f"{path}.env_steps")
    c.count(data["actions"], f"{path}.actions")
    c.number(data["cpu_seconds"], f"{path}.cpu_seconds", 0.0)
