"""Model repair before learning (HYDRA's idea, for SAIL-ON): fix the planning model from the
inconsistency a failure shows, and learn only when no fix holds up.

For one failure: gather the evidence, form the candidate repairs, and for each, best first,
apply it to a copy of the knowledge base, replan from the current state, and verify it by
execution (verify.py). The first verified repair is kept, with its provenance (the evidence,
the operator's PDDL before and after, the verdict) in the knowledge base's entry and in the
outcome. Nothing changes when none verifies; the caller then learns.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from nesyworld.hybrid.boundary.interface import Host
from nesyworld.hybrid.boundary.world_adapter import oracle_adapter
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.execution.skills import Mode
from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, Knowledge
from nesyworld.hybrid.knowledge.regime import kb_parents, observed_types
from nesyworld.hybrid.repair.candidates import (
    Candidate,
    candidates,
    role_substitutes,
    specialize,
    with_condition,
)
from nesyworld.hybrid.repair.declared import (
    declared_operators,
    failed_action_declared,
    with_declared,
)
from nesyworld.hybrid.repair.evidence import Evidence, RefusalReading
from nesyworld.hybrid.repair.preparation import prepared_trials, worth_preparing
from nesyworld.hybrid.repair.trials import (
    Experiments,
    experiment,
    induce_all,
    mentions,
    requirements,
)
from nesyworld.hybrid.repair.verify import verify
from nesyworld.symbolic.knowledge_base import KnowledgeBase, operator_pddl
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import AIR, WORLD, Fact
from nesyworld.world.envs.gym_env import Refusals


@dataclass(frozen=True)
class RepairConfig:
    """How hard model repair tries before the agent learns."""

    enabled: bool = True
    max_candidates: int = 16
    """Candidates verified per failure, best first (each costs a verification run; a
    refusal that says nothing leaves more guesses to try)."""
    verify_steps: int = 300
    """Env steps a verification run may take."""
    max_trials: int = 64
    """Trials of new actions per failure in the closed regime (hybrid/repair/trials.py)."""
    trial_steps: int = 200
    """Env steps those trials may take in all."""
    prepare_steps: int = 1500
    """Env steps trials in prepared states may take in all: plans that first get what a
    refused new action may need (hybrid/repair/preparation.py)."""


@dataclass
class RepairResult:
    """What one repair attempt found and cost."""

    failure: str
    evidence: str
    candidate: Candidate | None
    env_steps: int
    wall_seconds: float
    tried: list[dict[str, str]] = field(default_factory=list)
    before: dict[str, str] = field(default_factory=dict)
    """PDDL of each repaired operator before the repair ("" when it is new)."""
    after: dict[str, str] = field(default_factory=dict)
    kb: KnowledgeBase | None = field(default=None, repr=False)
    """The repaired knowledge base (None when no repair verified)."""

    @property
    def ok(self) -> bool:
        return self.candidate is not None

    @property
    def learning_steps(self) -> int:
        """Verification runs are learning steps (docs/COUNTS.md): all of `env_steps`."""
        return self.env_steps

    @property
    def evaluation_steps(self) -> int:
        return 0

    def summary(self) -> dict[str, Any]:
        c = self.candidate
        return {"method": "repair", "failure": self.failure, "evidence": self.evidence,
                "repair": c.kind if c else None, "rationale": c.rationale if c else "",
                "operators": [op.name for op in c.operators] if c else [],
                "demoted": list(c.demote) if c else [], "env_steps": self.env_steps,
                "learning_steps": self.env_steps, "evaluation_steps": 0,
                "wall_seconds": round(self.wall_seconds, 2), "tried": self.tried,
                "before": self.before, "after": self.after}


class ModelRepair:
    """Repairs one agent's knowledge base (it returns a repaired copy; the agent adopts it)."""

    def __init__(self, kb: KnowledgeBase, planner: Planner,
                 config: RepairConfig = RepairConfig(),
                 skills: Mapping[str, Any] | None = None, known_types: Collection[str] = (),
                 known_actions: Collection[str] = (), mode: Mode = "macro",
                 knowledge: Knowledge = DEFAULT_KNOWLEDGE, refusals: Refusals = "explained"
                 ) -> None:
        self.kb = kb
        self.planner = planner
        self.config = config
        self.skills = dict(skills or {})
        self.known_types = tuple(known_types)
        self.known_actions = tuple(known_actions)
        self.mode = mode
        self.knowledge = knowledge
        """hybrid/knowledge/regime.py: only "oracle" reads the post-novelty world's model."""
        self.refusals = refusals
        """Whether the verification copy explains its refusals, as the agent's env does."""

    def _world_operators(self, env: Host) -> list[Any]:
        """The post-novelty world's own derived operators: the oracle's, never the closed
        agent's (it has none to read)."""
        if self.knowledge != "oracle":
            return []
        return oracle_adapter(env).oracle_operators(self.knowledge)

    def _parents(self, env: Host) -> dict[str, tuple[str, ...]]:
        """The type hierarchy the agent knows: the world's in the oracle regime, the
        knowledge base's in the closed one (a new type's category is then unknown)."""
        if self.knowledge == "oracle":
            return oracle_adapter(env).oracle_parents(self.knowledge)
        return kb_parents(self.kb)

    def repair(self, env: Host, evidence: Evidence) -> RepairResult:
        """Try the candidates for a failure on the env's current state (only read)."""
        ops = self._world_operators(env)  # map effects too (the oracle's only)
        found = self._experiment(env, evidence)
        cands = candidates(evidence, self.kb, self._parents(env))
        if cands:  # none for a learned operator
            cands = sorted([*cands, *failed_action_declared(ops, evidence, self.kb),
                            *self._required(evidence, found)], key=lambda c: c.rank)
        return self.attempt(env, evidence, with_declared(cands, self._declared(
            ops, evidence, found), found is not None), found)

    def bridge(self, env: Host, evidence: Evidence) -> RepairResult:
        """When the knowledge base has no plan at all: new types in the roles of absent ones,
        and what is new: as trials show it (closed regime) or as the world declares it
        (oracle)."""
        found = self._experiment(env, evidence)
        cands = role_substitutes(evidence, self.kb, self._parents(env))
        return self.attempt(env, evidence, with_declared(
            cands, self._declared(self._world_operators(env), evidence, found),
            found is not None), found)

    def _experiment(self, env: Host, evidence: Evidence) -> Experiments | None:
        """The closed regime's trials of what is new (trials.py); None in the oracle regime,
        which reads the world's declared operators instead, or when nothing is new."""
        if self.knowledge == "oracle" or not (evidence.new_actions or evidence.new_types):
            return None
        snapshot, z, offered = env.snapshot(), env.detect(), env.actions()
        found = experiment(env.recipe, snapshot, z, self.kb, offered, evidence.new_actions,
                           evidence.new_types, self.config.max_trials, self.config.trial_steps)
        focus = self._focus(env, evidence, z.names)
        todo = [a for a in evidence.new_actions if worth_preparing(a, focus, found.results)]
        if todo and self.config.prepare_steps > 0:
            more, steps = prepared_trials(
                env.recipe, snapshot, z, self.kb, self.planner, offered, todo, found.results,
                max_steps=self.config.prepare_steps, mode=self.mode, skills=self.skills)
            found.results += more
            found.env_steps += steps
            found.operators = induce_all(found.results, self.kb, evidence.new_actions)
        return found

    @staticmethod
    def _focus(env: Host, evidence: Evidence, names: Collection[str]) -> set[str]:
        """What the task and the failure are about: the goal's items, what the refusal
        named, and the types the failed operator names."""
        failure = evidence.failure
        words = set(failure.reason.replace(",", " ").split())
        words |= set(failure.operator.binding.values())
        for c in evidence.refusal.needs:
            words |= set(c.args) if isinstance(c, Fact) else {c.arg}
        return set(env.goal()) | {n for n in names if n in words or mentions(
            failure.operator.name, n)}

    def _required(self, evidence: Evidence, found: Experiments | None) -> list[Candidate]:
        """A refusal that says nothing (a silent environment): the operator may now need
        what an induced operator brings about, one hypothesis each (trials.py)."""
        failure = evidence.failure
        if found is None or failure.kind != "refused" or evidence.refusal.needs or (
                evidence.refusal.impossible):
            return []
        schema, kept = specialize(failure.operator)
        out = []
        for cond in requirements(schema, found.operators):
            required = replace(schema, preconditions=with_condition(schema.preconditions,
                                                                   cond))
            ops = (required,) if kept is None else (required, kept)
            out.append(Candidate("require", f"it may need {cond}, which a trial of a new "
                                 "action brought about", ops, (), rank=2))
        return out

    def _declared(self, ops: list[Any], evidence: Evidence, found: Experiments | None = None
                  ) -> tuple[Any, ...]:
        if found is not None:
            return tuple(found.operators)
        if not (evidence.new_actions or evidence.new_types):
            return ()
        return declared_operators(ops, evidence.new_actions, self.kb, evidence.new_types)

    def attempt(self, env: Host, evidence: Evidence, cands: list[Candidate],
                found: Experiments | None = None) -> RepairResult:
        """Verify `cands` in order; keep the first that holds up. `found`: the trials that
        induced some of them, whose env steps count too."""
        start = time.perf_counter()
        failure: OperatorFailure = evidence.failure
        snapshot, z = env.snapshot(), env.detect()
        steps = found.env_steps if found is not None else 0
        tried: list[dict[str, str]] = []
        if found is not None:
            tried.append({"kind": "experiment", "rationale": "trials of what is new",
                          "verdict": found.describe()})
        for cand in cands[:self.config.max_candidates]:
            repaired = cand.apply(self.kb)
            plan = self.planner.plan(repaired.derivation(z), goal=env.goal())
            if not plan.ok:
                tried.append({"kind": cand.kind, "rationale": cand.rationale,
                              "verdict": f"no plan ({plan.status})"})
                continue
            watched = {op.name for op in cand.operators}
            result = verify(env.recipe, snapshot, repaired, watched, planner=self.planner,
                            skills=self.skills, known_types=self.known_types,
                            known_actions=self.known_actions,
                            max_steps=self.config.verify_steps, mode=self.mode)
            steps += result.env_steps
            tried.append({"kind": cand.kind, "rationale": cand.rationale,
                          "verdict": result.verdict, "detail": result.detail})
            if not result.ok:
                continue
            return self._keep(cand, repaired, evidence, steps, start, tried, result.verdict)
        return RepairResult(str(failure), evidence.describe(), None, steps,
                             time.perf_counter() - start, tried)

    def _keep(self, cand: Candidate, repaired: KnowledgeBase, evidence: Evidence, steps: int,
              start: float, tried: list[dict[str, str]], verdict: str) -> RepairResult:
        before = {op.name: _pddl(self.kb, op.name) for op in cand.operators}
        before |= {name: _pddl(self.kb, name) for name in cand.demote}
        after = {op.name: _pddl(repaired, op.name) for op in cand.operators}
        meta = {"repair": cand.kind, "rationale": cand.rationale,
                "evidence": evidence.describe(), "failure": str(evidence.failure),
                "verdict": verdict, "env_steps": steps, "before": before}
        for op in cand.operators:  # the provenance goes with each repaired operator
            entry = repaired.entry(op.name)
            repaired.add(entry.operator, origin="repaired", meta=meta, replace_existing=True)
        return RepairResult(str(evidence.failure), evidence.describe(), cand, steps,
                             time.perf_counter() - start, tried, before, after, repaired)


