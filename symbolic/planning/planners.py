"""Planners: a small registry over unified-planning engines, with timeouts and a cache.

Every call has a timeout, and its result is a Plan, Unsolvable, or Unknown (a timeout or a
planner error, with the planner's message): a timeout is never reported as unsolvable, unlike
the reference implementation. Plans and plannability are cached by (domain, abstract state,
goal), so the recovery loop's frequent "is this plannable?" questions cost a dict lookup.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from unified_planning.model import Problem

from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import Derivation, count_thresholds
from nesyworld.symbolic.planning.problems import classical_problem, numeric_problem
from nesyworld.world.actions.schema import INVENTORY, WORLD

if TYPE_CHECKING:
    from nesyworld.symbolic.planning.in_process import GroundTasks

Form = Literal["classical", "numeric"]


@dataclass(frozen=True)
class PlannerInfo:
    """A registered planner and what it can do."""

    name: str
    engine: str
    form: Form
    optimal: bool
    description: str
    params: Mapping[str, Any] = field(default_factory=dict)


PLANNERS: dict[str, PlannerInfo] = {}


def register_planner(info: PlannerInfo) -> None:
    PLANNERS[info.name] = info


register_planner(
    PlannerInfo(
        "fast-downward",
        "fast-downward",
        "classical",
        True,
        "Fast Downward, A* with h^max on the classical compilation (optimal plan length)",
        {"fast_downward_search_config": "astar(hmax())"},
    )
)
register_planner(
    PlannerInfo(
        "fast-downward-sat",
        "fast-downward",
        "classical",
        False,
        "Fast Downward, LAMA (first solution) on the classical compilation: fast, not optimal",
    )
)
register_planner(
    PlannerInfo(
        "enhsp",
        "enhsp-opt",
        "numeric",
        True,
        "ENHSP on the numeric form (counts as fluents), optimal configuration",
    )
)
register_planner(
    PlannerInfo(
        "enhsp-sat",
        "enhsp",
        "numeric",
        False,
        "ENHSP on the numeric form, greedy configuration: faster, not optimal",
    )
)
register_planner(
    PlannerInfo(
        "in-process",
        "nesyworld-search",
        "classical",
        False,
        "our compiled best-first search on g + h_FF in this process, over the classical "
        "compilation ground once per domain: milliseconds a call, complete, plans not proven "
        "optimal (symbolic/planning/search_kernel.py)",
    )
)
REMOVED = {
    "pyperplan": "removed: it supports neither conditional effects nor negative conditions, "
                 "which every derived task uses, so it could only answer Unknown there; "
                 "'in-process' is the planner that runs in this process",
}
"""Planners that were registered once, with why they are not any more."""


@dataclass(frozen=True)
class PlanStep:
    """One operator of a plan, with its arguments (type names)."""

    operator: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.operator}({', '.join(self.args)})" if self.args else self.operator


@dataclass(frozen=True)
class PlanResult:
    """The outcome of one planner call."""

    status: Literal["plan", "unsolvable", "unknown"]
    steps: tuple[PlanStep, ...] = ()
    planner: str = ""
    seconds: float = 0.0
    message: str = ""
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "plan"

    def __len__(self) -> int:
        return len(self.steps)


def build_problem(d: Derivation, form: Form) -> Problem:
    """The problem for one engine call, in the engine's form (built, solved, dropped)."""
    return (classical_problem(d, finished=True) if form == "classical"
            else numeric_problem(d, finished=True))


@contextlib.contextmanager
def _private_cwd() -> Iterator[None]:
    """Run in a fresh directory: Fast Downward writes `output.sas` into the working
    directory, so two planner processes started from one folder read each other's tasks."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="nesyworld-plan-") as folder:
        os.chdir(folder)
        try:
            yield
        finally:
            os.chdir(previous)


IN_PROCESS = "nesyworld-search"
"""The engine searched in this process rather than through unified-planning's engines."""


