"""The hybrid agent: the planning agent that repairs its model, or learns an operator, when
one fails.

On a failure it first repairs the knowledge base from the evidence (hybrid/repair/: the
refusal's stated requirement, the observed against the declared change, the new actions'
declared operators, new types in absent types' roles), keeping a repair only when a run
from the current state verifies it. Only when no repair verifies does it learn, RAPid-Learn
style: RapidLearn (PPO) and RapidLearn+ (PPO + ICM curiosity) differ only in their
`RecoveryConfig`. Learning happens inside `on_failure`, off the agent's own env (the recovery
env restarts at the failure snapshot in worlds of its own), so the episode resumes where it
failed and replans with the learned operator. When the knowledge base has no plan at all,
`on_no_plan` tries the repairs that need no failed operator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from nesyworld.hybrid.agents.names import HYBRID_AGENTS
from nesyworld.hybrid.agents.planning_agent import (
    AgentEvent,
    PlanningAgent,
    PlanningConfig,
    PolicySkill,
    pre_novelty_actions,
)
from nesyworld.hybrid.agents.saved_agent import (
    learned_meta_error,
    load_knowledge_base,
    policy_file,
)
from nesyworld.hybrid.boundary.interface import Host
from nesyworld.hybrid.boundary.world_adapter import WorldAdapter, oracle_adapter
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, Knowledge
from nesyworld.hybrid.knowledge.regime import check_knowledge
from nesyworld.hybrid.recovery.config import RecoveryConfig, RecoveryResult
from nesyworld.hybrid.recovery.gaps import gap_failure, missing_item
from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
from nesyworld.hybrid.recovery.recover import Recovery
from nesyworld.hybrid.repair.evidence import gather
from nesyworld.hybrid.repair.repairer import (
    ModelRepair,
    RepairConfig,
    RepairResult,
    no_plan_evidence,
    novelty_context,
)
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import EpochRecord, load_checkpoint, save_checkpoint
from nesyworld.symbolic.knowledge_base import KnowledgeBase, operator_pddl
from nesyworld.world.actions.schema import OperatorSchema
from nesyworld.world.envs.gym_env import Refusals

POLICY_FOLDER = "policies"


def hybrid_configs(name: str, seed: int = 0, step_budget: int | None = None
                   ) -> tuple[RecoveryConfig, RepairConfig]:
    """The recovery and repair configs of a hybrid agent by name (see `HYBRID_AGENTS`), its
    learner seeded from the run seed `seed` (nesyworld.hybrid.seeding)."""
    if name not in HYBRID_AGENTS:
        raise ValueError(f"unknown hybrid agent {name!r}; expected one of "
                         f"{', '.join(HYBRID_AGENTS)}")
    variant = name.removeprefix("repair+")
    recovery = (RecoveryConfig.rapidlearn() if variant == "rapidlearn"
                else RecoveryConfig.rapidlearn_plus())
    seeds = RunSeeds(seed)
    train = replace(recovery.train, seed=seeds.learner, env_seed=seeds.learner_envs())
    if step_budget is not None:
        train = replace(train, step_budget=step_budget)
    repairs = name.startswith("repair+")
    # the paper's agents learn every recovery by PPO; nesyworld's induce before training
    return (replace(recovery, train=train, induce=repairs),
            RepairConfig(enabled=repairs))


class HybridAgent(PlanningAgent):
    """Plan, execute, monitor; on an operator failure, learn a policy operator and replan.

    `learning=False` freezes it (failures are then only replanned around, as the planning
    agent does): evaluation episodes use that, so they measure what was learned without
    learning more. `knowledge` is the regime, "closed" unless a baseline asks for "oracle".
    `recoveries` records every recovery, `adaptation_env_steps` their cost.
    """

    def __init__(self, env: Any, kb: KnowledgeBase | None = None,
                 config: PlanningConfig | None = None,
                 recovery: RecoveryConfig | None = None, novelty: str = "",
                 learning: bool = True,
                 on_event: Callable[[AgentEvent], None] | None = None,
                 repair: RepairConfig | None = None,
                 knowledge: Knowledge = DEFAULT_KNOWLEDGE, host: Host | None = None) -> None:
        super().__init__(env, kb, config or PlanningConfig(), on_event, host)
        self.knowledge: Knowledge = check_knowledge(knowledge)
        """What the agent may know of the changed world (hybrid/knowledge/regime.py): only
        "oracle", a labelled baseline, reads the post-novelty world's own model."""
        self.recovery_config = recovery if recovery is not None else RecoveryConfig()
        self.repair_config = repair if repair is not None else RepairConfig()
        self.name = ("repair+" if self.repair_config.enabled else "") + (
            self.recovery_config.variant)
        self.novelty = novelty
        self.learning = learning
        self.recoveries: list[RecoveryResult | RepairResult] = []
        """Every recovery, by repair or by learning, in order."""
        self._repairs_tried: set[str] = set()  # evidence already tried without a verified fix
        self._gave_up: dict[str, int] = {}  # failed recoveries by operator name
        self._failures_seen: dict[str, int] = {}  # failures by operator name, all episodes
        self._tuned: dict[str, int] = {}  # fine-tunes by learned operator name
        self._failed_here: set[str] = set()  # operators a learning failed for, this episode
        self.on_progress: Callable[[int], None] | None = None
        """Called with a learning's training env steps so far after each collected chunk,
        finer than its `learning` events (one per epoch); not an event, so recordings and
        event logs stay as they were."""

    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        super().reset(observation, info)
        self._failed_here = set()

    @property
    def adaptation_env_steps(self) -> int:
        """Env steps spent recovering: verifying repairs, training and checking rollouts."""
        return sum(r.env_steps for r in self.recoveries)

    def _learning_starts(self, operator: str) -> dict[str, Any]:
        """The data of the event that announces a learning: a display starts its progress
        bar from it (steps out of `budget`) before the slow first epoch."""
        return {"learning": operator, "budget": self.recovery_config.train.step_budget}

    def _on_epoch(self, record: EpochRecord) -> None:
        self.emit("learning", f"epoch {record.epoch}: {record.steps} steps, success "
                  f"{record.success_rate:.2f}, reward {record.mean_reward:.1f}, "
                  f"{record.steps_per_second:.0f} steps/s", **record.as_dict())

    # --- model repair ------------------------------------------------------------------
    def _repairer(self) -> ModelRepair:
        return ModelRepair(self.kb, self.planner, self.repair_config, self.learned,
                           self.known_types, self.known_actions, self.config.mode,
                           self.knowledge, self.refusals)

    @property
    def refusals(self) -> Refusals:
        """Whether the agent's env explains its refusals: the copies it verifies and
        samples in do no more than that."""
        return getattr(self.env.unwrapped, "refusals", "explained")

    def _context(self) -> dict[str, tuple[str, ...]]:
        return novelty_context(self.kb, self.boundary,
                               pre_novelty_actions(self.kb, self.boundary.actions()),
                               self.knowledge)

    def _adopt(self, outcome: RepairResult) -> bool:
        self.recoveries.append(outcome)
        if not outcome.ok or outcome.kb is None or outcome.candidate is None:
            self.emit("repair_failed", f"no repair verified ({len(outcome.tried)} tried, "
                      f"{outcome.env_steps} env steps)", **outcome.summary())
            return False
        self.kb = outcome.kb
        cand = outcome.candidate
        self.emit("repaired", f"{cand.kind}: {cand.rationale} (verified in "
                  f"{outcome.env_steps} env steps)", **outcome.summary())
        return True

    def try_repair(self, failure: OperatorFailure) -> bool:
        """Repair the knowledge base from this failure's evidence; True when a repair was
        verified and adopted. The same evidence is not tried twice."""
        ctx = self._context()
        # the names a refusal's reason is read against: those the agent knows or observed,
        # and those the offered actions name (select_<x>, craft_<x>); the oracle: every type
        # the world registers
        names = (oracle_adapter(self.boundary).oracle_types(self.knowledge)
                 if self.knowledge == "oracle" else sorted(self.known_types | {
                     a.split("_", 1)[1] for a in self.boundary.actions() if "_" in a}))
        evidence = gather(failure, names, **ctx)
        key = evidence.describe()
        if not self.repair_config.enabled or key in self._repairs_tried:
            return False
        self._repairs_tried.add(key)
        self.emit("adaptation", f"repairing the model from: {key}")
        return self._adopt(self._repairer().repair(self.boundary, evidence))

    def on_no_plan(self) -> bool:
        """No plan from here: bridge it by repair (new actions' declared operators, new types
        in absent ones' roles), else learn to obtain the item the knowledge base cannot get
        (hybrid/recovery/gaps.py)."""
        if not self.learning:
            return False
        return self._bridge() or self._learn_gap()

    def _bridge(self) -> bool:
        ctx = self._context()
        if not self.repair_config.enabled or not (ctx["new_actions"] or ctx["new_types"]):
            return False
        view = self.boundary
        z = view.detect()
        nothing = GroundOperator(OperatorSchema("no_plan", (), (), (), "nop",
                                                "the knowledge base has no plan"))
        failure = OperatorFailure(nothing, "precondition", "no plan from this state", [], [],
                                  view.snapshot(), (), view.step_count, z, z)
        evidence = no_plan_evidence(failure, ctx)
        key = "no plan; " + evidence.describe()
        if key in self._repairs_tried:
            return False
        self._repairs_tried.add(key)
        self.emit("adaptation", f"bridging: the knowledge base has no plan; {key}")
        return self._adopt(self._repairer().bridge(self.boundary, evidence))

    def _learn_gap(self) -> bool:
        if not self._can_learn():
            return False
        z = self.boundary.detect()
        item = missing_item(self.kb, self.planner, z, self.task_goal)
        if item is None:
            self.emit("adaptation", "no plan, and every item the goal needs can still be "
                      "obtained: nothing to learn")
            return False
        failure = gap_failure(item, self.boundary.snapshot(), z, self.boundary.step_count)
        name = failure.operator.name
        if self._gave_up.get(name, 0) >= self.recovery_config.attempts:
            return False
        self.emit("adaptation", f"learning to obtain {item}: the knowledge base has no plan "
                  f"and cannot obtain {item} from here", **self._learning_starts(name))
        # a bridge has no failed operator to meet again on other maps
        return self._learn(failure, None, replace(self.recovery_config, extra_maps=0))

    # --- learning -------------------------------------------------------------------------
    def _can_learn(self) -> bool:
        """Learning trains in nesyworld's own recovery env (hybrid/recovery/env.py): on
        another env's host the agent repairs and experiments, but does not learn yet."""
        if self.host is None or isinstance(self.host, WorldAdapter):
            return True
        if not getattr(self, "_said_cannot_learn", False):
            self._said_cannot_learn = True
            self.emit("adaptation", "learning a policy needs nesyworld's own world; on this "
                      "env the agent repairs and experiments only")
        return False

    def _learn(self, failure: OperatorFailure, previous: LearnedOperator | None,
               config: RecoveryConfig) -> bool:
        """Learn (or fine-tune `previous`) an operator for `failure`; True when one was."""
        if not self._can_learn():
            return False
        name = failure.operator.name
        # "new since the novelty" is against the knowledge base's world, not what the agent
        # has seen (known_actions grows as novelties are detected)
        before = pre_novelty_actions(self.kb, self.boundary.actions())
        if self._gave_up.get(name, 0) + 1 >= config.attempts:
            config = replace(config, patience=0)  # the last attempt: RecoveryConfig.patience
        recovery = Recovery(self.kb, config, before, self.novelty, self._on_epoch,
                            self.planner, self.learned, on_chunk=self.on_progress,
                            knowledge=self.knowledge, refusals=self.refusals)
        boundary = self.boundary
        assert isinstance(boundary, WorldAdapter), "_can_learn: learning is on nesyworld's world"
        outcome = recovery.learn(boundary, failure, previous)
        self.recoveries.append(outcome)
        if outcome.induced:
            self.emit("learned", f"induced {', '.join(outcome.induced)} from a successful "
                      f"episode after {outcome.env_steps} env steps in all "
                      f"({outcome.learning_steps} learning, {outcome.evaluation_steps} "
                      "evaluation); verified by execution, training stopped",
                      pddl="\n".join(operator_pddl(self.kb, n) for n in outcome.induced),
                      **outcome.summary())
            return True
        if outcome.operator is None:
            self._gave_up[name] = self._gave_up.get(name, 0) + 1
            self._failed_here.add(name)
            self.emit("recovery_failed", f"no operator learned in {outcome.env_steps} "
                      f"steps: {outcome.error}", **outcome.summary())
            return False
        learned = outcome.operator
        self.learned[learned.name] = learned
        self.emit("learned", f"{learned.name} after {outcome.env_steps} env steps in all "
                  f"({outcome.learning_steps} learning, {outcome.evaluation_steps} "
                  f"evaluation; {outcome.wall_seconds:.1f} s); "
                  + ("a fresh plan uses it" if outcome.plan_uses_it
                     else "a fresh plan does not use it yet"),
                  pddl=operator_pddl(self.kb, learned.name), **outcome.summary())
        return True

    def on_failure(self, failure: OperatorFailure) -> Iterator[str]:
        if not self.learning:
            return iter(())
        if self.try_repair(failure):
            return iter(())
        if failure.kind == "undeclared":
            return iter(())  # it did its job; only the model was off, and no repair held
        name = failure.operator.name
        self._failures_seen[name] = self._failures_seen.get(name, 0) + 1
        if self._failures_seen[name] < self.recovery_config.confirmations:
            self.emit("adaptation", f"{name} failed; replanning first (it is learned from "
                      f"when it fails {self.recovery_config.confirmations} times)")
            return iter(())
        if self._gave_up.get(name, 0) >= self.recovery_config.attempts:
            return iter(())  # learning this one failed before: replan around it instead
        if name in self._failed_here:
            # a learning from this very situation just failed, at the cost of its whole
            # budget: the next attempt waits for another map
            return iter(())
        previous = self.learned.get(name)
        if isinstance(previous, LearnedOperator):
            if self._tuned.get(name, 0) >= self.recovery_config.finetunes:
                self.emit("adaptation", f"{name} failed again; it was fine-tuned "
                          f"{self.recovery_config.finetunes} times already, so the agent "
                          "replans around it")
                return iter(())
            self._tuned[name] = self._tuned.get(name, 0) + 1
            self.emit("adaptation", f"fine-tuning {previous.name} after: {failure}",
                      **self._learning_starts(name))
        else:
            previous = None
            self.emit("adaptation", f"learning to recover from: {failure}",
                      **self._learning_starts(name))
        self._learn(failure, previous, self.recovery_config)
        return iter(())

    # --- persistence ---------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """The knowledge base (kb.json, domain.pddl with the learned operators), each learned
        operator's policy as policies/<name>.pt, and agent.json."""
        folder = Path(path)
        self.kb.save(folder)
        for name, op in self.learned.items():
            if isinstance(op, LearnedOperator) and op.checkpoint is not None:
                save_checkpoint(folder / POLICY_FOLDER / f"{name}.pt", op.checkpoint,
                                operator=name)
        (folder / "agent.json").write_text(json.dumps({
            "agent": self.name, "config": asdict(self.config), "novelty": self.novelty,
            "knowledge": self.knowledge,
            "recoveries": [r.summary() for r in self.recoveries]}, indent=1))

    def load(self, path: str | Path) -> None:
        """Load a saved knowledge base with its learned operators' policies. A missing or
        broken part is one located error (a SpecError such as KnowledgeBaseError, a PDDLError
        or a CheckpointError), raised before anything of this agent changes."""
        folder = Path(path)
        kb = load_knowledge_base(folder, self.kb.base, POLICY_FOLDER)
        learned: dict[str, PolicySkill] = {}
        for entry in kb:
            if entry.origin != "learned":
                continue
            name = entry.operator.name
            checkpoint = load_checkpoint(policy_file(folder, kb, name, POLICY_FOLDER))
            try:
                learned[name] = LearnedOperator.from_entry(entry, checkpoint)
            except (KeyError, TypeError, ValueError) as exc:
                raise learned_meta_error(folder, kb, name, exc) from None
        self.kb, self.learned = kb, learned
