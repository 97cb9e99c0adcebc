"""Tests of the lark PDDL reader (nesyworld.symbolic.pddl.reader).

What they establish: the reader builds the same unified-planning problems as UP's own reader on
classic IPC-style files (so anything downstream can use either), real planners solve what it
builds and UP's validator accepts the plans, errors point at the exact line and column, and
NovelGym's Metric-FF dialect is read with warnings instead of failing.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import re
import tempfile
import warnings
from pathlib import Path

import pytest
import unified_planning.shortcuts as ups
from hypothesis import given, settings
from hypothesis import strategies as st
from unified_planning.engines import (
    PlanGenerationResult,
    PlanGenerationResultStatus,
    ValidationResultStatus,
)
from unified_planning.exceptions import UPNoSuitableEngineAvailableException
from unified_planning.io import PDDLReader, PDDLWriter
from unified_planning.model import Problem
from unified_planning.plans import SequentialPlan

from nesyworld.symbolic.pddl.reader import (
    PDDLDialectWarning,
    PDDLSemanticError,
    PDDLSyntaxError,
    read_domain,
    read_pddl,
    read_plan,
    read_problem,
)
from nesyworld.symbolic.pddl.summary import summarize

# UP's own reader calls pyparsing's deprecated parseString; that noise is not ours.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DATA = Path(__file__).parent / "data"

PLANNER = {
    "blocksworld": "fast-downward",
    "gripper": "fast-downward",
    "logistics": "fast-downward",
    "depot": "fast-downward",
    "briefcase": "fast-downward",
    "switches": "fast-downward",
    "rovers": "enhsp",
    "counters": "enhsp",
    "tanks": "enhsp",
}
# tanks uses scale-up/scale-down, which unified_planning.io.PDDLReader cannot read.
UP_READABLE = [name for name in PLANNER if name != "tanks"]
# PDDLWriter renames parameters/quantified variables that share a name with another item and
# writes (+ a b) as (+ b a); only these files come back from it with identical expressions.
WRITER_EXACT = {"blocksworld", "gripper", "rovers"}
SOLVED = (
    PlanGenerationResultStatus.SOLVED_SATISFICING,
    PlanGenerationResultStatus.SOLVED_OPTIMALLY,
)


@pytest.fixture(autouse=True, scope="module")
def _quiet_planners() -> None:
    ups.get_environment().credits_stream = None


def _texts(name: str) -> tuple[str, str]:
    return (DATA / f"{name}_domain.pddl").read_text(), (DATA / f"{name}_problem.pddl").read_text()


def _read(name: str) -> Problem:
    domain, problem = _texts(name)
    return read_pddl(domain, problem, f"{name}_domain.pddl", f"{name}_problem.pddl")


def _theirs(name: str) -> Problem:
    return PDDLReader().parse_problem_string(*_texts(name))


def _solve(problem: Problem, planner_name: str) -> PlanGenerationResult:
    """Plan in a private directory: Fast Downward writes output.sas into the working
    directory, so two runs from the same directory (other test files, other sessions) can
    read each other's task."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        contextlib.chdir(tmp),
        ups.OneshotPlanner(name=planner_name) as planner,
    ):
        return planner.solve(problem, timeout=30)


@functools.cache
def _solved(name: str) -> tuple[Problem, SequentialPlan]:
    """Each test problem is solved once per session; several tests reuse the plan."""
    problem = _read(name)
    result = _solve(problem, PLANNER[name])
    assert result.status in SOLVED, result
    return problem, result.plan


def _validate(problem: Problem, plan: SequentialPlan) -> ValidationResultStatus:
    with ups.PlanValidator(problem_kind=problem.kind) as validator:
        assert validator.name == "sequential_plan_validator"
        return validator.validate(problem, plan).status


def _novelgym(name: str) -> str:
    """NovelGym's generated PDDL and plan, kept byte for byte as fixtures in tests/symbolic/data/
    (novelgym_generated_*): the domain and problem that NovelGym's own PDDL generator writes
    for its pre-novelty pogostick task, and the Metric-FF plan it logs for them. Verbatim, so
    that the line:column positions the tests assert are those of the original files."""
    return (DATA / f"novelgym_generated_{name.removeprefix('pogostick_')}").read_text()


