"""Deriving and planning in process never loads unified-planning's engines (ConfigSpace and
scipy.stats with them, about a second); a process planner loads them when asked for."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_in_process_planning_loads_no_engines_until_a_process_planner_is_asked() -> None:
    code = textwrap.dedent("""
        import sys
        from nesyworld.symbolic import derive, write_pddl
        from nesyworld.symbolic.planning import Planner
        d = derive("pogostick")
        write_pddl(d)
        with Planner("in-process") as planner:
            assert len(planner.plan(d)) == 15
        print("unified_planning.engines" in sys.modules)
        with Planner("fast-downward") as planner:
            assert len(planner.plan(d)) == 15
        print("unified_planning.engines" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "True"]