def _pddl(kb: KnowledgeBase, name: str) -> str:
    if name not in kb or kb.entry(name).status != "active":
        return ""
    try:
        return operator_pddl(kb, name)
    except KeyError:
        return ""


def novelty_context(kb: KnowledgeBase, env: Host, known_actions: Collection[str],
                    knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> dict[str, tuple[str, ...]]:
    """What is new or gone since the knowledge base was made: entity types the knowledge base
    does not know (in the closed regime those the agent observes, on the map, held or in its
    inventory; in the oracle regime every type the world registers), env actions not in
    `known_actions` (the knowledge base's own world's), and types the knowledge base's world
    had on the map that this one has none of."""
    known_types = {o.name for o in kb.base.objects}
    z0, z = kb.base.initial, env.detect()
    present = {n for i, n in enumerate(z.names) if z.world[i] > 0}
    types = (oracle_adapter(env).oracle_types(knowledge) if knowledge == "oracle"
             else observed_types(z))
    return {
        "new_types": tuple(t for t in types if t not in known_types and t != AIR),
        "new_actions": tuple(a for a in env.actions() if a not in known_actions),
        "absent_types": tuple(n for n in z0.names if n != AIR and z0.count(WORLD, n) > 0
                              and n not in present),
    }


def no_plan_evidence(failure: OperatorFailure, context: dict[str, tuple[str, ...]]) -> Evidence:
    """Evidence for "no plan from here": a failure of no operator, with what is new."""
    return Evidence(failure, RefusalReading(), {}, {}, context["new_types"],
                    context["new_actions"], context["absent_types"])
