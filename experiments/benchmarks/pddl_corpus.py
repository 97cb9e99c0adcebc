"""How the PDDL reader does on a folder of other projects' PDDL, beside unified-planning's.

Our tests read a dozen domains; a user brings hundreds. Point this at a local checkout of a
benchmark collection (IPC domains, a course's exercises) and it reads every domain with a
few of its problems by both readers, and tells which pairs each one read, why the others were
refused, whether the two read the same problem (the same types, fluents and their defaults,
objects, actions, stated initial values and goals: `same_problem`), and how long each took.
The speed is a ratio to unified-planning's own reader on the pairs both read, measured in
the same run. Nothing is downloaded: the folder is yours.

    python -m nesyworld.experiments.benchmarks.pddl_corpus PATH [--per-folder 2] [--json]

Pairing, per folder: files are told apart by what they define (`(define (domain` or
`(define (problem`), not by their names. With one domain, it is paired with the first
`--per-folder` problems by name; with several, each is paired with the problem whose name is
the domain's without the word "domain" (`p01-domain.pddl` with `p01.pddl`), or else, when the
counts match, in name order. Folders that fit neither are counted as unpaired.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

READERS = ("nesyworld", "unified-planning")
_DEFINE = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)
_COMMENT = re.compile(r";[^\n]*")
_LOCATION = re.compile(r"^\S*:\d+:\d+: ")
HEAD_BYTES = 8192
"""How much of a file is read to tell a domain from a problem."""


@dataclass(frozen=True)
class Pair:
    domain: str
    problem: str


@dataclass(frozen=True)
class Outcome:
    """One reader on one pair: `read`, `refused` (an error it raised), or `timeout`."""

    domain: str
    problem: str
    reader: str
    status: str
    seconds: float
    message: str = ""


def kind_of(path: Path) -> str | None:
    """'domain', 'problem' or None, from what the file's first form defines."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    found = _DEFINE.search(_COMMENT.sub("", head))
    return found.group(1).lower() if found else None


def _bare(stem: str) -> str:
    return re.sub(r"[-_.]+", "", stem.lower().replace("domain", ""))


def pair_folder(domains: list[Path], problems: list[Path], per_folder: int) -> list[Pair]:
    """The pairs of one folder (module docstring), at most `per_folder` for one domain."""
    domains, problems = sorted(domains), sorted(problems)
    if not domains or not problems:
        return []
    if len(domains) == 1:
        return [Pair(str(domains[0]), str(p)) for p in problems[:per_folder]]
    by_name = {_bare(p.stem): p for p in problems}
    matched = [(d, by_name.get(_bare(d.stem))) for d in domains]
    if all(p is not None for _, p in matched):
        return [Pair(str(d), str(p)) for d, p in matched[:per_folder]]
    if len(domains) == len(problems):
        zipped = zip(domains, problems, strict=True)
        return [Pair(str(d), str(p)) for d, p in list(zipped)[:per_folder]]
    return []


def find_pairs(root: Path, per_folder: int) -> tuple[list[Pair], list[str]]:
    """Every folder's pairs under `root`, and the folders that hold PDDL but no pair."""
    folders: dict[Path, dict[str, list[Path]]] = {}
    for path in sorted(root.rglob("*.pddl")):
        kind = kind_of(path) if path.is_file() else None
        if kind is not None:
            folders.setdefault(path.parent, {"domain": [], "problem": []})[kind].append(path)
    pairs: list[Pair] = []
    unpaired: list[str] = []
    for folder, files in folders.items():
        found = pair_folder(files["domain"], files["problem"], per_folder)
        pairs.extend(found)
        if not found:
            unpaired.append(str(folder))
    return pairs, unpaired