@functools.cache
def _read_novelgym(**kw: float) -> Problem:
    """Read once per keyword set; the tests only read the problem, never change it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLDialectWarning)
        return read_pddl(
            _novelgym("pogostick_domain.pddl"),
            _novelgym("pogostick_problem.pddl"),
            "pogostick_domain.pddl",
            "pogostick_problem.pddl",
            **kw,
        )


# ----------------------------------------------------------------------------- IPC-style files
@pytest.mark.parametrize("name", list(PLANNER))
def test_ipc_file_parses_cleanly_and_its_plan_validates(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", PDDLDialectWarning)  # standard PDDL: no dialect warning
        _read(name)
    problem, plan = _solved(name)
    assert plan.actions
    assert _validate(problem, plan) == ValidationResultStatus.VALID


@pytest.mark.parametrize("name", UP_READABLE)
def test_equal_to_unified_planning_reader(name: str) -> None:
    mine, theirs = _read(name), _theirs(name)
    assert mine == theirs
    assert mine.kind == theirs.kind
    assert summarize(mine) == summarize(theirs)
    domain_text, _ = _texts(name)
    assert read_pddl(domain_text) == PDDLReader().parse_problem_string(domain_text)


@pytest.mark.parametrize("name", list(PLANNER))
def test_round_trip_through_pddl_writer(name: str) -> None:
    problem, plan = _solved(name)
    writer = PDDLWriter(problem)
    domain_text, problem_text = writer.get_domain(), writer.get_problem()
    again = read_pddl(domain_text, problem_text)
    assert again == PDDLReader().parse_problem_string(domain_text, problem_text)
    again.name = problem.name  # the writer calls the problem "<name>-problem"
    if name in WRITER_EXACT:
        assert again == problem
    else:  # same meaning, renamed parameters or swapped operands: same kind, same plans
        assert again.kind == problem.kind
    replanned = read_plan(writer.get_plan(plan), again)
    assert _validate(again, replanned) == ValidationResultStatus.VALID


@pytest.mark.parametrize("name", ["blocksworld", "rovers", "tanks"])
def test_plan_text_formats(name: str) -> None:
    problem, plan = _solved(name)
    steps = [(a.action.name, [str(p) for p in a.actual_parameters]) for a in plan.actions]
    parenthesised = "".join(f"({n} {' '.join(args)})\n" for n, args in steps) + "; cost = 7\n"
    numbered = "".join(
        f"{i}.000: ({n} {' '.join(args)}) [1.000]\n" for i, (n, args) in enumerate(steps)
    )
    bare = "; bare\n" + "".join(f"  {n.upper()} {' '.join(args).upper()}\n\n" for n, args in steps)
    ff = "ff: found legal plan as follows\n" + "".join(
        f"{'step' if i == 0 else ''}{i:>8}: {n.upper()} {' '.join(args).upper()}\n"
        for i, (n, args) in enumerate(steps)
    )
    for text in (parenthesised, numbered, bare, ff + "\ntime spent: 0.00 seconds\n"):
        assert read_plan(text, problem) == plan


def test_action_costs_become_minimize_action_costs() -> None:
    problem = _read("rovers")
    assert not problem.has_fluent("total-cost")
    (metric,) = problem.quality_metrics
    assert metric.is_minimize_action_costs()
    costs = {action.name: str(metric.get_action_cost(action)) for action in problem.actions}
    assert costs == {
        "navigate": "3",
        "recharge": "1",
        "sample-soil": "2",
        "drop": "1",
        "communicate-soil": "1",
    }
    domain_only = read_pddl(_texts("rovers")[0])  # without a metric total-cost is a fluent
    assert domain_only.has_fluent("total-cost")


def test_numeric_effect_kinds_and_operators() -> None:
    problem = _read("tanks")
    effect = {a.name: a.effects for a in problem.actions}
    assert str(effect["double"][0]) == "level(t) := (level(t) * 2)"
    assert str(effect["halve"][0]) == "level(t) := (level(t) / 2)"
    assert str(effect["fill"][0]) == "level(t) := capacity(t)"
    assert sorted(str(e) for e in effect["pour"]) == ["level(a) := 0", "level(b) += level(a)"]
    assert str(effect["spill"][0]) == "level(t) -= 1"
    (spill_pre,) = problem.action("spill").preconditions
    assert str(spill_pre) == "(1 < (level(t) - (-1 * 1)))"


def test_conditional_and_quantified_effects() -> None:
    move = _read("briefcase").action("move")
    forall_effects = [e for e in move.effects if e.is_forall()]
    assert len(forall_effects) == 2
    assert all(e.is_conditional() and e.forall[0].name == "x" for e in forall_effects)
    walk = _read("switches").action("walk")
    text = str(walk.preconditions[0])
    assert "Exists (switch s)" in text and " or " in text and "(not (from == to))" in text


def test_case_insensitive_and_comments_anywhere() -> None:
    domain, problem = _texts("blocksworld")
    noisy = domain.upper().replace("(:ACTION", "; a comment (with parens\n(:ACTION")
    noisy = noisy.replace("?X)", "?X ; trailing comment\n)")
    assert read_pddl(noisy, problem) == _read("blocksworld")


_TOKEN = re.compile(r"\s+|;[^\n]*|[^\s;]+")
_BRIEFCASE = _read("briefcase")


@settings(max_examples=30, deadline=None)
@given(rng=st.randoms(use_true_random=False))
def test_whitespace_case_and_comments_do_not_matter(rng: random.Random) -> None:
    domain, problem = _texts("briefcase")
    pieces: list[str] = []
    for piece in _TOKEN.findall(domain):
        if piece.isspace():
            after_comment = bool(pieces) and pieces[-1].startswith(";")
            choices = ["\n", "  ; noise )(\n "] + ([] if after_comment else [" ", "\t "])
            piece = rng.choice(choices)
        elif not piece.startswith(";"):
            piece = "".join(rng.choice([c.lower(), c.upper()]) for c in piece)
        pieces.append(piece)
    assert read_pddl("".join(pieces), problem) == _BRIEFCASE


def test_summary_is_json() -> None:
    summary = summarize(_read("logistics"))
    assert json.loads(json.dumps(summary)) == summary
    assert summary["requirements"] == [":strips", ":typing"]
    assert {"name": "truck", "parent": "vehicle"} in summary["types"]
    drive = summary["actions"][4]
    assert (drive["name"], drive["arity"]) == ("drive-truck", 4)
    assert summary["counts"] == {
        "types": 9,
        "predicates": 3,
        "functions": 0,
        "actions": 6,
        "constants": 0,
        "objects": 11,
        "init": 9,
        "goals": 1,
    }
    assert summary["goal"] == "(at(obj11, apt2) and at(obj21, pos1))"


# ----------------------------------------------------------------------------- NovelGym
def test_novelgym_dialect_is_read_with_warnings() -> None:
    with pytest.warns(PDDLDialectWarning) as caught:
        problem = read_pddl(
            _novelgym("pogostick_domain.pddl"),
            _novelgym("pogostick_problem.pddl"),
            "pogostick_domain.pddl",
            "pogostick_problem.pddl",
        )
    messages = [str(w.message) for w in caught]
    agent = next(w.message for w in caught if "type 'agent'" in str(w.message))
    assert isinstance(agent, PDDLDialectWarning)
    assert (agent.file, agent.line, agent.column) == ("pogostick_domain.pddl", 20, 5)
    assert "second parent 'placeable'" in str(agent) and "so 'actor' is kept" in str(agent)
    assert any("type 'oak_log'" in m and "so 'log' is kept" in m for m in messages)
    assert any("'rubber' is declared twice" in m for m in messages)
    assert any("names shared between types" in m for m in messages)
    assert any("problem objects as if they were constants: 'diamond_ore'" in m for m in messages)
    # The first parent is kept, and the second still holds as an ancestor: nothing is lost.
    parents = {t["name"]: t["parent"] for t in summarize(problem)["types"]}
    assert parents["agent"] == "actor" and parents["actor"] == "placeable"
    assert parents["oak_log"] == "log" and parents["log"] == "hand_breakable"
    placeable, hand_breakable = problem.user_type("placeable"), problem.user_type("hand_breakable")
    assert placeable.is_compatible(problem.object("entity_0").type)
    assert hand_breakable.is_compatible(problem.object("oak_log").type)


def test_novelgym_metric_ff_plan_validates() -> None:
    problem = _read_novelgym(numeric_default=0)
    plan = read_plan(_novelgym("pogostick_plan.txt"), problem, "pogostick_plan.txt")
    assert len(plan.actions) == 15
    assert str(plan.actions[0]) == "approach(air, block_of_platinum)"
    assert str(plan.actions[9]) == "collect_from_tree_tap(entity_102, oak_log)"
    assert _validate(problem, plan) == ValidationResultStatus.VALID
    # The validator evaluates numeric fluents: without craft_stick, craft_pogo_stick lacks
    # (>= (inventory stick) 2).
    short = SequentialPlan([a for a in plan.actions if a.action.name != "craft_stick"])
    with ups.PlanValidator(problem_kind=problem.kind) as validator:
        result = validator.validate(problem, short)
    assert result.status == ValidationResultStatus.INVALID
    assert result.inapplicable_action.action.name == "craft_pogo_stick"


def test_novelgym_needs_a_numeric_default_for_the_validator() -> None:
    problem = _read_novelgym()  # (inventory air), (container ...) are never initialised
    assert problem.kind.has_undefined_initial_numeric()
    with pytest.raises(UPNoSuitableEngineAvailableException):
        ups.PlanValidator(problem_kind=problem.kind)


def test_novelgym_collect_from_tree_tap_ignores_its_actor() -> None:
    """FF picked the pogoist entity_102 as ?actor: the parameter is never used, so any works."""
    problem = _read_novelgym(numeric_default=0)
    action = problem.action("collect_from_tree_tap")
    mentioned = {str(arg) for pre in action.preconditions for arg in pre.args}
    mentioned |= {str(e.fluent) for e in action.effects}
    assert not any("actor" in m for m in mentioned)
    text = _novelgym("pogostick_plan.txt").replace("ENTITY_102 OAK_LOG", "TRADER OAK_LOG")
    assert _validate(problem, read_plan(text, problem)) == ValidationResultStatus.VALID


def test_novelgym_domain_alone_refers_to_problem_objects() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLDialectWarning)
        domain = read_domain(_novelgym("pogostick_domain.pddl"), "pogostick_domain.pddl")
        with pytest.raises(PDDLSemanticError) as err:
            read_pddl(_novelgym("pogostick_domain.pddl"), None, "pogostick_domain.pddl")
    assert "diamond_ore" in domain.free_names and "entity_103" in domain.free_names
    assert (err.value.line, err.value.column, err.value.found) == (125, 21, "diamond_ore")
    assert str(err.value).startswith(
        "pogostick_domain.pddl:125:21: undeclared object or constant 'diamond_ore'"
    )


def test_novelgym_round_trip_through_pddl_writer() -> None:
    problem = _read_novelgym(numeric_default=0)
    plan = read_plan(_novelgym("pogostick_plan.txt"), problem)
    writer = PDDLWriter(problem)  # renames objects that clash with types: diamond_ore_0, ...
    with warnings.catch_warnings():
        warnings.simplefilter("error", PDDLDialectWarning)  # the writer writes plain PDDL
        again = read_pddl(writer.get_domain(), writer.get_problem(), numeric_default=0)
    assert again.kind == problem.kind
    assert len(again.all_objects) == len(problem.all_objects)
    replanned = read_plan(writer.get_plan(plan), again)
    assert _validate(again, replanned) == ValidationResultStatus.VALID


def test_novelgym_paper_appendix_g() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLDialectWarning)
        appendix = read_pddl(
            (DATA / "novelgym_appendix_g_domain.pddl").read_text(),
            (DATA / "novelgym_appendix_g_problem.pddl").read_text(),
            numeric_default=0,
        )
    generated = _read_novelgym(numeric_default=0)
    assert set(appendix.user_types) == set(generated.user_types)
    assert set(appendix.all_objects) == set(generated.all_objects)
    assert appendix.initial_values == generated.initial_values
    assert appendix.goals == generated.goals
    missing = {a.name for a in set(generated.actions) - set(appendix.actions)}
    assert set(appendix.actions) < set(generated.actions)
    assert missing == {"trade_block_of_titanium_1", "collect_from_safe", "collect_from_chest"}
    # Without the trade, nothing yields block_of_titanium: the printed appendix is unsolvable.
    with pytest.raises(PDDLSemanticError) as err:
        read_plan(_novelgym("pogostick_plan.txt"), appendix, "pogostick_plan.txt")
    assert (err.value.line, err.value.column) == (40, 12)
    assert "unknown action 'trade_block_of_titanium_1'" in str(err.value)
    assert _solve(appendix, "enhsp").status == PlanGenerationResultStatus.UNSOLVABLE_PROVEN


def test_objects_named_like_types_survive_clone() -> None:
    problem = _read_novelgym(numeric_default=0)
    assert problem.object("agent").type == problem.user_type("agent")
    assert problem.clone() == problem


# ----------------------------------------------------------------------------- type hierarchy
def _types(text: str) -> tuple[dict[str, str | None], list[str]]:
    with pytest.warns(PDDLDialectWarning) as caught:
        domain = read_domain(f"(define (domain d) (:types {text}))", "d.pddl")
    return domain.types, [str(w.message) for w in caught]


def test_second_parent_narrower_than_first() -> None:
    types, messages = _types("a - b  c - b  a - c")
    assert types["a"] == "c" and types["c"] == "b"
    assert messages == [
        "d.pddl:1:42: type 'a' is declared with a second parent 'c' (first: 'b', line 1); "
        "unified-planning types have one parent, so 'b' is kept; "
        "'a' now sits under 'c', which is itself a 'b'"
    ]


def test_second_parent_that_cannot_be_kept() -> None:
    types, messages = _types("x - p  y - p  x - q")
    assert types["x"] == "p" and types["p"] is None
    assert messages[0].endswith("objects of type 'x' will NOT count as 'q'")


# ----------------------------------------------------------------------------- errors
def _domain_error(old: str, new: str, name: str = "blocksworld") -> PDDLSyntaxError:
    text = _texts(name)[0]
    assert old in text
    with pytest.raises((PDDLSyntaxError, PDDLSemanticError)) as err:
        read_pddl(text.replace(old, new, 1), None, "domain.pddl")
    assert isinstance(err.value, ValueError)
    return err.value


def test_missing_paren_at_end_of_file() -> None:
    err = _domain_error("(not (on ?x ?y)))))", "(not (on ?x ?y))))")
    assert isinstance(err, PDDLSyntaxError)
    assert (err.line, err.column, err.found) == (42, 37, "")
    assert err.expected == ["'('", "')'"]
    assert str(err).startswith("domain.pddl:42:37: unexpected end of input; expected one of:")


def test_unexpected_token_in_the_middle() -> None:
    err = _domain_error(
        ":parameters (?x)\n     :precondition (holding",
        ":parameters (?x))\n     :precondition (holding",
    )
    assert isinstance(err, PDDLSyntaxError)
    assert (err.file, err.line, err.column, err.found) == ("domain.pddl", 20, 6, ":precondition")
    assert str(err).splitlines()[0] == (
        "domain.pddl:20:6: unexpected ':precondition'; expected one of: '(', ')'"
    )


def test_misspelt_keyword_lists_what_fits() -> None:
    err = _domain_error(":precondition (holding ?x)", ":precondtion (holding ?x)")
    assert (err.line, err.column, err.found) == (20, 6, ":precondtion")
    assert err.expected == ["')'", "':effect'", "':parameters'", "':precondition'"]


def test_stray_character() -> None:
    err = _domain_error("(handempty)\n", "(handempty) #\n")
    assert isinstance(err, PDDLSyntaxError)
    assert (err.line, err.column, err.found, err.expected) == (7, 28, "#", ["'('", "')'"])


def test_unknown_predicate_in_precondition() -> None:
    err = _domain_error("(and (holding ?x) (clear ?y))", "(and (holding ?x) (clearr ?y))")
    assert isinstance(err, PDDLSemanticError)
    assert (err.line, err.column, err.found) == (28, 39, "clearr")
    assert str(err).splitlines()[0] == (
        "domain.pddl:28:39: undeclared predicate 'clearr'; expected a predicate declared in "
        ":predicates"
    )
    assert str(err).splitlines()[2] == "    " + " " * 38 + "^"


def test_wrong_arity() -> None:
    err = _domain_error("(and (holding ?x) (clear ?y))", "(and (holding ?x) (clear ?x ?y))")
    assert (err.line, err.column) == (28, 39)
    assert "'clear' takes 1 argument(s) but is given 2" in str(err)


def test_undeclared_type() -> None:
    err = _domain_error(
        "?truck - truck ?loc - place)\n     :precondition (and (at ?truck ?loc) (at ?pkg",
        "?truck - truk ?loc - place)\n     :precondition (and (at ?truck ?loc) (at ?pkg",
        "logistics",
    )
    assert (err.line, err.column, err.found) == (14, 43, "truk")
    assert "undeclared type 'truk'" in str(err)


def test_undeclared_variable() -> None:
    err = _domain_error("(and (holding ?x) (clear ?y))", "(and (holding ?x) (clear ?z))")
    assert (err.line, err.column, err.found) == (28, 45, "?z")


def test_either_types_are_refused() -> None:
    err = _domain_error(
        "?truck - truck ?loc - place)",
        "?truck - (either truck airplane) ?loc - place)",
        "logistics",
    )
    assert (err.line, err.column) == (14, 43)
    assert "'either' types are not supported" in str(err)


def test_type_cycle_and_duplicates() -> None:
    with pytest.raises(PDDLSemanticError, match="its own ancestor"):
        read_domain("(define (domain d) (:types a - b b - a))")
    with pytest.raises(PDDLSemanticError, match="action 'stack' is declared twice") as err:
        bw = _texts("blocksworld")[0]
        read_domain(bw.replace("(:action unstack", "(:action stack"))
    assert err.value.line == 35



def test_a_repeated_name_in_a_predicate_declaration_is_renamed_with_a_warning() -> None:
    # IPC's logistics00 ADL domain declares `(in ?obj ?obj)`: a placeholder name repeated.
    domain = ("(define (domain d) (:requirements :strips)\n"
              "  (:predicates (in ?obj ?obj ?obj_2) (p ?x))\n"
              "  (:action a :parameters (?o ?c) :precondition (p ?o)\n"
              "    :effect (in ?o ?c ?c)))")
    problem = "(define (problem q) (:domain d) (:objects x y) (:init (p x)) (:goal (in x y y)))"
    with pytest.warns(PDDLDialectWarning) as caught:
        read = read_pddl(domain, problem, "d.pddl", "q.pddl")
    message = next(w.message for w in caught if "declared twice" in str(w.message))
    assert isinstance(message, PDDLDialectWarning)
    assert (message.line, message.column) == (2, 25)
    assert "read as '?obj_3'" in str(message)  # ?obj_2 is taken by the third parameter
    fluent = read.fluent("in")
    assert [p.name for p in fluent.signature] == ["obj", "obj_3", "obj_2"]
    # an action's parameters are still refused: there the names are referred to
    with pytest.raises(PDDLSemanticError, match=r"variable '\?o' is declared twice"):
        read_domain(domain.replace("(?o ?c)", "(?o ?o)"))

def _problem_error(old: str, new: str) -> PDDLSemanticError:
    domain, problem = _texts("logistics")
    assert old in problem
    with pytest.raises(PDDLSemanticError) as err:
        read_pddl(domain, problem.replace(old, new), "domain.pddl", "problem.pddl")
    return err.value


def test_undeclared_object_in_init() -> None:
    err = _problem_error("(at tru2 pos2)", "(at tru3 pos2)")
    assert (err.file, err.line, err.column, err.found) == ("problem.pddl", 12, 14, "tru3")
    assert "undeclared object or constant 'tru3'" in str(err)


def test_wrongly_typed_object_in_init() -> None:
    err = _problem_error("(at tru2 pos2)", "(at tru2 cit2)")
    assert (err.line, err.column) == (12, 19)
    assert "'cit2' is a 'city' but argument ?loc of 'at' must be a 'place'" in str(err)


def test_missing_goal() -> None:
    err = _problem_error("(:goal (and (at obj11 apt2) (at obj21 pos1)))", "")
    assert "expected exactly one :goal" in str(err)


def test_plan_errors() -> None:
    problem = _read("rovers")
    cases = {
        "(navigate rover0 w0)": (1, 2, "takes 3 argument(s), got 2"),
        "\n\n(navigate rover0 w0 w9)": (3, 21, "unknown object 'w9'"),
        "(fly rover0 w0 w1)": (1, 2, "unknown action 'fly'"),
        "(navigate w0 w0 w1)": (1, 11, "'w0' is a 'waypoint', ?r must be a 'rover'"),
    }
    for text, (line, column, message) in cases.items():
        with pytest.raises(PDDLSemanticError) as err:
            read_plan(text, problem, "x.plan")
        assert (err.value.line, err.value.column) == (line, column)
        assert message in str(err.value)
    with pytest.raises(PDDLSyntaxError) as syntax:
        read_plan("(recharge rover0 w1)\n(navigate rover0 w0 w1\n", problem, "x.plan")
    assert (syntax.value.line, syntax.value.column) == (2, 23)


def test_metric_ff_empty_plan() -> None:
    problem = _read("blocksworld")
    log = "ff: parsing domain file\nff: goal can be simplified to TRUE. The empty plan solves it\n"
    assert read_plan(log, problem).actions == []


def test_read_problem_reuses_a_domain() -> None:
    domain_text, problem_text = _texts("gripper")
    domain = read_domain(domain_text, "gripper_domain.pddl")
    first = read_problem(problem_text, domain, "p1.pddl")
    second = read_problem(problem_text.replace("ball4", "ball9"), domain, "p2.pddl")
    assert first == _theirs("gripper")
    assert second.has_object("ball9") and not second.has_object("ball4")
