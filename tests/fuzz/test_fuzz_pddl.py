"""PDDL: mutated domains, problems, plans and file bytes through the public reader.

Sources: the IPC-style and NovelGym files in tests/symbolic/data and the PDDL the world derives
(orchard, numeric and classical), made in memory. Each mutant goes through
`read_pddl` and `summarize`, `read_plan`, or `load_pddl_text` from a file under tmp_path; only
PDDLError may escape, in under HANG_SECONDS.
"""

from __future__ import annotations

import functools
import os
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.pddl.reader import load_pddl_text, read_pddl, read_plan
from nesyworld.symbolic.pddl.summary import summarize
from nesyworld.symbolic.pddl.writer import write_pddl

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "symbolic" / "data"
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 8)
FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                         suppress_health_check=list(HealthCheck))


@functools.cache
def sources() -> dict[str, tuple[str, str]]:
    """(domain, problem) texts by name: the shipped test files and freshly derived PDDL."""
    out = {}
    for domain in sorted(DATA.glob("*_domain.pddl")):
        name = domain.name.removesuffix("_domain.pddl")
        problem = domain.with_name(f"{name}_problem.pddl")
        out[name] = (domain.read_text(encoding="utf-8"), problem.read_text(encoding="utf-8"))
    for spec, classical in (("orchard", False), ("orchard", True)):
        path = ROOT / "domains" / "lifelong" / f"{spec}.yaml"
        out[f"{spec} {'classical' if classical else 'numeric'}"] = write_pddl(
            derive(path, seed=0), classical=classical)
    return out


@functools.cache
def novelgym_problem():  # type: ignore[no-untyped-def]
    domain, problem = sources()["novelgym_generated"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_pddl(domain, problem, numeric_default=0)


def _read(domain: str, problem: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summarize(read_pddl(domain, problem, "domain.pddl", "problem.pddl", numeric_default=0))


@FUZZ_SETTINGS
@given(data=st.data())
def test_mutated_domains_and_problems_read_or_refuse(fuzz, data) -> None:
    name = data.draw(st.sampled_from(sorted(sources())), label="source")
    domain, problem = sources()[name]
    part = data.draw(st.sampled_from(("domain", "problem", "both", "domain alone")), label="part")
    if part in ("domain", "both", "domain alone"):
        domain = fuzz.mutant(data, domain)
    if part in ("problem", "both"):
        problem = fuzz.mutant(data, problem)
    fuzz.run(f"{name} ({part} mutated)",
             lambda: _read(domain, None if part == "domain alone" else problem))


@FUZZ_SETTINGS
@given(data=st.data())
def test_mutated_file_bytes_load_or_refuse(fuzz, data, tmp_path_factory) -> None:
    name = data.draw(st.sampled_from(sorted(sources())), label="source")
    domain, problem = sources()[name]
    raw = fuzz.mutant_bytes(data, domain.encode("utf-8"))
    path = tmp_path_factory.mktemp("pddl") / "domain.pddl"
    path.write_bytes(raw)
    fuzz.run(f"{name} domain bytes mutated", lambda: _read(load_pddl_text(path), problem))


@FUZZ_SETTINGS
@given(data=st.data())
def test_mutated_plans_read_or_refuse(fuzz, data) -> None:
    plan = fuzz.mutant(data, (DATA / "novelgym_generated_plan.txt").read_text(encoding="utf-8"))
    problem = novelgym_problem()
    fuzz.run("novelgym plan mutated", lambda: read_plan(plan, problem, "plan.txt"))
