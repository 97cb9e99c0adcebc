"""What `nesyworld parse` loads: our lark reader and unified-planning's model, never a learner,
a compiler, UP's engines (ConfigSpace and scipy with them) or UP's plans; a `--plan` loads
the plans and the validator's engines when it is asked for.

Not asserted, because it does not hold: that `parse` loads no unified-planning (and with it
networkx, which `unified_planning.model` imports as it loads). The command checks a problem by
building it as UP objects, and its summary (kind, requirements, goal) is read from them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def run_parse(*argv: str) -> tuple[dict, set[str]]:
    """`nesyworld parse --json ARGV` through the CLI's main in a fresh interpreter: the
    summary it prints and the modules loaded at the end."""
    code = textwrap.dedent(f"""
        import contextlib, io, json, sys
        from nesyworld.experiments.cli.main import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["parse", "--json", *{list(argv)!r}])
        print(json.dumps({{"code": code, "summary": json.loads(out.getvalue()),
                           "modules": sorted(sys.modules)}}))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=DATA, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["code"] == 0
    return report["summary"], set(report["modules"])


def loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


def test_parse_loads_no_learner_compiler_engines_or_plans() -> None:
    summary, modules = run_parse("novelgym_appendix_g_domain.pddl",
                                 "novelgym_appendix_g_problem.pddl")
    assert summary["counts"]["actions"] == 15
    for heavy in ("torch", "tianshou", "numba", "ray", "scipy", "ConfigSpace", "gymnasium",
                  "unified_planning.engines", "unified_planning.plans"):
        assert not loaded(modules, heavy), heavy
    assert loaded(modules, "lark")


def test_parse_with_a_plan_loads_the_plans_when_asked() -> None:
    summary, modules = run_parse("novelgym_generated_domain.pddl",
                                 "novelgym_generated_problem.pddl",
                                 "--plan", "novelgym_generated_plan.txt")
    assert summary["plan"] == "VALID"
    assert loaded(modules, "unified_planning.plans")
    assert not loaded(modules, "torch")
