"""Read PDDL domains, problems and plans into unified-planning objects, with precise errors.

Why not ``unified_planning.io.PDDLReader``: its pyparsing errors rarely point at the token that
is wrong, and it rejects the Metric-FF dialect that NovelGym generates (a type under two parents,
problem objects used inside the domain, objects named like types).  This reader uses a lark LALR
grammar (``grammar.lark``) for the layout and :mod:`.semantics` for the meaning; every
error is a :class:`PDDLSyntaxError` or :class:`PDDLSemanticError` carrying file, line, column,
and every tolerated dialect feature is a :class:`PDDLDialectWarning`.

Public API: :func:`read_domain`, :func:`read_problem`, :func:`read_pddl`, :func:`read_plan`;
a problem's overview is :func:`nesyworld.symbolic.pddl.summary.summarize`.
"""

from __future__ import annotations

import functools
import re
import warnings
from importlib.resources import files
from typing import TYPE_CHECKING

import unified_planning.model as upm
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from nesyworld.symbolic.pddl.declarations import Domain, domain_from_tree
from nesyworld.symbolic.pddl.errors import (
    PDDLDialectWarning,
    PDDLError,
    PDDLFileError,
    PDDLLimitError,
    PDDLSemanticError,
    PDDLSyntaxError,
    Source,
    shown,
)
from nesyworld.symbolic.pddl.limits import (
    MAX_PLAN_STEPS,
    check_text,
    check_token,
    load_pddl_text,
    text_from_bytes,
)
from nesyworld.symbolic.pddl.semantics import ProblemBuilder
from nesyworld.symbolic.pddl.summary import type_name

if TYPE_CHECKING:
    from unified_planning.plans import SequentialPlan

__all__ = [
    "Domain",
    "PDDLDialectWarning",
    "PDDLError",
    "PDDLFileError",
    "PDDLLimitError",
    "PDDLSemanticError",
    "PDDLSyntaxError",
    "load_pddl_text",
    "read_domain",
    "read_pddl",
    "read_plan",
    "read_problem",
    "text_from_bytes",
]

# How terminals are named in "expected one of" lists; literal keywords are shown quoted.
_TERMINAL_WORDS = {
    "NAME": "a name",
    "VARIABLE": "a ?variable",
    "NUMBER": "a number",
    "REQUIREMENT": "a :requirement",
    "COMPARATOR": "a comparison (< <= > >=)",
    "ARITHMETIC": "an operator (+ * /)",
    "$END": "end of input",
}

# Sections of later PDDL versions that the grammar does not take, said by name.
_UNSUPPORTED = {
    ":durative-action": "durative actions (temporal PDDL 2.1) are not supported",
    ":derived": "derived predicates (PDDL 2.2) are not supported",
    ":constraints": "constraints (PDDL 3) are not supported",
    ":process": "processes (PDDL+) are not supported",
    ":event": "events (PDDL+) are not supported",
}


@functools.cache
def _parser() -> Lark:
    """The LALR parser, built once: the contextual lexer keeps keywords usable as names."""
    grammar = files(__package__ or "nesyworld.symbolic.pddl").joinpath("grammar.lark")
    return Lark(
        grammar.read_text(encoding="utf-8"),
        parser="lalr",
        start=["domain", "problem", "plan_step"],
        propagate_positions=True,
    )


def _describe(terminal: str) -> str:
    if terminal in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[terminal]
    pattern = _parser().get_terminal(terminal).pattern
    return f"'{pattern.value}'" if pattern.type == "str" else terminal.lower()


def _parse(source: Source, start: str, line_offset: int = 0) -> Tree:
    """Parse with ``start``; ``line_offset`` places a single plan line within its file."""
    try:
        tree = _parser().parse(source.text, start=start)
    except UnexpectedInput as err:
        raise _syntax_error(err, source, line_offset) from None
    # PDDL is case-insensitive.  (Not a lexer callback: lark 1.3 applies a callback on NAME,
    # which also has keyword callbacks, only when it is the last one registered.)
    for sub in tree.iter_subtrees():
        for kid in sub.children:
            if isinstance(kid, Token):
                check_token(kid, source, line_offset)
        sub.children = [
            kid.update(value=kid.lower())
            if isinstance(kid, Token) and kid.type in ("NAME", "VARIABLE")
            else kid
            for kid in sub.children
        ]
    return tree


