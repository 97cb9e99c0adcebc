"""The in-process planner: a task ground once, searched from many states by LAPKT's BFWS.

Its plans are checked with unified-planning's own validator on the classical problem built
for the same state (never with our own code), and its answers are compared with Fast
Downward's on states the world reaches, so a wrong grounding or a wrong state written over
the ground atoms shows up as an invalid plan or a disagreement.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
import unified_planning.shortcuts as up
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unified_planning.engines import ValidationResultStatus
from unified_planning.model import Fluent, InstantaneousAction, Problem
from unified_planning.plans import ActionInstance, SequentialPlan

from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.derivation.derive import Derivation, derive
from nesyworld.symbolic.pddl.reader import read_pddl
from nesyworld.symbolic.planning.compiled_task import CompiledTask
from nesyworld.symbolic.planning.planners import PLANNERS, PlanCache, Planner, PlanStep
from nesyworld.symbolic.planning.problems import classical_atoms, classical_problem, count_caps
from nesyworld.symbolic.planning.strips import (
    Conditions,
    UnknownObjects,
    UnsupportedTask,
    ground,
)
from nesyworld.world import World
from nesyworld.world.novelty.transforms import apply_novelties

DATA = Path(__file__).parent / "data"
_FD = PlanCache()


@functools.cache
def _derivation(novelty: str | None = None) -> Derivation:
    spec = apply_novelties("pogostick", [novelty]) if novelty else "pogostick"
    return derive(spec, seed=0)


def _walk(seed: int, steps: int, novelty: str | None = None) -> SymbolicState:
    """The abstract state after `steps` random actions the world does not refuse."""
    spec = apply_novelties("pogostick", [novelty]) if novelty else "pogostick"
    world = World(spec, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = np.flatnonzero(world.action_mask())
        if not len(legal):
            break
        world.step(int(rng.choice(legal)))
    return abstract(world)


def _assert_valid(problem: Problem, steps: tuple[PlanStep, ...]) -> None:
    plan = SequentialPlan([
        ActionInstance(problem.action(s.operator), tuple(problem.object(a) for a in s.args))
        for s in steps])
    with up.PlanValidator(problem_kind=problem.kind, plan_kind=plan.kind) as validator:
        result = validator.validate(problem, plan)
    assert result.status == ValidationResultStatus.VALID, [str(s) for s in steps]


def test_bfws_is_registered_in_process_and_not_optimal() -> None:
    info = PLANNERS["in-process"]
    assert info.form == "classical" and not info.optimal


def test_pogostick_plan_validates_and_is_near_optimal() -> None:
    d = _derivation()
    result = Planner("in-process").plan(d)
    assert result.ok and result.planner == "in-process"
    _assert_valid(classical_problem(d), result.steps)
    assert 15 <= len(result) <= 17  # Fast Downward's optimum is 15


def test_the_task_is_ground_once_per_domain() -> None:
    d = _derivation()
    planner = Planner("in-process")
    for seed in range(4):
        assert planner.plan(d.with_state(_walk(seed, 30))).status != "unknown"
    assert 1 <= planner.groundings <= 2  # a state beyond the first one's ladder caps: 2


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), steps=st.integers(0, 60),
       novelty=st.sampled_from([None, "axe", "fence", "fire"]))
def test_answers_agree_with_fast_downward_from_reached_states(
        seed: int, steps: int, novelty: str | None) -> None:
    d = _derivation(novelty).with_state(_walk(seed, steps, novelty))
    ours = Planner("in-process").plan(d)
    theirs = Planner("fast-downward", timeout=120, cache=_FD).plan(d)
    assert ours.status == theirs.status, (ours.message, theirs.message)
    if ours.ok:
        _assert_valid(classical_problem(d), ours.steps)


def test_a_state_naming_objects_new_since_the_grounding_is_ground_again() -> None:
    """After the fence novelty the agent starts facing a fence, an object the pre-novelty
    task was not ground with (the operators, hence the domain key and the caps, are the
    same). A task ground before must not be reused: its atoms have no facing(fence), the
    state lost its facing fact, and the search called a solvable task unsolvable."""
    d = _derivation()
    planner = Planner("in-process")
    assert planner.plan(d).ok  # grounds the pre-novelty objects
    state = abstract(World(apply_novelties("pogostick", ["fence"]), seed=0))
    assert state.names[state.facing] == "fence" and "fence" not in d.initial.names
    result = planner.plan(d, state)
    assert result.ok, result.message
    _assert_valid(classical_problem(d.with_state(state)), result.steps)
    assert planner.groundings == 2


def test_a_task_refuses_a_state_over_objects_it_was_not_ground_with() -> None:
    """The guard behind the cache key: such a state is refused (Unknown to a caller), not
    searched without the facts of its new objects."""
    d = _derivation()
    task = ground(classical_problem(d))
    state = abstract(World(apply_novelties("pogostick", ["fence"]), seed=0))
    post = d.with_state(state)
    with pytest.raises(UnknownObjects, match="fence"):
        task.state(*classical_atoms(post, count_caps(post)))


def test_a_goal_nothing_produces_is_unsolvable_without_search() -> None:
    d = _derivation()
    result = Planner("in-process").plan(d, goal={"bedrock": 1})
    assert result.status == "unsolvable" and result.seconds < 5.0


def test_a_search_that_runs_out_of_states_is_unknown() -> None:
    """Forty diamonds are reachable ignoring deletes (ore is never used up there), so only
    the bound ends the search: Unknown, like a timeout, never Unsolvable."""
    d = _derivation()
    planner = Planner("in-process", max_nodes=2_000)
    result = planner.plan(d, goal={"diamond": 40})
    assert result.status == "unknown" and "2,000 states" in result.message


def test_a_goal_that_already_holds_is_the_empty_plan() -> None:
    d = _derivation()
    result = Planner("in-process").plan(d, goal={"pogo_stick": 0, "iron_pickaxe": 1})
    assert result.ok and len(result) == 0


def test_classical_atoms_are_the_problems_initial_facts() -> None:
    """The warm path writes a state as atoms without building the problem; these must be
    exactly the facts the built problem starts with, or the search starts elsewhere."""
    for seed, steps in ((0, 0), (1, 25), (2, 60)):
        d = _derivation().with_state(_walk(seed, steps))
        caps = count_caps(d)
        problem = classical_problem(d, caps=caps)
        built = {(f.fluent().name, tuple(str(a) for a in f.args))
                 for f, v in problem.explicit_initial_values.items() if v.is_true()}
        atoms, goal = classical_atoms(d, caps)
        assert set(atoms) == built
        assert {(g.fluent().name, tuple(str(a) for a in g.args)) for g in problem.goals} \
            == set(goal)


def test_a_hand_written_strips_domain_through_solve() -> None:
    problem = read_pddl((DATA / "blocksworld_domain.pddl").read_text(),
                        (DATA / "blocksworld_problem.pddl").read_text())
    result = Planner("in-process").solve(problem)
    assert result.ok and len(result) > 0
    _assert_valid(problem, result.steps)


def test_a_numeric_task_is_unknown_with_the_reason() -> None:
    problem = read_pddl((DATA / "novelgym_appendix_g_domain.pddl").read_text(),
                        (DATA / "novelgym_appendix_g_problem.pddl").read_text(),
                        numeric_default=0)
    result = Planner("in-process").solve(problem)
    assert result.status == "unknown" and "numeric" in result.message.lower()


def _switch_task() -> Problem:
    """on -> flip makes `lit` true only when `on` holds (a conditional effect), and `off`
    must be false to finish (a negative condition)."""
    problem = Problem("switch")
    on, off, lit = (Fluent(n, up.BoolType()) for n in ("on", "off", "lit"))
    for f, value in ((on, False), (off, True), (lit, False)):
        problem.add_fluent(f, default_initial_value=value)
    press = InstantaneousAction("press")
    press.add_effect(on, True)
    press.add_effect(off, False)
    flip = InstantaneousAction("flip")
    flip.add_effect(lit, True, condition=on)
    for action in (press, flip):
        problem.add_action(action)
    problem.add_goal(up.And(lit, up.Not(off)))
    return problem


def test_conditional_effects_and_negative_conditions() -> None:
    problem = _switch_task()
    task = ground(problem)
    assert any(a.conditional for a in task.actions)
    result = Planner("in-process").solve(problem)
    assert result.ok and [s.operator for s in result.steps] == ["press", "flip"]


def test_relaxed_reachability_ignores_deletes_not_conditions() -> None:
    task = ground(_switch_task())
    lit = task.index[("lit", ())]
    on = task.index[("on", ())]
    assert CompiledTask(task).relaxed_reachable(frozenset(), Conditions((lit,), ()))
    flip_only = [a for a in task.actions if a.name == "flip"]
    without_press = CompiledTask(type(task)(task.atoms, flip_only, task.init, task.goal))
    assert not without_press.relaxed_reachable(frozenset(), Conditions((lit,), ()))
    assert without_press.relaxed_reachable(frozenset({on}), Conditions((lit,), ()))


def test_numbers_are_refused_by_the_grounding() -> None:
    problem = Problem("count")
    n = Fluent("n", up.IntType())
    problem.add_fluent(n, default_initial_value=0)
    step = InstantaneousAction("step")
    step.add_increase_effect(n, 1)
    problem.add_action(step)
    problem.add_goal(up.GE(n, 2))
    with pytest.raises(UnsupportedTask):
        ground(problem)


def test_pyperplan_is_gone_with_its_reason() -> None:
    with pytest.raises(KeyError, match="conditional effects"):
        Planner("pyperplan")
