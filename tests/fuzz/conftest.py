"""The fuzz suite's harness: mutations of real files, and a guard that tells a clean refusal
from a crash or a hang.

Each `test_fuzz_<kind>.py` beside this file takes a shipped file of one kind, mutates it with
hypothesis (`Fuzz.mutant`) and feeds it through the public loader and a little use, inside
`Fuzz.run`. A run passes when the loader returns or raises one of the project's input errors
(nesyworld.experiments.errors); any other exception, or a call that takes longer than
HANG_SECONDS, fails the test with the input's label.

Budgets: ``NESYWORLD_FUZZ_EXAMPLES`` sets the examples per test; each file reads it as
``int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or <small default>)`` so that the suite stays
under a minute in CI. With ``NESYWORLD_FUZZ_REPORT=path``, the session writes its totals there
as JSON: inputs, uncaught, hangs, slowest call and peak memory. Run a large batch in one
process so that the totals are whole:
``NESYWORLD_FUZZ_EXAMPLES=1200 NESYWORLD_FUZZ_REPORT=fuzz.json pytest tests/fuzz -p no:xdist``.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import strategies as st

from nesyworld.experiments.errors import is_user_error

HANG_SECONDS = 5.0
ROOT = Path(__file__).resolve().parents[2]

BIG_NUMBERS = ("2147483648", "9223372036854775808", "1e309", "-1", "-2147483649", "nan",
               "inf", "0", "1e-320", "340282366920938463463374607431768211456")
ODD_TEXT = ("\x00", "\ufeff", "\u202e", "é", "\ud800", "🦄", "\t", "\r", "\\", "'", '"',
            "{", "}", "[", "]", "(", ")", ":", "- ", "&a ", "*a", "!!python/object:os.system ",
            "!custom ", "%YAML 1.1\n", "---\n", "...\n", "<<: *a\n", "?", "|", ">", "#", ";")


@dataclass
class Totals:
    inputs: int = 0
    uncaught: int = 0
    hangs: int = 0
    slowest: float = 0.0
    slowest_label: str = ""
    failures: list[str] = field(default_factory=list)


TOTALS = Totals()


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` in the code under
    test can swallow it."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang


class Fuzz:
    """What a fuzz test draws and runs; see the module docstring."""

    def mutant(self, data: st.DataObject, original: str) -> str:
        """`original` with one to three drawn edits: lines deleted, duplicated or swapped,
        truncation, odd characters, huge numbers, values of the wrong shape, deep nesting."""
        text = original
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            text = self._edit(data, text)
        return text

    def mutant_bytes(self, data: st.DataObject, original: bytes) -> bytes:
        """`original` with random bytes flipped, inserted or cut (invalid UTF-8 included)."""
        out = bytearray(original)
        for _ in range(data.draw(st.integers(1, 4), label="byte edits")):
            kind = data.draw(st.sampled_from(("flip", "insert", "cut")), label="byte edit")
            at = data.draw(st.integers(0, max(len(out) - 1, 0)), label="at")
            if kind == "flip" and out:
                out[at] = data.draw(st.integers(0, 255), label="byte")
            elif kind == "insert":
                out[at:at] = data.draw(st.binary(min_size=1, max_size=8), label="bytes")
            else:
                del out[at:at + data.draw(st.integers(1, 64), label="cut")]
        return bytes(out)

    def _edit(self, data: st.DataObject, text: str) -> str:
        lines = text.splitlines(keepends=True) or [""]
        kind = data.draw(st.sampled_from((
            "delete", "duplicate", "swap", "truncate", "odd", "number", "shape", "nest",
            "alias-bomb", "replace-token")), label="edit")
        i = data.draw(st.integers(0, len(lines) - 1), label="line")
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = data.draw(st.integers(0, len(lines) - 1), label="other line")
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "truncate":
            return text[: data.draw(st.integers(0, len(text)), label="length")]
        elif kind == "odd":
            at = data.draw(st.integers(0, len(lines[i])), label="column")
            piece = data.draw(st.sampled_from(ODD_TEXT) | st.text(max_size=4), label="odd")
            lines[i] = lines[i][:at] + piece + lines[i][at:]
        elif kind in ("number", "shape", "replace-token"):
            tokens = [t for t in _tokens(lines[i])]
            if tokens:
                start, end = data.draw(st.sampled_from(tokens), label="token")
                new = data.draw(st.sampled_from({
                    "number": BIG_NUMBERS,
                    "shape": ("[]", "{}", "[1, 2]", "{a: 1}", "null", "true", "''", "3.5",
                              "[[[[]]]]", "{x: {y: [z]}}", "-1", "~"),
                    "replace-token": ("a", "agent", "air", "x" * 300, "0", "-", "?x", "and",
                                      "not", "=", ":parameters", "(", ")"),
                }[kind]), label="new")
                lines[i] = lines[i][:start] + new + lines[i][end:]
        elif kind == "nest":
            depth = data.draw(st.sampled_from((10, 100, 1000, 5000)), label="depth")
            opener, closer = data.draw(st.sampled_from((("[", "]"), ("{a: ", "}"), ("(and ", ")"),
                                                         ("(", ")"))), label="brackets")
            lines.insert(i, opener * depth + "x" + closer * depth + "\n")
        elif kind == "alias-bomb":
            lines.insert(i, _ALIAS_BOMB)
        return "".join(lines)


    def run(self, label: str, call: Callable[[], object]) -> None:
        """Call `call()` under a HANG_SECONDS alarm; fail unless it returns or raises one of
        the project's input errors. `label` names the input in the failure."""
        TOTALS.inputs += 1
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
        start = time.perf_counter()
        try:
            call()
        except Hang:
            TOTALS.hangs += 1
            TOTALS.failures.append(f"hang: {label}")
            pytest.fail(f"{label}: no answer after {HANG_SECONDS} s", pytrace=False)
        except Exception as err:  # telling the two kinds apart is the point
            if not is_user_error(err):
                TOTALS.uncaught += 1
                TOTALS.failures.append(f"{type(err).__name__}: {label}")
                raise
            if "\n" in str(err).strip() and not _multiline_allowed(err):
                TOTALS.uncaught += 1
                pytest.fail(f"{label}: error of more than one line: {str(err)[:200]!r}",
                            pytrace=False)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            took = time.perf_counter() - start
            if took > TOTALS.slowest:
                TOTALS.slowest, TOTALS.slowest_label = took, label


