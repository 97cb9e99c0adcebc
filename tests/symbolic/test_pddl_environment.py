"""The reader's unified-planning environment loads the planning engines only when a planner,
validator or compiler asks (issue 20: reading a file took over a second for them), and is in
every other way UP's own: the same components, the global environment, equal problems."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from unified_planning.environment import Environment

from nesyworld.symbolic.pddl.environment import (
    DeferredFactoryEnvironment,
    deferral_supported,
)


def test_this_unified_planning_is_the_one_the_class_serves() -> None:
    """A UP release that adds a component to Environment makes this fail (and the reader fall
    back to UP's own environment) instead of breaking at the first use of that component."""
    assert deferral_supported()


def test_every_component_is_what_up_builds() -> None:
    ours, theirs = DeferredFactoryEnvironment(), Environment()
    assert not ours.factory_built
    for name, value in vars(Environment).items():
        if isinstance(value, property):
            assert type(getattr(ours, name)) is type(getattr(theirs, name)), name
    assert ours.factory_built and ours.factory.environment is ours
    assert ours.error_used_name is True and ours.credits_stream is sys.stdout
    copy = pickle.loads(pickle.dumps(ours))  # UP's parallel engine pickles environments
    assert copy.credits_stream is None and copy.type_manager is not ours.type_manager


def test_reading_loads_no_engines_and_planning_still_works(tmp_path: Path) -> None:
    """In a fresh process: reading imports no engine; the global environment is then the
    deferred one, plans with a real planner, and holds a problem equal to UP's reader's."""
    data = Path(__file__).resolve().parent / "data"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from nesyworld.symbolic.pddl.reader import read_pddl\n"
        f"data = Path({str(data)!r})\n"
        "p = read_pddl((data / 'blocksworld_domain.pddl').read_text(),\n"
        "              (data / 'blocksworld_problem.pddl').read_text())\n"
        "read_only = 'unified_planning.engines' in sys.modules\n"
        "import unified_planning.shortcuts as ups\n"
        "env = ups.get_environment()\n"
        "env.credits_stream = None\n"
        "from unified_planning.io import PDDLReader\n"
        "theirs = PDDLReader().parse_problem_string(\n"
        "    (data / 'blocksworld_domain.pddl').read_text(),\n"
        "    (data / 'blocksworld_problem.pddl').read_text())\n"
        "with ups.OneshotPlanner(problem_kind=p.kind) as planner:\n"
        "    solved = planner.solve(p).plan is not None\n"
        "print(read_only, type(env).__name__, p.environment is env, p == theirs, solved)\n")
    # cwd: planners write their task files into the working directory
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split("\n")[-2]
    assert out == "False DeferredFactoryEnvironment True True True"