def _syntax_error(err: UnexpectedInput, source: Source, line_offset: int) -> PDDLSyntaxError:
    """Turn lark's error into one that names the token found and the tokens that would fit."""
    text = source.text
    expected: set[str] = set()
    if isinstance(err, UnexpectedToken):
        # `accepts` simulates the pending reductions, so LALR's merged states add no noise.
        expected = set(err.accepts or err.expected)
        token = err.token
        if token.type == "$END":
            found = ""
            at = (token.end_line or 1, token.end_column or 1) if token.line else (1, 1)
        else:
            found, at = shown(str(token)), (token.line, token.column)
    elif isinstance(err, UnexpectedCharacters):
        interactive = getattr(err, "interactive_parser", None)
        expected = set(interactive.accepts() if interactive else err.allowed or ())
        pos = err.pos_in_stream or 0  # lark always sets it for this error
        match = re.compile(r"[^\s()]+|.").match(text, pos)
        found = shown(match.group(0) if match else text[pos])
        at = (err.line, err.column)
    else:
        assert isinstance(err, UnexpectedEOF)
        expected, found = set(err.expected), ""
        lines = text.splitlines() or [""]
        at = (len(lines), len(lines[-1]) + 1)
    words = sorted({_describe(t) for t in expected if t != "$END"}, key=lambda w: (w[0] != "'", w))
    if "$END" in expected:
        words.append("end of input")
    what = f"'{found}'" if found else "end of input"
    note = _UNSUPPORTED.get(found.lower())
    what += f" ({note})" if note else ""
    reason = f"unexpected {what}; expected one of: {', '.join(words)}"
    return PDDLSyntaxError(
        reason,
        file=source.file,
        line=at[0] + line_offset,
        column=at[1],
        expected=words,
        found=found,
        source_line=source.line_text(at[0]),
    )


def _source(text: str, file: str) -> Source:
    """The text to read, checked against the size and nesting limits (limits.py)."""
    if not isinstance(text, str):
        raise PDDLFileError(f"got {type(text).__name__}, not text; expected a str (decode "
                            "bytes with text_from_bytes)", file=file, line=1, column=1)
    source = Source(file, text[1:] if text.startswith("\ufeff") else text)
    check_text(source)
    return source


def _too_deep(file: str) -> PDDLLimitError:
    """The backstop when, despite MAX_DEPTH, something recursed too deep (a deep caller)."""
    return PDDLLimitError("the text is nested too deeply to read; expected fewer nested "
                          "expressions", file=file, line=1, column=1)


def read_domain(text: str, file: str = "<string>") -> Domain:
    """Parse and check a domain.

    Every action is built once here (with placeholders for names that only a problem can
    declare, as NovelGym's domains need) so that all errors in the domain surface now, with
    their positions, rather than when a problem is read.
    """
    source = _source(text, file)
    try:
        domain = domain_from_tree(_parse(source, "domain"), source)
        builder = ProblemBuilder(domain, probe=True)
        with warnings.catch_warnings():  # said again, once, when a problem is built
            warnings.simplefilter("ignore", PDDLDialectWarning)
            builder.build()
    except RecursionError:
        raise _too_deep(file) from None
    domain.free_names = builder.free_names
    return domain


def read_problem(
    text: str, domain: Domain, file: str = "<string>", numeric_default: float | None = None
) -> upm.Problem:
    """Parse a problem for ``domain`` and build the complete UP problem.

    ``numeric_default`` gives numeric fluents missing from ``:init`` that value.  By default
    they stay undefined, as in PDDL; UP's validator and ENHSP then refuse the problem
    (UNDEFINED_INITIAL_NUMERIC).  NovelGym's problems need 0, which is how Metric-FF's
    "undefined" behaves for them: every condition on those fluents is ``>= 1``-like.
    """
    source = _source(text, file)
    try:
        tree = _parse(source, "problem")
        return ProblemBuilder(domain, tree, source, numeric_default=numeric_default).build()
    except RecursionError:
        raise _too_deep(file) from None


