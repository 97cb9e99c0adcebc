"""Issue 22 for PDDL and knowledge-base folders: bad input is one located project error.

What they establish: nesting, size and name limits are refused at the offending character
(and real depths still read), bytes that are not UTF-8 and unreadable files are PDDLFileErrors,
errors stay one short first line whatever the input, arithmetic and type hierarchies that
crashed or blew up are refused or fast, and KnowledgeBase.load names the file and field of
every defect of its folder (a KnowledgeBaseError, a SpecError: one line, `entries[1].status`).
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from nesyworld.symbolic.kb_folder import MAX_DEPTH as KB_MAX_DEPTH
from nesyworld.symbolic.knowledge_base import KnowledgeBase, KnowledgeBaseError
from nesyworld.symbolic.pddl.errors import PDDLError, PDDLFileError, PDDLLimitError
from nesyworld.symbolic.pddl.limits import MAX_DEPTH, load_pddl_text, text_from_bytes
from nesyworld.symbolic.pddl.reader import read_domain, read_pddl
from nesyworld.world.errors import SpecError

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]
LOCATED = re.compile(r"^[^\n]+:\d+:\d+: [^\n]+; expected [^\n]+$")
NUMERIC = """(define (domain n) (:requirements :numeric-fluents) (:predicates (p)) (:functions (f))
 (:action a :parameters () :precondition (> (f) 0) :effect (and (p) (increase (f) 1))))"""


def _texts(name: str) -> tuple[str, str]:
    return ((DATA / f"{name}_domain.pddl").read_text(),
            (DATA / f"{name}_problem.pddl").read_text())


def _goal(body: str) -> str:
    problem = _texts("blocksworld")[1]
    return problem.replace("(:goal (AND", "(:goal (AND " + body, 1)


def _error(domain: str, problem: str | None = None) -> PDDLError:
    with pytest.raises(PDDLError) as err:
        read_pddl(domain, problem, "d.pddl", "p.pddl")
    assert LOCATED.match(str(err.value).splitlines()[0]), str(err.value)
    return err.value


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 20_000])
def test_deep_nesting_is_refused_where_it_crosses_the_limit(depth: int) -> None:
    err = _error(_texts("blocksworld")[0], _goal("(and " * depth + "(clear a)" + ")" * depth))
    assert isinstance(err, PDDLLimitError)
    assert (err.file, err.line) == ("p.pddl", 6)
    assert f"more than {MAX_DEPTH} levels" in str(err)


@pytest.mark.parametrize("opener", ["(and ", "(or (clear b) ", "(not ", "(imply (clear b) ",
                                    "(exists (?v) "])
def test_nesting_up_to_the_limit_still_reads(opener: str) -> None:
    levels = MAX_DEPTH - 4  # define, :goal, AND and the atom take four
    atom = "(clear ?v)" if "exists" in opener else "(clear a)"
    problem = read_pddl(_texts("blocksworld")[0], _goal(opener * levels + atom + ")" * levels))
    assert len(problem.goals) == 1


def test_real_pddl_reads_and_durative_actions_are_named() -> None:
    for name in ("rovers", "tanks", "briefcase", "novelgym_generated"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert read_pddl(*_texts(name), numeric_default=0).actions
    domain = _texts("blocksworld")[0].replace("(:action pick-up", "(:durative-action pick-up")
    assert "durative actions (temporal PDDL 2.1) are not supported" in str(_error(domain))


def test_bytes_that_are_not_utf8_are_located(tmp_path: Path) -> None:
    path = tmp_path / "domain.pddl"
    path.write_bytes(b"(define (domain d)\n  (:predicates (p\xff)))\n")
    with pytest.raises(PDDLFileError) as err:
        load_pddl_text(path)
    assert (err.value.line, err.value.column) == (2, 18)
    assert "byte 0xff is not UTF-8; expected UTF-8" in str(err.value)
    assert text_from_bytes(b"\xef\xbb\xbf(define", "x") == "(define"
    with pytest.raises(PDDLFileError, match="cannot read the file"):
        load_pddl_text(tmp_path / "missing.pddl")
    with pytest.raises(PDDLFileError):
        load_pddl_text(tmp_path)


def test_errors_stay_short_and_printable() -> None:
    long_name = "x" * 150
    err = _error(_texts("blocksworld")[0], _goal(f"(clear {long_name})"))
    first, shown, caret = str(err).splitlines()
    assert long_name not in first and "xxx..." in first
    one_line = "(define (domain d) " + "(:predicates (p)) " * 5000 + "\x00)"
    err = _error(one_line)
    first, shown, caret = str(err).splitlines()
    assert len(shown) < 120 and shown.strip().startswith("...")
    assert shown[len(caret) - 1] == "?"  # the NUL, made printable, under the caret
    too_long = _error(NUMERIC, "(define (problem x) (:domain n) (:init (= (f) 1" + "0" * 5000
                      + ")) (:goal (p)))")
    assert isinstance(too_long, PDDLLimitError) and len(str(too_long).splitlines()[0]) < 200


def test_division_by_a_constant_zero_is_located_every_time() -> None:
    domain = NUMERIC.replace("(increase (f) 1)", "(increase (f) (/ 1 (- 2 2)))")
    for _ in range(2):  # UP caches the node: the second read must not crash later on
        err = _error(domain)
        assert "division by zero" in str(err) and err.line == 2


def test_type_hierarchies_are_bounded_and_fast() -> None:
    diamonds = " ".join(f"a{i + 1} - a{i} a{i + 1} - b{i} b{i + 1} - a{i} b{i + 1} - b{i}"
                        for i in range(40))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_domain(f"(define (domain d) (:types {diamonds}) (:predicates (p ?x - a40)))")
    assert time.perf_counter() - start < 5  # exponential before the ancestors were memoised
    chain = " ".join(f"t{i} - t{i + 1}" for i in range(100))  # declared from the bottom up
    with pytest.raises(PDDLError, match="type hierarchy is more than 64 levels deep"):
        read_domain(f"(define (domain d) (:types {chain}))")


def test_many_objects_read_in_linear_time() -> None:
    domain = ("(define (domain d) (:types t) (:predicates (p ?x - t))"
              " (:action a :parameters (?x - t) :effect (p ?x)))")
    n = 6000
    objects = " ".join(f"o{i}" for i in range(n))
    problem = f"(define (problem x) (:domain d) (:objects {objects} - t) (:goal (p o0)))"
    start = time.perf_counter()
    read = read_pddl(domain, problem)
    assert len(read.all_objects) == n
    assert time.perf_counter() - start < 10  # quadratic name checks took about a minute
    assert read._has_name_method == read.has_name  # UP's own check is back afterwards


# ------------------------------------------------------------------ knowledge-base folders
@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[KnowledgeBase, Path]:
    kb = KnowledgeBase.from_world(ROOT / "domains" / "lifelong" / "orchard.yaml")
    return kb, kb.save(tmp_path_factory.mktemp("kb") / "kb")


def _copy(saved: tuple[KnowledgeBase, Path], tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir(parents=True)
    for file in saved[1].iterdir():
        (folder / file.name).write_bytes(file.read_bytes())
    return folder


def _kb_error(saved: tuple[KnowledgeBase, Path], folder: Path) -> KnowledgeBaseError | PDDLError:
    """The error loading `folder` raises: a KnowledgeBaseError (a SpecError: one line, file
    first) or, for the PDDL beside kb.json, a located PDDLError."""
    with pytest.raises((KnowledgeBaseError, PDDLError)) as err:
        KnowledgeBase.load(folder, saved[0].base)
    message = str(err.value).splitlines()[0]
    assert "; expected " in message
    if isinstance(err.value, KnowledgeBaseError):
        assert isinstance(err.value, SpecError) and "\n" not in str(err.value)
        assert message.startswith(f"{err.value.location or err.value.file}: "), message
    return err.value


def test_a_saved_folder_loads_with_stray_files_beside_it(saved, tmp_path: Path) -> None:
    folder = _copy(saved, tmp_path)
    (folder / "agent.json").write_text("{}")
    (folder / "policies").mkdir()
    assert KnowledgeBase.load(folder, saved[0].base).diff(saved[0]).empty


def test_missing_and_corrupt_kb_json(saved, tmp_path: Path) -> None:
    folder = _copy(saved, tmp_path)
    kb_json = folder / "kb.json"
    kb_json.unlink()
    err = _kb_error(saved, folder)
    assert str(err).startswith(f"{kb_json}: cannot read the file") and err.file == str(kb_json)
    kb_json.write_text('{"format": "nesyworld.kb/1",\n "entries": [}, "world": "x"}')
    err = _kb_error(saved, folder)
    assert str(err).startswith(f"{kb_json}:2:14: broken JSON")
    assert (err.location.line, err.location.column) == (2, 14)
    kb_json.write_text('{"format": "nesyworld.kb/1",\n "entries": [')
    assert "looks truncated" in str(_kb_error(saved, folder))
    for deep in ("[" * 100_000, "[" * 40 + "]" * 40):  # past the recursion limit, and not
        kb_json.write_text(deep)
        assert f"nested deeper than {KB_MAX_DEPTH} levels" in str(_kb_error(saved, folder))
    kb_json.write_bytes(b'{"format": "nesyworld.kb/1\xff"}')
    assert "is not UTF-8" in str(_kb_error(saved, folder))
    with pytest.raises(KnowledgeBaseError, match="not a folder"):
        KnowledgeBase.load(tmp_path / "nowhere", saved[0].base)


def test_wrong_fields_are_named_by_path(saved, tmp_path: Path) -> None:
    original = json.loads((saved[1] / "kb.json").read_text())
    orchard = "the world 'orchard'"
    cases = {  # keys to the value: (value, field path, message, found[, expected])
        ("format",): ("nesyworld.kb/0", "format", "not a nesyworld knowledge base",
                      "'nesyworld.kb/0'"),
        ("world",): (["orchard"], "world", "a list where a string belongs", "['orchard']"),
        ("entries", 1, "status"): ("sleeping", "entries[1].status",
                                   "not an allowed value", "'sleeping'",
                                   "one of 'active', 'demoted'"),
        ("entries", 1, "meta"): ([], "entries[1].meta", "not an object", None),
        ("entries", 1, "colour"): ("red", "entries[1].colour", "unknown field", None),
        ("entries", 0, "operator", "cost"): ("1", "entries[0].operator.cost",
                                             "a string where a number belongs", "'1'"),
        ("entries", 1, "operator", "cost"): (-1, "entries[1].operator.cost", "negative", "-1"),
        ("entries", 0, "operator", "params"): ([["?x"]], "entries[0].operator.params[0]",
                                               "1 items", None,
                                               '2 items: ["?name", "type"]'),
        ("entries", 1, "operator", "params"): ([["x", "tree"]],
                                               "entries[1].operator.params[0][0]",
                                               "not a PDDL variable", "'x'"),
        ("entries", 2, "operator", "params"): ([["?x", "no_such_type"]],
                                               "entries[2].operator.params[0][1]",
                                               "unknown type", "'no_such_type'",
                                               f"a type or object of {orchard}"),
        ("entries", 0, "operator", "effects"): ([{"kind": "fact"}],
                                                "entries[0].operator.effects[0].kind",
                                                "not an allowed value", "'fact'"),
        ("entries", 2, "operator", "preconditions"): (
            [{"kind": "at_least", "fluent": "inventory", "arg": "?nobody", "value": 1}],
            "entries[2].operator.preconditions[0].arg", "unknown variable", "'?nobody'"),
        ("entries", 0, "operator", "repeat"): (True, "entries[0].operator.repeat",
                                               "a boolean where an integer belongs", "True"),
        ("entries", 0, "operator", "name"): ("../x", "entries[0].operator.name",
                                             "not a PDDL name", "'../x'"),
        ("entries", 1, "operator", "name"): (original["entries"][0]["operator"]["name"],
                                             "entries[1].operator.name",
                                             "an operator listed twice",
                                             repr(original["entries"][0]["operator"]["name"])),
    }
    for keys, (value, path, message, found, *expected) in cases.items():
        data = json.loads(json.dumps(original))
        target = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
        folder = _copy(saved, tmp_path / "_".join(map(str, keys)))
        (folder / "kb.json").write_text(json.dumps(data))
        (folder / "domain.pddl").unlink()
        (folder / "problem.pddl").unlink()
        err = _kb_error(saved, folder)
        assert isinstance(err, KnowledgeBaseError), keys
        assert str(err).startswith(f"{folder / 'kb.json'}: "), keys
        assert err.key_path == path and f"(at '{path}')" in str(err), (keys, str(err))
        assert err.message == message, (keys, str(err))
        assert err.expected and f"; expected {err.expected}" in str(err), keys
        assert not expected or expected[0] == err.expected, (keys, str(err))
        assert found is None or str(err).endswith(f", found {found}"), (keys, str(err))


def test_the_pddl_beside_kb_json_must_read_and_match(saved, tmp_path: Path) -> None:
    folder = _copy(saved, tmp_path)
    domain = (folder / "domain.pddl").read_text()
    (folder / "domain.pddl").write_text(domain.replace("(:action ", "(:action x_", 1))
    err = _kb_error(saved, folder)
    assert isinstance(err, KnowledgeBaseError) and err.file == str(folder / "domain.pddl")
    assert "an action that is not an active operator of kb.json" in str(err)
    assert str(err.found).startswith("x_")
    (folder / "domain.pddl").write_text(domain.replace("(:action", "(:acton", 1))
    assert re.match(rf"{re.escape(str(folder / 'domain.pddl'))}:\d+:\d+: unexpected",
                    str(_kb_error(saved, folder)))
    (folder / "domain.pddl").unlink()
    err = _kb_error(saved, folder)
    assert str(err).startswith(f"{folder / 'problem.pddl'}: a problem without domain.pddl")
    (folder / "problem.pddl").unlink()  # kb.json alone is a whole knowledge base
    assert KnowledgeBase.load(folder, saved[0].base).diff(saved[0]).empty


def test_names_met_after_a_novelty_load(saved, tmp_path: Path) -> None:
    """An adapted agent saves operators over what the novelty brought (a new predicate such as
    `on_fire`, a new object such as `axe`); the base world does not know them, and the load
    must keep them, as the planner's problem declares the names the state adds."""
    data = json.loads((saved[1] / "kb.json").read_text())
    op = data["entries"][0]["operator"]
    op["preconditions"].append({"kind": "fact", "predicate": "on_fire", "args": ["?from"],
                                "negated": True})
    op["preconditions"].append({"kind": "at_least", "fluent": "inventory", "arg": "axe",
                                "value": 1})
    folder = _copy(saved, tmp_path)
    (folder / "kb.json").write_text(json.dumps(data))
    (folder / "domain.pddl").unlink()
    (folder / "problem.pddl").unlink()
    kb = KnowledgeBase.load(folder, saved[0].base)
    assert kb.operator(op["name"]).describe() != saved[0].operator(op["name"]).describe()


