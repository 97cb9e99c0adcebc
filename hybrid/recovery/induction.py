"""Induce before training: turn the first successful episode of a recovery into operators,
verify them by execution, and stop training when they hold.

A recovery's policy needs thousands of env steps to become reliable, but the first episode
that reaches the target already shows *how*: each step's action and the change it made.
Where the knowledge base does not explain a step's change (the action it has no operator
for, or one that now does something else), the step becomes an operator as a trial does
(hybrid/repair/trials.py): effects from the observed change, preconditions from the state it
worked in (what it faced when the action acts on what is in front, the novelty's new item
when it held one). The knowledge base with those operators, and with the failed operator
demoted when that is what it takes, is then verified the way a repair is
(hybrid/repair/verify.py): a plan from the failure state, executed in a restored copy of the
world. A verified set replaces the rest of training; PPO goes on only when none verifies.

The envs must be in-process (the recovery's `vector_env="dummy"`): the episodes are read off
the env objects.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from nesyworld.hybrid.boundary.world_adapter import CopyRecipe
from nesyworld.hybrid.execution.monitor import OperatorFailure, check_effects
from nesyworld.hybrid.knowledge.regime import observed_types
from nesyworld.hybrid.recovery.env import RecoveryEnv, Win
from nesyworld.hybrid.recovery.learned_operator import bind_functional
from nesyworld.hybrid.repair.candidates import specialize, with_condition
from nesyworld.hybrid.repair.trials import (
    SKIPPED,
    Trial,
    TrialResult,
    facing_matters,
    induce,
    requirements,
)
from nesyworld.hybrid.repair.verify import verify
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import AIR, FACING, HOLDING, WORLD, Fact, OperatorSchema


@dataclass
class Induced:
    """What induction found: the operators, whether the failed operator was demoted, the
    verification's verdict and the env steps it took."""

    operators: list[OperatorSchema] = field(default_factory=list)
    how: str = ""
    """What the verified knowledge base did with the failed operator: "require <cond>",
    "demote" or "add" (left it)."""
    kb: KnowledgeBase | None = None
    """The verified knowledge base (the agent adopts it)."""
    verdict: str = ""
    env_steps: int = 0
    tried: int = 0
    """Successful episodes examined."""

    @property
    def ok(self) -> bool:
        return self.kb is not None


def explained(kb: KnowledgeBase, action: str, z0: SymbolicState, z1: SymbolicState) -> bool:
    """Does an active operator of the knowledge base, taking this env action where its
    preconditions hold in z0, declare the change z0 -> z1?"""
    for entry in kb:
        op = entry.operator
        if entry.status != "active" or op.action != action:
            continue
        if any(p.name not in ("?from", "?prev") for p in op.params):
            continue  # a lifted operator over objects: not grounded here
        ground = bind_functional(op, z0)
        if z0.satisfies(op.preconditions, ground.binding) and not check_effects(
                ground, z0, z1)[0]:
            return True
    return False


def step_operators(win: Win, kb: KnowledgeBase, new_types: Collection[str],
                   known_actions: Collection[str] = ()) -> list[OperatorSchema]:
    """One operator per step of `win` whose change the knowledge base does not explain.
    A known action that only turned the agent is its walking about, not modelled. An action
    that acted on what was in front (it stayed in front, or it is gone) requires facing it,
    unless actions of its verb never need a faced thing; one that held a new item while it
    worked requires holding it."""
    out: list[OperatorSchema] = []
    fresh = set(new_types)
    known = {e.operator.action for e in kb if e.status == "active"} | set(known_actions)
    for action, z0, z1 in win.steps:
        if action in SKIPPED or z0 == z1 or explained(kb, action, z0, z1):
            continue
        if action in known and _moved_only(z0, z1):
            continue
        faced = z0.names[z0.facing] if 0 <= z0.facing < len(z0.names) else AIR
        acted_on = z0.facing == z1.facing or z1.count(WORLD, faced) != z0.count(WORLD, faced)
        context = ((FACING, faced) if faced != AIR and acted_on
                   and facing_matters(action, kb) else None)
        op = induce(TrialResult(Trial((), action, context), True, "", z0, z1), kb,
                    {o.name for o in out})
        if op is None:
            continue
        held = z0.names[z0.holding] if 0 <= z0.holding < len(z0.names) else AIR
        if held in fresh and z0.holding == z1.holding:
            cond = Fact(HOLDING, (held,))
            if cond not in op.preconditions:
                op = OperatorSchema(op.name, op.params, (*op.preconditions, cond), op.effects,
                                    op.action, op.provenance + f"; holding {held}")
        if all(o.preconditions != op.preconditions or o.effects != op.effects
               or o.action != op.action for o in out):
            out.append(op)
    return out


def _moved_only(z0: SymbolicState, z1: SymbolicState) -> bool:
    """Only what the agent faces changed."""
    return (z0.holding, z0.inventory, z0.props) == (z1.holding, z1.inventory, z1.props) and (
        z0.world == z1.world)


