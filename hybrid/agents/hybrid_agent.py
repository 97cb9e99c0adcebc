"""The hybrid agent: the planning agent that learns an operator when one fails.

RapidLearn (PPO) and RapidLearn+ (PPO + ICM curiosity) differ only in their
`RecoveryConfig`. Learning happens inside `on_failure`, off the agent's own env (the
recovery env restarts at the failure snapshot in worlds of its own), so the episode resumes
where it failed and replans with the learned operator.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from nesyworld.hybrid.agents.planning_agent import (
    Event,
    PlanningAgent,
    PlanningConfig,
    pre_novelty_actions,
)
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
from nesyworld.hybrid.recovery.recover import Recovery, RecoveryConfig, RecoveryOutcome
from nesyworld.learning import EpochRecord, load_checkpoint, save_checkpoint
from nesyworld.symbolic.knowledge_base import KnowledgeBase

POLICY_FOLDER = "policies"


def operator_pddl(kb: KnowledgeBase, name: str) -> str:
    """One operator's `(:action ...)` block, with its comment lines, from the written domain."""
    domain, _ = kb.pddl()
    match = re.search(rf"((?:^[ \t]*;[^\n]*\n)*)^[ \t]*\(:action {re.escape(name)}\s", domain,
                      re.MULTILINE)
    if match is None:
        raise KeyError(f"operator '{name}' is not in the written domain")
    start, depth = match.start(0), 0
    body_start = domain.index("(:action", match.start(0))
    for i in range(body_start, len(domain)):
        depth += {"(": 1, ")": -1}.get(domain[i], 0)
        if depth == 0:
            return domain[start:i + 1]
    return domain[start:]


class HybridAgent(PlanningAgent):
    """Plan, execute, monitor; on an operator failure, learn a policy operator and replan.

    `learning=False` freezes it (failures are then only replanned around, as the planning
    agent does): evaluation episodes use that, so they measure what was learned without
    learning more. `recoveries` records every recovery, `adaptation_env_steps` their cost.
    """

    def __init__(self, env: Any, kb: KnowledgeBase | None = None,
                 config: PlanningConfig | None = None,
                 recovery: RecoveryConfig | None = None, novelty: str = "",
                 learning: bool = True,
                 on_event: Callable[[Event], None] | None = None) -> None:
        super().__init__(env, kb, config or PlanningConfig(), on_event)
        self.recovery_config = recovery if recovery is not None else RecoveryConfig()
        self.name = self.recovery_config.variant
        self.novelty = novelty
        self.learning = learning
        self.recoveries: list[RecoveryOutcome] = []
        self._gave_up: dict[str, int] = {}  # failed recoveries by operator name
        self._failures_seen: dict[str, int] = {}  # failures by operator name, all episodes

    @property
    def adaptation_env_steps(self) -> int:
        """Env steps spent learning (training and checking rollouts), all recoveries."""
        return sum(r.env_steps for r in self.recoveries)

    def _on_epoch(self, record: EpochRecord) -> None:
        self.emit("learning", f"epoch {record.epoch}: {record.steps} steps, success "
                  f"{record.success_rate:.2f}, reward {record.mean_reward:.1f}, "
                  f"{record.steps_per_second:.0f} steps/s", **record.as_dict())

    def on_failure(self, failure: OperatorFailure) -> Iterator[str]:
        if not self.learning:
            return iter(())
        name = failure.operator.name
        self._failures_seen[name] = self._failures_seen.get(name, 0) + 1
        if self._failures_seen[name] < self.recovery_config.confirmations:
            self.emit("recovery", f"{name} failed; replanning first (it is learned from "
                      f"when it fails {self.recovery_config.confirmations} times)")
            return iter(())
        if self._gave_up.get(name, 0) >= self.recovery_config.attempts:
            return iter(())  # learning this one failed before: replan around it instead
        previous = self.learned.get(name)
        if isinstance(previous, LearnedOperator):
            self.emit("recovery", f"fine-tuning {previous.name} after: {failure}")
        else:
            previous = None
            self.emit("recovery", f"learning to recover from: {failure}")
        # "new since the novelty" is against the knowledge base's world, not what the agent
        # has seen (known_actions grows as novelties are detected)
        before = pre_novelty_actions(self.kb, self.world)
        recovery = Recovery(self.kb, self.recovery_config, before, self.novelty, self._on_epoch,
                            self.planner, self.learned)
        outcome = recovery.learn(self.world, failure, previous)
        self.recoveries.append(outcome)
        if outcome.operator is None:
            self._gave_up[name] = self._gave_up.get(name, 0) + 1
            self.emit("recovery_failed", f"no operator learned in {outcome.env_steps} "
                      f"steps: {outcome.error}", **outcome.summary())
            return iter(())
        learned = outcome.operator
        self.learned[learned.name] = learned
        self.emit("learned", f"{learned.name} after {outcome.env_steps} env steps "
                  f"({outcome.wall_seconds:.1f} s); a fresh plan uses it: "
                  f"{outcome.plan_uses_it}", pddl=operator_pddl(self.kb, learned.name),
                  **outcome.summary())
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
            "recoveries": [r.summary() for r in self.recoveries]}, indent=1))

    def load(self, path: str | Path) -> None:
        """Load a saved knowledge base with its learned operators' policies."""
        folder = Path(path)
        self.kb = KnowledgeBase.load(folder, self.kb.base)
        self.learned = {}
        for entry in self.kb:
            if entry.origin != "learned":
                continue
            file = folder / POLICY_FOLDER / f"{entry.operator.name}.pt"
            if not file.exists():
                raise FileNotFoundError(f"{file}: the policy of learned operator "
                                        f"'{entry.operator.name}' is missing")
            self.learned[entry.operator.name] = LearnedOperator.from_entry(
                entry, load_checkpoint(file))