def read_pddl(
    domain_text: str,
    problem_text: str | None = None,
    domain_file: str = "<domain>",
    problem_file: str = "<problem>",
    numeric_default: float | None = None,
) -> upm.Problem:
    """Domain plus optional problem; without a problem, a Problem holding only the domain."""
    domain = read_domain(domain_text, domain_file)
    if problem_text is not None:
        return read_problem(problem_text, domain, problem_file, numeric_default)
    for name, token in domain.free_names.items():
        raise domain.source.error(token, f"undeclared object or constant '{name}'",
                                  "a constant of the domain (or give a problem)")
    try:
        return ProblemBuilder(domain).build()
    except RecursionError:
        raise _too_deep(domain_file) from None


# ---------------------------------------------------------------------------------- plans
_FF_STEP = re.compile(r"^\s*(step\s+)?\d+\s*:\s*\S", re.IGNORECASE)
_FF_FIRST = re.compile(r"^\s*step\s+\d+\s*:", re.IGNORECASE)


def _plan_lines(text: str, file: str) -> list[tuple[int, str]]:
    """The (line number, text) pairs that hold plan steps.

    Metric-FF's output is recognised by its ``step 0:`` line: the plan is that line and the
    numbered lines after it, everything else in the log is skipped.  Otherwise every line that
    is not blank or a ``;`` comment must be a step.
    """
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if _FF_FIRST.match(line)), None)
    if first is not None:
        chosen = []
        for i in range(first, len(lines)):
            if not _FF_STEP.match(lines[i]):
                break
            chosen.append((i + 1, lines[i]))
        return chosen
    if any(line.lower().startswith("ff:") for line in lines):
        if any("empty plan solves it" in line for line in lines):
            return []
        raise PDDLSyntaxError(
            "Metric-FF output without a plan; expected a 'step 0: ...' line",
            file=file, line=1, column=1,
        )
    return [
        (i + 1, line.split(";", 1)[0])
        for i, line in enumerate(lines)
        if line.split(";", 1)[0].strip()
    ]


def read_plan(text: str, problem: upm.Problem, file: str = "<plan>") -> SequentialPlan:
    """Read a sequential plan for ``problem`` (names are case-insensitive, as in PDDL).

    Accepts ``(action a b)`` lines with optional ``N:`` time prefixes and ``[d]`` durations
    (ignored: the plan is the order of the lines), bare ``action a b`` lines, ``;`` comments
    such as ``; cost = 3``, and a whole Metric-FF log.
    """
    from unified_planning.plans import ActionInstance, SequentialPlan  # only plans need it

    em = problem.environment.expression_manager
    whole = _source(text, file)
    steps = []
    lines = _plan_lines(whole.text, file)
    if len(lines) > MAX_PLAN_STEPS:
        lineno = lines[MAX_PLAN_STEPS][0]
        raise PDDLLimitError(f"a plan of more than {MAX_PLAN_STEPS:,} steps; expected at most "
                             f"{MAX_PLAN_STEPS:,}", file=file, line=lineno, column=1)
    for lineno, line in lines:
        tree = _parse(Source(file, line), "plan_step", lineno - 1)
        for token in tree.scan_values(lambda v: isinstance(v, Token)):
            token.line = lineno
        name, *args = next(kid for kid in tree.children if isinstance(kid, Tree)).children
        if not problem.has_action(str(name)):
            raise whole.error(name, f"unknown action '{name}'", "an action of the domain")
        action = problem.action(str(name))
        if len(args) != len(action.parameters):
            arity = len(action.parameters)
            raise whole.error(name, f"'{name}' takes {arity} argument(s), got {len(args)}",
                              f"{arity}")
        objects = []
        for arg, param in zip(args, action.parameters, strict=True):
            if not problem.has_object(str(arg)):
                raise whole.error(arg, f"unknown object '{arg}'", "an object of the problem")
            obj = problem.object(str(arg))
            if not param.type.is_compatible(obj.type):
                need, got = type_name(param.type), type_name(obj.type)
                reason = f"'{arg}' is a '{got}', ?{param.name} must be a '{need}'"
                raise whole.error(arg, reason, f"an object of type '{need}'")
            objects.append(em.ObjectExp(obj))
        steps.append(ActionInstance(action, tuple(objects)))
    return SequentialPlan(steps, problem.environment)