def _in_process(name: str, search: Callable[[], list[tuple[str, tuple[str, ...]]] | None]
                ) -> PlanResult:
    """Run an in-process search and say what it found: a plan, a proof of none, or Unknown
    for a task it cannot read or a search that hit its bound."""
    from nesyworld.symbolic.planning.compiled_task import SearchLimit
    from nesyworld.symbolic.planning.strips import UnsupportedTask

    start = time.perf_counter()
    try:
        steps = search()
    except (UnsupportedTask, SearchLimit) as exc:
        return PlanResult("unknown", planner=name, seconds=time.perf_counter() - start,
                          message=f"{type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    if steps is None:
        return PlanResult("unsolvable", (), name, seconds,
                          "the search space was exhausted (or the goal is unreachable even "
                          "ignoring deletes)")
    return PlanResult("plan", tuple(PlanStep(n, a) for n, a in steps), name, seconds)


def _solve(info: PlannerInfo, problem: Problem, timeout: float) -> PlanResult:
    if info.engine == IN_PROCESS:
        from nesyworld.symbolic.planning.in_process import solve_problem

        return _in_process(info.name, lambda: solve_problem(problem))
    # The engines (and ConfigSpace and scipy with them: about a second) load only here, when
    # a planner process is asked for; the in-process search never needs them.
    import unified_planning.shortcuts as up
    from unified_planning.engines import PlanGenerationResultStatus as Status

    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), _private_cwd():
            warnings.simplefilter("ignore")  # "cannot establish whether X can solve this"
            with up.OneshotPlanner(name=info.engine, params=dict(info.params)) as engine:
                result = engine.solve(problem, timeout=timeout)
    except Exception as exc:  # a crashed planner is Unknown, not a crash of the caller
        return PlanResult(
            "unknown",
            planner=info.name,
            seconds=time.perf_counter() - start,
            message=f"{type(exc).__name__}: {exc}",
        )
    seconds = time.perf_counter() - start
    logs = " ".join(str(log.message) for log in (result.log_messages or []))[-500:]
    if result.status in (Status.SOLVED_SATISFICING, Status.SOLVED_OPTIMALLY):
        steps = tuple(
            PlanStep(a.action.name, tuple(str(p) for p in a.actual_parameters))
            for a in result.plan.actions
        )
        return PlanResult("plan", steps, info.name, seconds)
    if result.status == Status.UNSOLVABLE_PROVEN:
        return PlanResult("unsolvable", (), info.name, seconds, logs)
    if result.status == Status.TIMEOUT:
        return PlanResult("unknown", (), info.name, seconds,
                          f"timeout after {timeout:g} s (the limit) {logs}".strip())
    return PlanResult(
        "unknown", (), info.name, seconds, f"{result.status.name.lower()}: {logs}".strip()
    )


@dataclass
class PlanCache:
    """Plans by (planner, domain, state, goal). Only definite answers are stored: a timeout
    may succeed next time, so Unknown is never cached."""

    entries: dict[tuple[Any, ...], PlanResult] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def get(self, key: tuple[Any, ...]) -> PlanResult | None:
        found = self.entries.get(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, key: tuple[Any, ...], result: PlanResult) -> None:
        if result.status != "unknown":
            self.entries[key] = result


