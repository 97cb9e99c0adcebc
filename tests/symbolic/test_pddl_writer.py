"""The PDDL text we write: deterministic, commented, and readable by other PDDL tools.

The text is meant to be read, diffed and edited by people and loaded back, so the same spec and
seed must give the same bytes (in any process: no hash-seed-dependent order), every operator
must say where it came from, and an independent reader (unified-planning's PDDLReader) must
parse it into the same task: solving the read-back problem with the same planner gives a plan
of the same length.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import unified_planning.shortcuts as up
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.io import PDDLReader
from unified_planning.model import Problem

from nesyworld.symbolic.derivation.derive import Derivation, derive
from nesyworld.symbolic.pddl.writer import derivation_provenance, write_pddl
from nesyworld.symbolic.planning.planners import PLANNERS, Planner

SPEC = "pogostick"
FORMS = {"numeric": False, "classical": True}
# the planner that solves each form in the registry
FORM_PLANNER = {"numeric": "enhsp", "classical": "fast-downward"}
TIMEOUT = 120.0



@pytest.fixture(autouse=True, scope="module")
def _private_cwd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fast Downward (through unified-planning) writes ./output.sas in the working directory,
    so concurrent runs in one checkout can swap tasks; plan in a directory of our own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path_factory.mktemp("cwd"))
        yield


def _derivation() -> Derivation:
    return derive(SPEC, seed=0)


@pytest.fixture(scope="module")
def derivation() -> Derivation:
    return _derivation()


@pytest.fixture(scope="module")
def texts(derivation: Derivation) -> dict[str, tuple[str, str]]:
    return {form: write_pddl(derivation, classical=c) for form, c in FORMS.items()}


# -- deterministic ---------------------------------------------------------------------------
@pytest.mark.parametrize("form", FORMS)
def test_writing_twice_gives_the_same_text(derivation: Derivation, form: str) -> None:
    assert write_pddl(derivation, FORMS[form]) == write_pddl(derivation, FORMS[form])


@pytest.mark.parametrize("form", FORMS)
def test_two_derivations_of_a_spec_give_the_same_text(
    texts: dict[str, tuple[str, str]], form: str
) -> None:
    assert write_pddl(_derivation(), FORMS[form]) == texts[form]


_DIGEST = (
    "import hashlib\n"
    "from nesyworld.symbolic.derivation.derive import derive\n"
    "from nesyworld.symbolic.pddl.writer import derivation_provenance, write_pddl\n"
    f"d = derive({SPEC!r}, seed=0)\n"
    "print(hashlib.sha256(repr([write_pddl(d, c) for c in (False, True)]).encode()).hexdigest())"
)


def test_the_text_does_not_depend_on_the_hash_seed(texts: dict[str, tuple[str, str]]) -> None:
    """Sets of strings iterate in a per-process order; a writer that leaks one into the text
    would differ between runs. A fresh interpreter with another hash seed must agree."""
    ours = hashlib.sha256(repr([texts["numeric"], texts["classical"]]).encode()).hexdigest()
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    proc = subprocess.run(
        [sys.executable, "-c", _DIGEST],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONHASHSEED": seed},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ours


# -- readable --------------------------------------------------------------------------------
ACTION = re.compile(r"^\s*\(:action (\S+)\s*$")


@pytest.mark.parametrize("form", FORMS)
def test_one_action_block_per_operator_in_order(
    derivation: Derivation, texts: dict[str, tuple[str, str]], form: str
) -> None:
    domain, _ = texts[form]
    names = [m.group(1) for line in domain.splitlines() if (m := ACTION.match(line))]
    assert names == [op.name for op in derivation.operators]
    assert domain.count("(:action") == len(derivation.operators)


@pytest.mark.parametrize("form", FORMS)
def test_a_provenance_comment_precedes_each_action(
    derivation: Derivation, texts: dict[str, tuple[str, str]], form: str
) -> None:
    lines = texts[form][0].splitlines()
    provenance = derivation_provenance(derivation)  # an operator's, plus its repeats
    for i, line in enumerate(lines):
        if m := ACTION.match(line):
            assert provenance[m.group(1)], m.group(1)
            assert lines[i - 1].strip() == f"; {provenance[m.group(1)]}", (m.group(1), lines[i - 1])


def test_no_object_is_named_like_a_type(texts: dict[str, tuple[str, str]]) -> None:
    """Concrete entity types are objects and categories are types, so names never clash (a
    clash is what makes unified-planning's own writer rename symbols)."""
    domain, problem = texts["classical"]

    def names(text: str, section: str) -> set[str]:
        block = re.search(rf"\({section}\n(.*?)\n  \)", text, re.S)
        assert block is not None, section
        return {line.split()[0] for line in block.group(1).splitlines()}

    types = names(domain, ":types")
    objects = names(domain, ":constants") | names(problem, ":objects")
    assert "physobj" in types and "oak_log" in objects
    assert not objects & types


# -- read back by another reader -------------------------------------------------------------
def _read(texts: dict[str, tuple[str, str]], form: str) -> Problem:
    domain, problem = texts[form]
    return PDDLReader().parse_problem_string(domain, problem)


@pytest.mark.parametrize("form", FORMS)
def test_unified_planning_reads_the_text(
    derivation: Derivation, texts: dict[str, tuple[str, str]], form: str
) -> None:
    problem = _read(texts, form)
    assert [a.name for a in problem.actions] == [op.name for op in derivation.operators]
    assert {o.name for o in problem.all_objects} >= {o.name for o in derivation.objects}


def _solve_read_back(problem: Problem, planner: str) -> Any:
    """The read-back problem through the same engine and options the registry uses."""
    info = PLANNERS[planner]
    with up.OneshotPlanner(name=info.engine, params=dict(info.params)) as engine:
        return engine.solve(problem, timeout=TIMEOUT)


@pytest.mark.parametrize("form", FORMS)
def test_the_read_back_problem_solves_to_a_plan_of_the_same_length(
    derivation: Derivation, texts: dict[str, tuple[str, str]], form: str
) -> None:
    problem = _read(texts, form)
    planner = FORM_PLANNER[form]
    ours = Planner(planner, timeout=TIMEOUT).plan(derivation)
    assert ours.ok, ours.message
    theirs = _solve_read_back(problem, planner)
    assert theirs.status in (Status.SOLVED_SATISFICING, Status.SOLVED_OPTIMALLY), (
        f"{planner} on the read-back {form} problem: {theirs.status.name}"
    )
    assert len(theirs.plan.actions) == len(ours)


@pytest.mark.parametrize("spec", ["pogostick", "pogostick_full", "sandwich"])
@pytest.mark.parametrize("classical", [False, True])
def test_our_reader_reads_back_an_equal_problem(spec: str, classical: bool) -> None:
    """Writing then reading with nesyworld's own reader gives an equal unified-planning
    Problem, so a generated domain can be edited by hand and loaded back."""
    from nesyworld.symbolic.derivation.derive import derive
    from nesyworld.symbolic.pddl.reader import read_pddl
    from nesyworld.symbolic.planning.problems import classical_problem, numeric_problem

    d = derive(spec)
    domain, problem = write_pddl(d, classical=classical)
    read = read_pddl(domain, problem, numeric_default=None if classical else 0)
    built = classical_problem(d) if classical else numeric_problem(d)
    read.name = built.name  # PDDL names the problem apart from its domain
    assert read == built
