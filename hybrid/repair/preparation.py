"""Trials in a prepared state: a new action refused wherever it was tried may need things the
agent does not hold yet but knows how to get.

A goal whose recipe the knowledge base never saw is made by an action it was never told of
(`craft_reinforced_pogo_stick`), and that action is refused as things stand: its inputs are
not in the inventory. The plain trials (trials.py) cannot show what it does, and learning a
policy for it from scratch finds nothing in a hundred thousand steps. So before giving up on
such an action the agent *prepares*: it plans with its own knowledge base to hold what the
action likely needs, runs that plan in a restored copy of the env, and tries the action again
there, where it stands and after approaching the places its kin act at (a craft faces a
crafting table because every craft the agent knows does). What it likely needs comes from:

- the refusals, when the env explains them ("needs 1 pogo_stick", "needs facing
  crafting_table"): each round adds what the last refusal named, until one is accepted;
- otherwise, guesses of growing breadth: the items the action's name mentions; those and the
  items of the task the agent was first given; all of that and one of everything its
  knowledge base can make, as far as one plan can hold them together.

An accepted trial becomes an operator as every trial does (trials.py's `induce`): what it
consumed is a precondition, what it made an effect. Each prepared run is a plan executed step
by step in a copy, and counted like every other trial.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.boundary.interface import Copies
from nesyworld.hybrid.execution.skills import Mode
from nesyworld.hybrid.repair.evidence import read_refusal
from nesyworld.hybrid.repair.trials import (
    SKIPPED,
    Trial,
    TrialResult,
    changed,
    mentions,
    named_items,
    run_trials,
)
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world import Snapshot
from nesyworld.world.actions.schema import (
    AIR,
    FACING,
    HOLDING,
    INVENTORY,
    CountAtLeast,
    CountChange,
    Fact,
)

Goal = dict[str, int]


def producible(kb: KnowledgeBase) -> list[str]:
    """Items some active operator of the knowledge base adds to the inventory."""
    out: list[str] = []
    for op in kb.active:
        for e in op.effects:
            if isinstance(e, CountChange) and e.fluent == INVENTORY and e.delta > 0 and (
                    not e.arg.startswith("?")) and e.arg not in out:
                out.append(e.arg)
    return out


def kin_places(action: str, kb: KnowledgeBase) -> list[str] | None:
    """What the known actions of the same verb face (every craft at a station faces a
    crafting table); None when the agent knows no action of that verb."""
    verb = action.split("_")[0]
    kin = [op for op in kb.active if op.action == verb or op.action.startswith(verb + "_")]
    if not kin:
        return None
    out: list[str] = []
    for op in kin:
        for c in op.preconditions:
            if isinstance(c, Fact) and c.predicate == FACING and not c.negated and (
                    not c.args[0].startswith("?")) and c.args[0] not in out:
                out.append(c.args[0])
    return out


class Needs:
    """What the refusals of one action have named so far: items (with counts), places to
    face, items to hold."""

    def __init__(self, known: Collection[str]) -> None:
        self.known = set(known)
        self.items: Goal = {}
        self.faced: list[str] = []
        self.held: list[str] = []

    def key(self) -> tuple[Any, ...]:
        return (tuple(sorted(self.items.items())), tuple(self.faced), tuple(self.held))

    def absorb(self, results: Sequence[TrialResult]) -> None:
        for r in results:
            if r.accepted or not r.reason:
                continue
            for c in read_refusal(r.reason, None, self.known).needs:
                if isinstance(c, CountAtLeast) and c.fluent == INVENTORY:
                    self.items[c.arg] = max(self.items.get(c.arg, 0), c.value)
                elif isinstance(c, Fact) and c.predicate == FACING and (
                        c.args[0] not in self.faced):
                    self.faced.append(c.args[0])
                elif isinstance(c, Fact) and c.predicate == HOLDING:
                    self.items.setdefault(c.args[0], 1)
                    if c.args[0] not in self.held:
                        self.held.append(c.args[0])


def prepare(copies: Copies, snapshot: Snapshot, kb: KnowledgeBase, planner: Planner,
            goal: Mapping[str, int], max_steps: int, *, mode: Mode = "macro",
            skills: Mapping[str, Any] | None = None
            ) -> tuple[tuple[Snapshot, SymbolicState] | None, int]:
    """Run the planning agent with `kb` toward holding `goal`, from `snapshot`, in a copy;
    (the state it reached and what it observes there, env steps taken), the state None when
    it did not get there."""
    view = copies.adapter(snapshot)
    env = view.env
    agent = PlanningAgent(env, kb, PlanningConfig(mode=mode,
                                                  max_failures_per_operator=1), host=view)
    agent.planner = planner
    agent.learned = dict(skills or {})
    agent.goal = dict(goal)
    info: dict[str, Any] = {"ok": True}
    agent.reset(None, info)
    steps = 0
    z = view.detect()
    while not z.carries(goal):
        if steps >= max_steps:
            return None, steps
        _, reward, terminated, truncated, info = env.step(agent.act(None, info))
        steps += 1
        agent.observe(None, float(reward), terminated, truncated, info)
        if terminated or truncated:
            return None, steps
        z = view.detect()
    return (view.snapshot(), z), steps


def guesses(action: str, z: SymbolicState, kb: KnowledgeBase, planner: Planner,
            known: Collection[str]) -> Iterator[Goal]:
    """Goals of growing breadth to prepare when refusals name nothing (see the module's
    docstring); the widest is built lazily, one planner call per item it considers."""
    named = {n: 1 for n in named_items(action, known)}
    yield named
    first = {**named, **{n: k for n, k in kb.base.goal.items() if n in known}}
    yield first
    goal = dict(first)
    planning = kb.derivation()
    for item in producible(kb):
        if item not in goal and item in known:
            wider = {**goal, item: 1}
            if planner.plannable(planning, z, wider):
                goal = wider
    yield goal


def trials_for(action: str, z: SymbolicState, kb: KnowledgeBase, offered: Sequence[str],
               needs: Needs, goal: Mapping[str, int]) -> list[Trial]:
    """Where to try `action` in a prepared state: facing each place the refusals named or its
    kin face (every approachable type when the verb is unknown), and as it stands; with
    nothing selected first when something is (what the plan happened to select is not a
    precondition), then as it is."""
    places = list(needs.faced)
    kin = kin_places(action, kb)
    if kin is None:
        kin = [n for i, n in enumerate(z.names) if n != AIR and z.world[i] > 0]
    places += [p for p in kin if p not in places]
    contexts: list[tuple[tuple[str, ...], tuple[str, str] | None]] = [
        ((f"approach_{p}",), (FACING, p)) for p in places if f"approach_{p}" in offered]
    contexts.append(((), None))  # last: where the plan left it is no condition to induce
    held = z.names[z.holding] if 0 <= z.holding < len(z.names) else AIR
    out: list[Trial] = []
    prepared = tuple(sorted(goal.items()))
    for item in needs.held:
        if f"select_{item}" in offered:
            out += [Trial((*prefix, f"select_{item}"), action, (HOLDING, item), prepared)
                    for prefix, _ in contexts]
    if held != AIR and "deselect" in offered:
        out += [Trial(("deselect", *prefix), action, context, prepared)
                for prefix, context in contexts]
    out += [Trial(prefix, action, context, prepared) for prefix, context in contexts]
    return out


def prepared_trials(copies: Copies, snapshot: Snapshot, z: SymbolicState,
                    kb: KnowledgeBase, planner: Planner, offered: Sequence[str],
                    actions: Sequence[str], earlier: Sequence[TrialResult], *,
                    max_steps: int = 1500, max_rounds: int = 6, mode: Mode = "macro",
                    skills: Mapping[str, Any] | None = None
                    ) -> tuple[list[TrialResult], int]:
    """For each action in `actions` (new, refused wherever tried) in turn, rounds of
    prepare-then-try until a trial changes something; (results, env steps taken in all)."""
    known = {o.name for o in kb.base.objects}
    planning = kb.derivation()
    out: list[TrialResult] = []
    steps = 0
    for action in actions:
        if action in SKIPPED or any(changed(r) for r in out):
            continue  # one found is enough: the next failure experiments again
        needs = Needs(known)
        needs.absorb([r for r in earlier if r.trial.action == action])
        hypotheses = guesses(action, z, kb, planner, known)
        guess: Goal = {}
        tried: set[tuple[tuple[str, int], ...]] = set()
        rounds = 0
        while rounds < max_rounds and steps < max_steps:
            goal = {**guess, **{n: max(k, guess.get(n, 0)) for n, k in needs.items.items()}}
            key = tuple(sorted(goal.items()))
            if not goal or key in tried or not planner.plannable(planning, z, goal):
                tried.add(key)
                nxt = next(hypotheses, None)
                if nxt is None:
                    break
                guess = nxt
                continue
            tried.add(key)
            rounds += 1
            reached, cost = prepare(copies, snapshot, kb, planner, goal, max_steps - steps,
                                    mode=mode, skills=skills)
            steps += cost
            if reached is None:
                continue
            state, zp = reached
            results, cost = run_trials(copies, state, trials_for(action, zp, kb, offered,
                                                                 needs, goal),
                                       max(0, max_steps - steps))
            steps += cost
            out += results
            if any(changed(r) for r in results):
                break
            before = needs.key()
            needs.absorb(results)
            if needs.key() == before:  # the refusals said nothing new: guess wider
                nxt = next(hypotheses, None)
                if nxt is None:
                    break
                guess = nxt
    return out, steps


def worth_preparing(action: str, focus: Collection[str], results: Sequence[TrialResult]
                    ) -> bool:
    """A new action whose name mentions something the task or the failure is about, and
    that no trial saw do anything."""
    return action not in SKIPPED and any(mentions(action, n) for n in focus) and not any(
        changed(r) for r in results if r.trial.action == action)