class Planner:
    """A planner from the registry; use as a context manager or call `plan` directly.

    >>> with Planner("fast-downward", timeout=10) as planner:
    ...     result = planner.plan(derivation)
    """

    def __init__(
        self,
        name: str = "fast-downward",
        timeout: float = 10.0,
        cache: PlanCache | None = None,
        solve: Callable[[PlannerInfo, Problem, float], PlanResult] = _solve,
        max_nodes: int | None = None,
    ) -> None:
        """`timeout` bounds the engines that run as processes; the in-process search is
        bounded by `max_nodes` states instead (symbolic/planning/compiled_task.py)."""
        if name in REMOVED:
            raise KeyError(f"planner '{name}' was {REMOVED[name]}")
        if name not in PLANNERS:
            raise KeyError(f"unknown planner '{name}'; registered: {', '.join(PLANNERS)}")
        self.info = PLANNERS[name]
        self.timeout = timeout
        self.cache = cache if cache is not None else PlanCache()
        self._solve = solve
        self.calls = 0
        self._compared: dict[int, set[tuple[str, str]]] = {}
        self.seconds = 0.0
        self._ground: GroundTasks | None = None
        self.max_nodes = max_nodes

    def __enter__(self) -> Planner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def groundings(self) -> int:
        """How many tasks the in-process engine has ground (its cold calls); 0 for others."""
        return self._ground.ground_calls if self._ground is not None else 0

    def close(self) -> None:
        """Free what the in-process engine keeps (its ground tasks); the planner stays usable."""
        if self._ground is not None:
            self._ground.close()
            self._ground = None

    def plan(
        self,
        d: Derivation,
        state: SymbolicState | None = None,
        goal: Mapping[str, int] | None = None,
    ) -> PlanResult:
        state = state if state is not None else d.initial
        goal_items = tuple(sorted((goal if goal is not None else d.goal).items()))
        key = (self.info.name, d.domain_key(), self._compared_only(d, state, goal_items),
               goal_items)
        cached = self.cache.get(key)
        if cached is not None:
            return PlanResult(
                cached.status, cached.steps, cached.planner, 0.0, cached.message, cached=True
            )
        unknown = [item for item, _ in goal_items if item not in state.names]
        if unknown:
            raise ValueError(f"goal names unknown items {unknown}; known: "
                             f"{', '.join(state.names)}")
        try:
            result = self._plan_task(d.with_state(state, dict(goal_items)))
        except Exception as exc:  # whatever the engine, a crash is Unknown for the caller
            result = PlanResult("unknown", planner=self.info.name,
                                message=f"{type(exc).__name__}: {exc}")
        self.calls += 1
        self.seconds += result.seconds
        self.cache.put(key, result)
        return result

    def _plan_task(self, d: Derivation) -> PlanResult:
        if self.info.engine != IN_PROCESS or self._solve is not _solve:
            return self._solve(self.info, build_problem(d, self.info.form), self.timeout)
        from nesyworld.symbolic.planning.in_process import GroundTasks

        if self._ground is None:
            self._ground = (GroundTasks() if self.max_nodes is None
                            else GroundTasks(max_nodes=self.max_nodes))
        ground = self._ground
        return _in_process(self.info.name, lambda: ground.solve(d))

    def _compared_only(self, d: Derivation, state: SymbolicState,
                       goal_items: tuple[tuple[str, int], ...]) -> SymbolicState:
        """The state as the cache sees it: counts that no precondition and no goal compares
        set to 0. They cannot change a plan (effects may move them, nothing reads them), and
        learning visits many states that differ only there (fences broken on the way), so
        without this each was a planner call of its own."""
        compared = self._compared.get(d.domain_key())
        if compared is None:
            compared = set(count_thresholds(d.operators))
            self._compared[d.domain_key()] = compared
        goal = {item for item, _ in goal_items}
        world = tuple(v if (WORLD, n) in compared else 0
                      for n, v in zip(state.names, state.world, strict=True))
        inventory = tuple(v if (INVENTORY, n) in compared or n in goal else 0
                          for n, v in zip(state.names, state.inventory, strict=True))
        return SymbolicState(state.names, state.facing, state.holding, world, inventory,
                             state.props)

    def solve(self, problem: Problem) -> PlanResult:
        """Plan any unified-planning problem (one read from PDDL, say), without the cache."""
        try:
            result = self._solve(self.info, problem, self.timeout)
        except Exception as exc:
            result = PlanResult("unknown", planner=self.info.name,
                                message=f"{type(exc).__name__}: {exc}")
        self.calls += 1
        self.seconds += result.seconds
        return result

    def plannable(
        self,
        d: Derivation,
        state: SymbolicState | None = None,
        goal: Mapping[str, int] | None = None,
    ) -> bool | None:
        """True, False, or None when the planner could not tell (timeout, error)."""
        result = self.plan(d, state, goal)
        return None if result.status == "unknown" else result.ok