def _tokens(line: str) -> list[tuple[int, int]]:
    """Spans of word-like tokens in a line (names, numbers, PDDL symbols)."""
    spans, start = [], None
    for k, ch in enumerate(line + " "):
        if ch.isalnum() or ch in "_-.?:":
            start = k if start is None else start
        elif start is not None:
            spans.append((start, k))
            start = None
    return spans


_ALIAS_BOMB = ("bomb_a: &a [x, x, x, x, x, x, x, x, x]\n"
               "bomb_b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
               "bomb_c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nbomb_d: &d [*c, *c, *c, *c, *c, *c]\n"
               "bomb_e: &e [*d, *d, *d, *d, *d, *d, *d, *d]\nbomb_f: &f [*e, *e, *e, *e, *e, *e]\n"
               "bomb_g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n")



def _multiline_allowed(err: BaseException) -> bool:
    """PDDL errors show the source line and a caret under it, as compilers do; their first
    line is the one-line message the CLI prints."""
    return type(err).__name__.startswith("PDDL")


@pytest.fixture
def fuzz() -> Fuzz:
    return Fuzz()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = os.environ.get("NESYWORLD_FUZZ_REPORT")
    if not out or TOTALS.inputs == 0:
        return
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    Path(out).write_text(json.dumps({
        "inputs": TOTALS.inputs, "uncaught": TOTALS.uncaught, "hangs": TOTALS.hangs,
        "slowest_seconds": round(TOTALS.slowest, 3), "slowest_input": TOTALS.slowest_label,
        "peak_rss_mb": round(peak_kb / 1024, 1), "failures": TOTALS.failures[:50],
    }, indent=2) + "\n")
