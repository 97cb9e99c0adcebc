"""The PDDL corpus benchmark: pairing by what files define, counting refusals by reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from nesyworld.experiments.benchmarks import pddl_corpus
from nesyworld.symbolic.pddl import read_pddl

DATA = Path(__file__).parents[1] / "symbolic" / "data"

DERIVED = """(define (domain d) (:requirements :strips :derived-predicates)
  (:predicates (p) (q))
  (:derived (q) (p))
  (:action a :parameters () :precondition (q) :effect (p)))"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(DATA / "blocksworld_domain.pddl", one / "domain.pddl")
    for name in ("probA.pddl", "probB.pddl", "probC.pddl"):
        shutil.copy(DATA / "blocksworld_problem.pddl", one / name)
    (one / "notes.pddl").write_text("; neither a domain nor a problem\n")
    many = tmp_path / "many"
    many.mkdir()
    for n, stem in (("01", "gripper"), ("02", "logistics")):
        # the domain is named after the problem, not `domain.pddl`: paired by name
        shutil.copy(DATA / f"{stem}_domain.pddl", many / f"p{n}-domain.pddl")
        shutil.copy(DATA / f"{stem}_problem.pddl", many / f"p{n}.pddl")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "domain.pddl").write_text(DERIVED)
    shutil.copy(DATA / "blocksworld_problem.pddl", bad / "p.pddl")
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copy(DATA / "gripper_problem.pddl", lonely / "p.pddl")
    return tmp_path


def test_files_are_told_apart_by_what_they_define(corpus: Path) -> None:
    assert pddl_corpus.kind_of(corpus / "many" / "p01-domain.pddl") == "domain"
    assert pddl_corpus.kind_of(corpus / "many" / "p01.pddl") == "problem"
    assert pddl_corpus.kind_of(corpus / "one" / "notes.pddl") is None
    pairs, unpaired = pddl_corpus.find_pairs(corpus, per_folder=2)
    names = {(Path(p.domain).relative_to(corpus).as_posix(),
              Path(p.problem).relative_to(corpus).as_posix()) for p in pairs}
    assert names == {("one/domain.pddl", "one/probA.pddl"), ("one/domain.pddl", "one/probB.pddl"),
                     ("many/p01-domain.pddl", "many/p01.pddl"),
                     ("many/p02-domain.pddl", "many/p02.pddl"),
                     ("bad/domain.pddl", "bad/p.pddl")}
    assert unpaired == [str(corpus / "lonely")]


def test_the_summary_counts_reads_and_refusals_by_reason(
        corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pddl_corpus.main([str(corpus), "--per-folder", "1", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["pairs"] == 3  # one per folder
    ours = summary["nesyworld"]
    assert ours["status"] == {"read": 2, "refused": 1}
    [(text, count)] = ours["reasons"].items()
    assert count == 1 and text.startswith("PDDLSyntaxError: unexpected ':derived'")
    assert str(corpus) not in text  # the location is dropped, so equal reasons count together
    assert summary["read_by_both"] == 2 and summary["time_ratio"] > 0
    assert summary["different_problems"] == []  # both readers read the same problems
    refused = [o for o in summary["outcomes"] if o["status"] == "refused"
               and o["reader"] == "nesyworld"]
    assert refused[0]["message"].startswith("PDDLSyntaxError: ")
    assert f"{corpus / 'bad' / 'domain.pddl'}:3:4:" in refused[0]["message"]


def test_same_problem_sees_a_changed_init_or_goal() -> None:
    domain = (DATA / "blocksworld_domain.pddl").read_text()
    problem = (DATA / "blocksworld_problem.pddl").read_text()
    read = read_pddl(domain, problem)
    assert pddl_corpus.same_problem(read, read_pddl(domain, problem))
    for old, new in (("(CLEAR D)", ""), ("(ON B A)", "(ON A B)")):
        assert old in problem
        assert not pddl_corpus.same_problem(read, read_pddl(domain, problem.replace(old, new)))


def test_a_folder_without_pairs_gives_an_empty_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pddl_corpus.main([str(tmp_path), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["pairs"] == 0 and summary["nesyworld"]["status"] == {}
    assert summary["read_by_both"] == 0 and summary["different_problems"] == []