class _Timeout(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """A SIGALRM deadline in the main thread; none where the platform has no alarm."""
    if not hasattr(signal, "setitimer") or seconds <= 0:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _ours(pair: Pair) -> Any:
    from nesyworld.symbolic.pddl import load_pddl_text, read_pddl

    return read_pddl(load_pddl_text(pair.domain), load_pddl_text(pair.problem),
              pair.domain, pair.problem)


def _unified_planning(pair: Pair) -> Any:
    from unified_planning.io import PDDLReader

    return PDDLReader().parse_problem(pair.domain, pair.problem)


_CALLS: dict[str, Callable[[Pair], Any]] = {"nesyworld": _ours,
                                             "unified-planning": _unified_planning}


def read_pair(pair: Pair, reader: str, timeout: float) -> tuple[Outcome, Any]:
    """One reader on one pair, its first error line kept as the reason; and the problem it
    read (None when it did not)."""
    start = time.perf_counter()
    status, message, problem = "read", "", None
    try:
        with _deadline(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            problem = _CALLS[reader](pair)
    except _Timeout:
        status, message = "timeout", f"over {timeout:g} s"
    except RecursionError:
        status, message = "refused", "RecursionError"
    except Exception as err:  # any refusal is a result here
        first = (str(err).strip().splitlines() or [""])[0]
        status, message = "refused", f"{type(err).__name__}: {first}"[:300]
    return Outcome(pair.domain, pair.problem, reader, status,
                   time.perf_counter() - start, message), problem


def same_problem(a: Any, b: Any) -> bool:
    """unified-planning's `Problem.__eq__` without its `initial_values`, which lists every
    grounding of every fluent (billions on some IPC problems): the values stated, each
    fluent's default and the rest compare the same problems in linear time."""
    return bool(
        a.kind == b.kind and set(a.user_types) == set(b.user_types)
        and set(a.fluents) == set(b.fluents)
        and a.fluents_defaults == b.fluents_defaults
        and set(a.all_objects) == set(b.all_objects)
        and set(a.actions) == set(b.actions)
        and a.explicit_initial_values == b.explicit_initial_values
        and set(a.goals) == set(b.goals)
        and a.quality_metrics == b.quality_metrics)


def reason(message: str) -> str:
    """A refusal's reason without its file:line:column, so that equal reasons count together."""
    kind, _, text = message.partition(": ")
    return f"{kind}: {_LOCATION.sub('', text)}"[:120]


def summarize(outcomes: list[Outcome], pairs: int, unpaired: list[str],
              readers: tuple[str, ...] = READERS) -> dict[str, object]:
    by_pair: dict[tuple[str, str], dict[str, Outcome]] = {}
    for o in outcomes:
        by_pair.setdefault((o.domain, o.problem), {})[o.reader] = o
    summary: dict[str, object] = {"pairs": pairs, "unpaired_folders": unpaired}
    for r in readers:
        mine = [o for o in outcomes if o.reader == r]
        summary[r] = {
            "status": dict(Counter(o.status for o in mine)),
            "reasons": dict(Counter(reason(o.message) for o in mine
                                    if o.status == "refused").most_common()),
        }
    if len(readers) == 2:
        both = [p for p in by_pair.values() if all(p[r].status == "read" for r in readers)]
        seconds = {r: sum(p[r].seconds for p in both) for r in readers}
        summary["read_by_both"] = len(both)
        summary["seconds_on_both"] = seconds
        if seconds[READERS[1]] > 0:
            summary["time_ratio"] = seconds[READERS[0]] / seconds[READERS[1]]
        only: dict[str, list[str]] = {r: [] for r in readers}
        for outcome in by_pair.values():
            read = [r for r in readers if outcome[r].status == "read"]
            if len(read) == 1:
                other = outcome[next(r for r in readers if r not in read)]
                only[read[0]].append(f"{other.problem}: {other.status} {other.message}".strip())
        summary["only"] = only
    return summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a folder of PDDL files, searched recursively")
    parser.add_argument("--per-folder", type=int, default=2,
                        help="problems read per folder (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per reader and pair (default 60; 0: none)")
    parser.add_argument("--no-compare", action="store_true",
                        help="our reader only, without unified-planning's")
    parser.add_argument("--json", action="store_true", help="the summary as JSON")
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        parser.error(f"{args.root}: not a folder")
    pairs, unpaired = find_pairs(args.root, max(1, args.per_folder))
    readers = READERS[:1] if args.no_compare else READERS
    outcomes: list[Outcome] = []
    if pairs:  # the readers' imports and grammars, outside the timing
        for r in readers:
            read_pair(pairs[0], r, args.timeout)
    start = time.perf_counter()
    differ: list[str] = []
    for i, pair in enumerate(pairs, 1):
        read = [read_pair(pair, r, args.timeout) for r in readers]
        outcomes.extend(outcome for outcome, _ in read)
        problems = [problem for _, problem in read]
        if len(problems) == 2 and None not in problems:
            try:
                with _deadline(args.timeout):
                    if not same_problem(*problems):
                        differ.append(pair.problem)
            except _Timeout:
                differ.append(f"{pair.problem} (not compared in {args.timeout:g} s)")
        elapsed = time.perf_counter() - start
        eta = elapsed / i * (len(pairs) - i)
        print(f"\r{i}/{len(pairs)} pairs, {elapsed:.0f} s, ETA {eta:.0f} s",
              end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    summary = summarize(outcomes, len(pairs), unpaired, readers)
    if len(readers) == 2:
        summary["different_problems"] = differ
    if args.json:
        summary["outcomes"] = [asdict(o) for o in outcomes]
        print(json.dumps(summary, indent=1))
        return
    print(f"{len(pairs)} domain-problem pairs, {len(unpaired)} folders without a pair")
    for r in readers:
        part = summary[r]
        assert isinstance(part, dict)
        print(f"{r}: " + ", ".join(f"{n} {s}" for s, n in sorted(part["status"].items())))
        for text, n in part["reasons"].items():
            print(f"  {n:4d}  {text}")
    if "read_by_both" in summary:
        both = summary["read_by_both"]
        assert isinstance(both, int)
        print(f"read by both: {both}, of which "
              f"{both - len(differ)} to the same problem; time on "
              f"those, ours over unified-planning's: {summary.get('time_ratio', float('nan')):.2f}")
        for problem in differ:
            print(f"  read differently: {problem}")
        only = summary["only"]
        assert isinstance(only, dict)
        for r, rows in only.items():
            print(f"read by {r} only: {len(rows)}")
            for row in rows[:20]:
                print(f"  {row}")


if __name__ == "__main__":
    main()
