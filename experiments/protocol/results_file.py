"""Results files: one JSON record per line, appended by a sweep and read back as a stream.

A results file is the only state of a sweep (sweep.py), and it is input like any other file:
people copy, merge and edit them, and a path can name anything. So reading one costs memory in
proportion to the runs it holds, never to its lines (only the record that counts for each key
is kept while the file streams by; a file of 200 MB of tiny lines once took 7.5 GB as a list),
its time is bounded by a cap on lines as its size is by a cap on bytes, and what is not a run
is refused at its line rather than skipped: a file of something else says so at line 1.

The rules of a line:
- a blank line is skipped; every other line is one JSON object with a string "key": a run;
- the last line, when it lacks its newline, starts a JSON object and does not parse, is a
  record cut short (a sweep killed mid-write, or one still writing): readers skip it and say
  so (`torn_line`), and the next `RecordSink` on the file removes it, so it never becomes a
  broken line in the middle of the file;
- any other line is refused with its file:line:column and what was expected.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.input_files import irregular_kind, open_regular

Record = dict[str, Any]
Check = Callable[[Record, str, int], None]
"""A further check of each record (report.py's `check_record`): record, file, line."""

WHAT = "a JSON-lines results file written by `nesyworld experiment`"
MAX_RESULTS_BYTES = 1 << 30
"""A paper-protocol run's record is about 4 kB, so 10,000 runs are about 40 MB; a file of
more than a gigabyte is not a results file."""
MAX_LINE_BYTES = 16 * 2**20
"""One record: a paper-protocol run is about 4 kB, curves and an error's traceback included."""
MAX_RECORDS = 1_000_000
"""Record lines in one file: a run's every attempt is a line (a retried error adds one), so a
million is a hundred attempts at each of 10,000 runs; the bound keeps a reading to seconds."""
MAX_RUNS = 100_000
"""Distinct keys (runs) in one file: what a reader keeps in memory grows with them."""


class RunnerError(RuntimeError):
    """A sweep that cannot start or go on; the message says what to do."""


@dataclass
class LatestRecords:
    """Per key, the record that counts, from one reading of a results file."""

    records: dict[str, Record] = field(default_factory=dict)
    torn_line: int | None = None
    """The number of a last line cut short (skipped), or None."""


def read_latest(path: str | Path, check: Check | None = None, *,
                missing_ok: bool = True) -> LatestRecords:
    """Stream `path` and keep, per key, the last "ok" record, else the last error (see
    `latest_records`); each record goes through `check` first. A missing file is empty when
    `missing_ok`; every refusal is a SpecError at file:line."""
    out = LatestRecords()
    reader = RecordLines(path, missing_ok=missing_ok)
    for line, record in reader:
        if check is not None:
            try:
                check(record, str(path), line)
            except SpecError as err:
                raise err if out.records else _none_found(err) from None
        _keep_latest(out.records, record)
        if len(out.records) > MAX_RUNS:
            raise SpecError(f"more than {MAX_RUNS:,} runs", location=Location(str(path), line, 1),
                            expected=f"{WHAT} (at most {MAX_RUNS:,} distinct keys)")
    out.torn_line = reader.torn_line
    return out


def _none_found(err: SpecError) -> SpecError:
    """`err`, refusing the first record, saying that the file holds no run before it."""
    return SpecError(f"no runs found: {err.message}", location=err.location, file=err.file,
                     key_path=err.key_path, found=err.found, expected=err.expected)


def load_records(path: str | Path) -> list[Record]:
    """Every record of a results file, in order (a last line cut short is skipped). It holds
    every line: for tests and small files; sweeps and reports use `read_latest`."""
    return [record for _, record in RecordLines(path)]


def latest_records(records: Sequence[Record]) -> dict[str, Record]:
    """Per key, the record that counts: the last "ok" one, else the last error."""
    out: dict[str, Record] = {}
    for record in records:
        _keep_latest(out, record)
    return out


def _keep_latest(out: dict[str, Record], record: Record) -> None:
    key = record["key"]
    if record.get("status") == "ok" or out.get(key, {}).get("status") != "ok":
        out[key] = record


class RecordLines:
    """(line number, record) of each run of a results file, streamed: one line in memory at
    a time. After the iteration, `torn_line` holds the number of a last line cut short."""

    def __init__(self, path: str | Path, *, missing_ok: bool = True) -> None:
        self.path, self.file = Path(path), str(path)
        self.missing_ok = missing_ok
        self.torn_line: int | None = None
        self.count = 0

    def __iter__(self) -> Iterator[tuple[int, Record]]:
        try:
            handle = open_regular(self.path)
        except FileNotFoundError:
            if self.missing_ok:
                return
            raise SpecError("no such results file", file=self.file, expected=WHAT) from None
        except OSError as exc:
            raise SpecError(f"cannot read the file ({exc.strerror or type(exc).__name__})",
                            file=self.file, expected=WHAT) from None
        with handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_RESULTS_BYTES:
                raise SpecError(f"the file has {size:,} bytes, more than the "
                                f"{MAX_RESULTS_BYTES:,} allowed", file=self.file, expected=WHAT)
            yield from self._records(handle)

    def _records(self, handle: IO[bytes]) -> Iterator[tuple[int, Record]]:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            whole = raw.endswith(b"\n")
            if not whole and len(raw) > MAX_LINE_BYTES:
                raise self._refuse(number, 1, f"a line of more than {MAX_LINE_BYTES:,} bytes",
                                   f"one run record per line (at most {MAX_LINE_BYTES:,})")
            if not raw.strip():
                continue
            record = self._parse(raw, number, torn=not whole and raw.lstrip().startswith(b"{"))
            if record is None:
                self.torn_line = number
                return
            self.count += 1
            if self.count > MAX_RECORDS:
                raise self._refuse(number, 1, f"more than {MAX_RECORDS:,} records",
                                   f"{WHAT} (at most {MAX_RECORDS:,} record lines)")
            yield number, record

    def _parse(self, raw: bytes, number: int, torn: bool) -> Record | None:
        """The run on line `number`; None for a last line cut short (`torn`: it lacks its
        newline and starts an object); a SpecError for anything else."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            if torn:  # cut inside a character
                return None
            raise self._refuse(number, err.start + 1, "a byte that is not UTF-8 text",
                               "one JSON run record per line") from None
        try:
            record = json.loads(text)
        except (ValueError, RecursionError) as err:  # ValueError: JSONDecodeError, huge ints
            if torn:
                return None
            column = err.colno if isinstance(err, json.JSONDecodeError) else 1
            why = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
            raise self._refuse(number, column, f"not a JSON record ({why})",
                               "one JSON run record per line") from None
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            what = "an object without a string 'key'" if isinstance(record, dict) else \
                f"a JSON {type(record).__name__}"
            raise self._refuse(number, 1, f"not a run record ({what})",
                               "a JSON object with a string 'key' (records.py)")
        return record

    def _refuse(self, line: int, column: int, message: str, expected: str) -> SpecError:
        """The refusal of line `line`; before any run was read it also says none was found
        (a file of something else is refused at its first line)."""
        lead = "" if self.count else "no runs found: "
        return SpecError(lead + message, location=Location(self.file, line, column),
                         expected=expected)


class RecordSink:
    """The results file, opened for appending; each record is on disk when `write` returns.

    An exclusive lock stops a second sweep from writing the same file. A last line cut short
    by an earlier kill is removed first (its run never finished, and is run again), so it
    never ends up between two records; `mended` then says what was removed. A last line that
    is a whole record without its newline gets the newline.
    """

    def __init__(self, path: Path) -> None:
        kind = irregular_kind(path)
        if kind is not None:
            raise RunnerError(f"{path} is {kind}, not a regular file; expected {WHAT}")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.mended = ""
        self.file: IO[bytes] = path.open("a+b")
        try:
            import fcntl

            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # no POSIX locks (Windows): one sweep per file is on the user
            pass
        except OSError:
            self.file.close()
            raise RunnerError(f"{path} is being written by another sweep") from None
        self._mend()

    def _mend(self) -> None:
        size = self.file.seek(0, os.SEEK_END)
        if not size:
            return
        self.file.seek(size - 1)
        if self.file.read(1) == b"\n":
            return
        start = _line_start(self.file, size)
        self.file.seek(start)
        tail = self.file.read(min(size - start, MAX_LINE_BYTES + 1))
        if len(tail) > MAX_LINE_BYTES or not tail.lstrip().startswith(b"{"):
            self.file.write(b"\n")  # not a record cut short: not ours to delete; the reader
            return  # refuses it at its line
        try:
            whole = isinstance(json.loads(tail.decode("utf-8")), dict)
        except (ValueError, RecursionError):
            whole = False
        if whole:
            self.file.write(b"\n")
            return
        self.file.truncate(start)
        self.file.flush()
        os.fsync(self.file.fileno())
        self.mended = (f"{self.path}: removed the last line ({size - start:,} bytes), a record "
                       "cut short when a sweep was killed mid-write; its run runs again")

    def write(self, record: Record) -> Record:
        """Append a record; what was written, read back (so callers hold what the file does)."""
        line = json.dumps(record, default=_plain)
        self.file.write(line.encode("utf-8") + b"\n")
        self.file.flush()
        os.fsync(self.file.fileno())
        return json.loads(line)

    def close(self) -> None:
        self.file.close()


def _line_start(handle: IO[bytes], size: int, block: int = 1 << 16) -> int:
    """The offset just after the last newline before `size` (0: the file is one line)."""
    end = size
    while end > 0:
        begin = max(end - block, 0)
        handle.seek(begin)
        at = handle.read(end - begin).rfind(b"\n")
        if at >= 0:
            return begin + at + 1
        end = begin
    return 0


def _plain(value: Any) -> Any:
    """JSON for what a run function may return beyond plain types (numpy scalars, arrays)."""
    for attr in ("item", "tolist"):
        if hasattr(value, attr):
            try:
                return getattr(value, attr)()
            except (TypeError, ValueError):
                continue
    return str(value)


__all__ = ["MAX_RECORDS", "MAX_RESULTS_BYTES", "MAX_RUNS", "LatestRecords", "RecordLines",
           "RecordSink", "RunnerError", "latest_records", "load_records", "read_latest"]