def _candidates(kb: KnowledgeBase, failure: OperatorFailure, ops: Sequence[OperatorSchema]
                ) -> list[tuple[KnowledgeBase, str]]:
    """Knowledge bases to verify, best first: the induced operators with the failed one
    requiring, in turn, each thing they bring about (the fire put out); with the failed one
    demoted; beside it unchanged."""
    def base() -> KnowledgeBase:
        out = kb.copy()
        for op in ops:
            out.add(op, origin="repaired", meta={"induced": "from a recovery episode"},
                    replace_existing=op.name in out)
        return out

    name = failure.operator.name
    out: list[tuple[KnowledgeBase, str]] = []
    if name in kb and not failure.operator.schema.action.startswith("policy:"):
        schema, kept = specialize(failure.operator)
        for cond in requirements(schema, ops):
            trial = base()
            required = replace(schema, preconditions=with_condition(schema.preconditions,
                                                                   cond))
            for op in (required,) if kept is None else (required, kept):
                trial.add(op, origin="repaired", meta={"induced": f"requires {cond}"},
                          replace_existing=op.name in trial)
            out.append((trial, f"require {cond}"))
    demoted = base()
    if name in demoted and demoted.entry(name).status == "active":
        demoted.demote(name, "replaced by operators induced from a recovery episode")
        out.append((demoted, "demote"))
    out.append((base(), "add"))
    return out


def induce_from_wins(wins: Sequence[Win], kb: KnowledgeBase, failure: OperatorFailure,
                     copies: CopyRecipe, goal: Mapping[str, int], planner: Planner,
                     new_types: Collection[str], skills: Mapping[str, Any] | None = None,
                     known_actions: Collection[str] = (), max_steps: int = 300) -> Induced:
    """Try each win's operators: with the failed operator requiring what they bring about,
    demoted, then beside them; verify from the failure snapshot in a copy of the agent's env
    (`copies`). The first that verifies is returned (not yet applied)."""
    found = Induced()
    for win in wins:
        found.tried += 1
        ops = step_operators(win, kb, new_types, known_actions)
        if not ops or failure.snapshot is None:
            continue
        for trial, how in _candidates(kb, failure, ops):
            plan = planner.plan(trial.derivation(failure.before), goal=dict(goal))
            if not plan.ok:
                continue
            watched = {op.name for op in ops} | {failure.operator.name}
            result = verify(copies, failure.snapshot, trial, watched, planner=planner,
                            skills=skills, known_actions=known_actions,
                            max_steps=max_steps)
            found.env_steps += result.env_steps
            found.verdict = result.verdict
            if result.verdict == "goal":
                found.operators, found.how, found.kb = ops, how, trial
                return found
    return found


def adopt(kb: KnowledgeBase, found: Induced, meta: Mapping[str, Any]) -> None:
    """Make `kb` (the agent's, edited in place) what `found` verified: its new or changed
    operators, with `meta`, and what it demoted."""
    assert found.kb is not None
    for entry in found.kb:
        name = entry.operator.name
        old = kb.entry(name) if name in kb else None
        if old is None or old.operator != entry.operator:
            kb.add(entry.operator, origin="repaired", meta=dict(meta),
                   replace_existing=old is not None)
        if entry.status == "demoted" and kb.entry(name).status == "active":
            kb.demote(name, entry.reason)


WinSourceT = TypeVar("WinSourceT", bound="WinSource")


class WinSource(Protocol):
    """An env whose successful episodes induction reads: `RecoveryEnv`, or the batched
    `RecoveryVectorEnv` (batched_env.py)."""

    wins: list[Win]


def tracking(factory: Callable[[], RecoveryEnv], made: list[WinSource]
             ) -> Callable[[], RecoveryEnv]:
    """`factory`, keeping every env it makes in `made` (their wins are read there)."""

    def make() -> RecoveryEnv:
        env = factory()
        made.append(env)
        return env

    return make


@dataclass
class Watch:
    """Between chunks of training, hand the episodes won since the last look to `induce`
    (at most `tries` in all) and say whether training can stop: the trainer's `on_chunk`."""

    induce: Callable[[Sequence[Win]], Induced]
    tries: int
    made: list[WinSource] = field(default_factory=list)
    seen: set[tuple[int, int]] = field(default_factory=set)
    found: Induced = field(default_factory=Induced)

    def envs(self, factory: Callable[[], RecoveryEnv]) -> Callable[[], RecoveryEnv]:
        """The env factory training uses, so that its envs' wins can be read."""
        return tracking(factory, self.made)

    def vector_envs(self, factory: Callable[[int], WinSourceT]) -> Callable[[int], WinSourceT]:
        """The vector env factory training uses (`train`'s `vector_env_factory`), so that
        its envs' wins can be read."""

        def make(n: int) -> WinSourceT:
            env = factory(n)
            self.made.append(env)
            return env

        return make

    def __call__(self) -> bool:
        if self.found.tried >= self.tries:
            return False
        wins = new_wins(self.made, self.seen)[:self.tries - self.found.tried]
        if not wins:
            return False
        now = self.induce(wins)
        now.tried += self.found.tried
        now.env_steps += self.found.env_steps
        self.found = now
        return now.ok


def shown_types(kb: KnowledgeBase, wins: Sequence[Win]) -> set[str]:
    """The types the episodes showed that the knowledge base has never heard of."""
    known = {o.name for o in kb.base.objects}
    return {t for w in wins for _, z0, z1 in w.steps for z in (z0, z1)
            for t in observed_types(z) if t not in known}


def new_wins(envs: Sequence[WinSource], seen: set[tuple[int, int]]) -> list[Win]:
    """Wins of `envs` not examined yet (marked in `seen` as (env, index))."""
    out = []
    for i, env in enumerate(envs):
        for j, win in enumerate(env.wins):
            if (i, j) not in seen:
                seen.add((i, j))
                out.append(win)
    return out