@pytest.fixture
def no_hang() -> Iterator[None]:
    """A reader that opened a FIFO would wait for a writer forever: fail after 10 s instead."""
    def stop(signum: int, frame: object) -> None:
        raise TimeoutError("blocked: a FIFO was opened for reading")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 10)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_a_file_error_at_once_not_a_hang(tmp_path: Path, no_hang: None) -> None:
    """`nesyworld parse PIPE` blocked forever: the reader opened it and waited for a writer."""
    fifo = tmp_path / "domain.pddl"
    os.mkfifo(fifo)
    start = time.perf_counter()
    with pytest.raises(PDDLFileError) as err:
        load_pddl_text(fifo)
    assert time.perf_counter() - start < 2
    assert str(err.value) == (f"{fifo}:1:1: cannot read the file (a FIFO, not a regular file); "
                              "expected a readable PDDL file")


@pytest.mark.parametrize("name", ["domain.pddl", "problem.pddl", "kb.json"])
def test_a_kb_folder_reads_only_its_own_regular_files(saved, tmp_path: Path, name: str,
                                                      no_hang: None) -> None:
    """A link in the folder is refused unopened: its error would quote the first word of the
    file it leads to (`nesyworld run --kb DIR` with domain.pddl -> /etc/passwd), and a FIFO
    would block the load."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-WORD and more\n")
    folder = _copy(saved, tmp_path)
    (folder / name).unlink()
    (folder / name).symlink_to(secret)
    err = _kb_error(saved, folder)
    assert "a symbolic link, not a regular file" in str(err)
    assert "TOP-SECRET" not in str(err) and str(folder / name) in str(err)
    (folder / name).unlink()
    (folder / name).symlink_to(tmp_path / "nowhere")  # a link that leads nowhere is there too
    assert "a symbolic link" in str(_kb_error(saved, folder))
    if hasattr(os, "mkfifo"):
        (folder / name).unlink()
        os.mkfifo(folder / name)
        start = time.perf_counter()
        assert "a FIFO, not a regular file" in str(_kb_error(saved, folder))
        assert time.perf_counter() - start < 2
