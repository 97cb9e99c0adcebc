"""Recovery by learning: from one OperatorFailure to a learned operator the planner uses.

As in docs/ADAPTATION.md: build the subproblem env at the failure snapshot, train PPO
(RapidLearn) or PPO+ICM (RapidLearn+) until the paper's convergence test or the step budget,
roll the greedy policy out from the snapshot, turn the successful rollouts into a
`LearnedOperator`, splice it into the knowledge base (demoting the operator that failed) and
check that a fresh plan from the failure state uses it. A learned operator that fails later
is fine-tuned from its checkpoint, over the same action set, rather than learned again.

Every env step training and checking take is counted (`RecoveryResult.env_steps`); the
evaluation episodes of the convergence test are counted apart, as the paper leaves them out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any
from weakref import WeakKeyDictionary

from nesyworld.hybrid.boundary.world_adapter import WorldAdapter
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, Knowledge
from nesyworld.hybrid.knowledge.regime import observed_types
from nesyworld.hybrid.recovery.batched_env import recovery_vector_env_factory
from nesyworld.hybrid.recovery.config import (
    DEFAULT_RECOVERY,
    RecoveryConfig,
    RecoveryResult,
    batched_train_config,
)
from nesyworld.hybrid.recovery.env import (
    RecoveryEnvConfig,
    Win,
    focus_actions,
    new_types,
    novel_actions,
    recovery_actions,
    recovery_env_factory,
)
from nesyworld.hybrid.recovery.induction import (
    Induced,
    Watch,
    adopt,
    induce_from_wins,
    shown_types,
)
from nesyworld.hybrid.recovery.learned_operator import LearnedOperator, build_learned_operator
from nesyworld.hybrid.recovery.starts import model_goal_reachable, sample_failure_starts
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import EpochRecord, TrainResult, train
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner
from nesyworld.world import World
from nesyworld.world.actions.schema import CountChange
from nesyworld.world.envs.gym_env import Refusals


def recovery_observation_space(env: WorldAdapter, config: RecoveryEnvConfig) -> Any:
    """The observation space a recovery env of this env has."""
    return env.observation_space(config.observation)


RARE = "rare failure"
"""How a recovery's error begins when the failure was too rare to learn from."""
_RARE_VERDICTS: WeakKeyDictionary[KnowledgeBase, dict[tuple[Any, ...], str]] = (
    WeakKeyDictionary())
"""Failures each knowledge base (an agent's) measured rare: the agent tries a failed
recovery again on a later map (HybridAgent, `attempts`), but the measurement would sample the
same maps with the same knowledge and spend the same env steps to the same answer."""


def _with_patience(on_epoch: Callable[[EpochRecord], bool | None] | None, patience: int
                   ) -> Callable[[EpochRecord], bool | None] | None:
    """`on_epoch`, also stopping training after `patience` epochs in a row whose evaluation
    had no success at all."""
    if patience <= 0:
        return on_epoch
    dry = 0

    def callback(record: EpochRecord) -> bool:
        nonlocal dry
        stop = bool(on_epoch(record)) if on_epoch is not None else False
        dry = dry + 1 if record.success_rate == 0 else 0
        return stop or dry >= patience

    return callback


class Recovery:
    """Learns operators for failures of one agent's knowledge base (which it edits)."""

    def __init__(self, kb: KnowledgeBase, config: RecoveryConfig = DEFAULT_RECOVERY,
                 known_actions: Collection[str] | None = None, novelty: str = "",
                 on_epoch: Callable[[EpochRecord], bool | None] | None = None,
                 planner: Planner | None = None,
                 skills: Mapping[str, Any] | None = None,
                 on_chunk: Callable[[int], None] | None = None,
                 knowledge: Knowledge = DEFAULT_KNOWLEDGE,
                 refusals: Refusals = "explained") -> None:
        self.kb = kb
        self.skills = skills or {}  # the learned operators the KB has: sampling runs them
        # the agent's own planner (and its cache) when given: the states repeat
        self.planner = planner if planner is not None else Planner(
            config.env.planner, timeout=config.env.planner_timeout, cache=PlanCache())
        self.config = config
        self.known_actions = tuple(known_actions) if known_actions is not None else None
        self.novelty = novelty
        self.on_epoch = on_epoch
        self.on_chunk = on_chunk
        """Called with the training env steps so far after each collected chunk (a
        progress bar moves between epochs)."""
        self.goal: dict[str, int] | None = None
        """The task's goal as the world states it (set by `learn`)."""
        self.knowledge = knowledge
        """hybrid/knowledge/regime.py: the dead-end test and the check of a learned operator
        read the post-novelty world's model only in the "oracle" regime."""
        self.refusals = refusals
        """Whether the maps sampled for more starts explain refusals (as the agent's env)."""

    def learn(self, env: WorldAdapter | World, failure: OperatorFailure,
              previous: LearnedOperator | None = None) -> RecoveryResult:
        """Train on the failure's subproblem; on success add (or, fine-tuning `previous`,
        replace) the learned operator in the knowledge base. `env`: the agent's env as it
        sees it (hybrid/boundary), only read; a bare world is seen through an adapter."""
        if failure.snapshot is None:
            raise ValueError("the failure has no snapshot to restart from")
        if isinstance(env, World):
            env = WorldAdapter.of_world(env, self.refusals)
        self.goal = env.goal()
        s = self.config
        start = time.perf_counter()
        # fine-tune when the policy can read this world's observations; a novelty that
        # added types since it was learned means learning it again (under the same name)
        tuning = previous is not None and previous.checkpoint is not None and (
            previous.fits(recovery_observation_space(env, s.env)))
        kwargs: dict[str, Any] = {}
        extra: list[OperatorFailure] = []
        sampling_steps = 0
        if not tuning and s.extra_maps > 0:
            known = self._rare_before(failure)
            if known:  # the same maps with the same knowledge: the same answer, unspent
                return RecoveryResult(str(failure), None, 0, 0, time.perf_counter() - start,
                                       False, False, False, error=known + " (measured "
                                       "before, with the same knowledge)")
            extra, sampling_steps, maps = self._sample(env, failure)
            if s.recurrence.proven_rare(len(extra), maps):
                verdict = (f"{RARE}: {s.recurrence.verdict(len(extra), maps)}; left to "
                           "replanning")
                _RARE_VERDICTS.setdefault(self.kb, {})[self._rare_key(failure)] = verdict
                return RecoveryResult(str(failure), None, sampling_steps, 0,
                                       time.perf_counter() - start, False, False, False,
                                       error=verdict, extra_starts=len(extra))
        # no training from dead ends: only starts from which the goal is still reachable
        extra = [f for f in extra if self.reachable(env, f) is not False]
        if self.reachable(env, failure) is False:
            if not extra:
                return RecoveryResult(str(failure), None, sampling_steps, 0,
                                       time.perf_counter() - start, False, False, False,
                                       error="dead end: the goal cannot be reached from the "
                                             "failure state, nor from the same failure on "
                                             "other maps; nothing to learn from")
            failure, extra = extra[0], extra[1:]
        if tuning and previous is not None:  # same network: same actions, and its old starts
            kwargs["action_names"] = previous.action_names
            extra = [*extra, *previous.starts]
            ppo = replace(s.ppo, lr=s.finetune_lr)
        else:
            kwargs["action_names"] = names = recovery_actions(env.actions())
            ppo = replace(s.ppo, action_prior=self.action_prior(env, failure, names))
        kwargs["starts"] = extra
        kwargs["goal"] = env.goal()  # the task as the agent is told it now
        # checked on entry; the other maps' failures are kept only with theirs (starts.py)
        assert failure.snapshot is not None
        factory = recovery_env_factory(env.recipe, failure.snapshot, failure, self.kb, s.env,
                                       **kwargs)
        init = previous.checkpoint if tuning and previous is not None else None
        watch = Watch(lambda wins: induce_from_wins(
            wins, self.kb, failure, env.recipe, self.goal or {}, self.planner,
            self._new_types(env, wins), self.skills, self.known_actions or ()),
            s.induce_tries if s.induce and not tuning else 0)

        def on_chunk(steps: int) -> bool:
            if self.on_chunk is not None:
                self.on_chunk(steps)
            return watch()

        batched = (recovery_vector_env_factory(env.recipe, failure.snapshot, failure, self.kb,
                                               s.env, **kwargs) if s.batched_copies else None)
        callbacks: dict[str, Any] = {"init": init, "on_chunk": on_chunk,
                                     "on_epoch": _with_patience(self.on_epoch, s.patience)}
        if batched is not None:
            result = train(config=batched_train_config(s.train, s.batched_copies), ppo=ppo,
                           icm=s.icm, vector_env_factory=(watch.vector_envs(batched)
                                                          if watch.tries else batched),
                           **callbacks)
        else:
            result = train(watch.envs(factory) if watch.tries else factory, s.train, ppo,
                           s.icm, **callbacks)
        if watch.found.ok:
            return self._adopt_induced(failure, watch.found, result, sampling_steps, start,
                                       len(extra))
        checker = factory()
        # seeded once: the rollouts' start states then follow from the training seed, so a
        # recovery (and the T_adapt it adds) repeats exactly
        checker.reset(seed=s.train.seed)
        op_name = previous.name if previous is not None else None
        try:
            learned = build_learned_operator(
                checker, result.learner.policy(greedy=False, seed=s.train.seed), s.rollouts,
                kb=self.kb,
                spent_steps=result.total_env_steps + sampling_steps, novelty=self.novelty,
                min_success_rate=s.min_success_rate, name=op_name,
                checkpoint=result.checkpoint(operator=op_name or ""),
                knowledge=self.knowledge)
        except ValueError as err:
            return self._outcome(failure, None, result, checker.env_steps + sampling_steps,
                                 start, tuning, False, str(err), 0 if tuning else len(extra))
        dropped = (self._check_declared(env, failure, learned)
                   if self.knowledge == "oracle" else None)
        if dropped is not None:
            return self._outcome(failure, None, result, checker.env_steps + sampling_steps,
                                 start, tuning, False, dropped, 0 if tuning else len(extra))
        learned.starts = [failure, *kwargs["starts"]]
        self._splice(failure, learned, replacing=previous is not None)
        uses = self.plan_uses(learned, failure)
        return self._outcome(failure, learned, result, checker.env_steps + sampling_steps,
                             start, tuning, uses, "", 0 if tuning else len(extra))

    def _new_types(self, env: WorldAdapter, wins: Sequence[Win]) -> set[str]:
        """The types new since the knowledge base that the episodes showed (the oracle
        regime: that the world registers)."""
        if self.knowledge == "oracle":
            known = {o.name for o in self.kb.base.objects}
            return {t for t in env.oracle_types(self.knowledge) if t not in known}
        return shown_types(self.kb, wins)

    def _adopt_induced(self, failure: OperatorFailure, found: Induced, result: TrainResult,
                       sampling_steps: int, start: float, extra_starts: int
                       ) -> RecoveryResult:
        """Bring the verified induced operators into the knowledge base; training stopped at
        the chunk that found them."""
        adopt(self.kb, found, {"induced": "from a successful recovery episode",
                               "failure": str(failure), "novelty": self.novelty,
                               "how": found.how, "training_steps": result.env_steps})
        return RecoveryResult(str(failure), None,
                               result.env_steps + sampling_steps + found.env_steps,
                               result.eval_env_steps, time.perf_counter() - start,
                               result.converged, False, True, result.epochs, "",
                               extra_starts, [op.name for op in found.operators])

    def _rare_key(self, failure: OperatorFailure) -> tuple[Any, ...]:
        """What a recurrence measurement depends on: the operator, the run's maps (the
        learner seed), the test, and the knowledge the sampling agent plans and acts with."""
        return (failure.operator.name, self.config.train.seed, self.config.extra_maps,
                self.config.recurrence,
                tuple(sorted(e.operator.name for e in self.kb if e.status == "active")),
                tuple(sorted(self.skills)))

    def _rare_before(self, failure: OperatorFailure) -> str:
        """The verdict when this knowledge base already measured the failure rare."""
        return _RARE_VERDICTS.get(self.kb, {}).get(self._rare_key(failure), "")

    def _sample(self, env: WorldAdapter, failure: OperatorFailure
                ) -> tuple[list[OperatorFailure], int, int]:
        """The failure met again on the run's fresh maps: (failures, env steps, maps). The
        first `extra_maps` maps give the starts; a failure that looks rare on them is
        sampled on further maps until `recurrence` can tell (recurrence.py)."""
        s = self.config
        found: list[OperatorFailure] = []
        steps = maps = 0
        more = s.extra_maps
        while more:
            seeds = self._map_seeds(s.train.seed, failure, maps + more)[maps:]
            sampled = sample_failure_starts(env.recipe, self.kb, failure, seeds,
                                            planner=self.planner, skills=self.skills)
            found += sampled.failures
            steps += sampled.env_steps
            maps += sampled.maps_tried
            more = s.recurrence.more_maps(len(found), maps)
        return found, steps, maps

    def reachable(self, env: WorldAdapter, failure: OperatorFailure) -> bool | None:
        """The dead-end test of a start: False only when the goal surely cannot be reached
        from it, judged on the agent's own model in the closed regime and on the world's
        declared model in the oracle one (hybrid/recovery/starts.py)."""
        if self.knowledge == "oracle":
            return env.oracle_goal_reachable(self.knowledge, failure.snapshot)
        return model_goal_reachable(self.kb, failure.before, self.goal or {},
                                    learning=failure.operator.schema)

    def _check_declared(self, env: WorldAdapter, failure: OperatorFailure,
                        learned: LearnedOperator) -> str | None:
        """The oracle regime's check of a learned operator before it is spliced in (in the
        closed regime it is checked only against the rollouts it was built from): a count it
        promises to raise must be one the world's own model can raise from the failure state
        (in its sound relaxation). A gain it cannot explain is taken
        out of the promise (promising less stays sound); the reason when nothing is left."""
        have = env.oracle_reachable(self.knowledge, failure.snapshot)
        if have is None:
            return None
        effects = tuple(e for e in learned.schema.effects if not (
            isinstance(e, CountChange) and e.delta > 0 and (e.fluent, e.arg) not in have))
        if effects == learned.schema.effects:
            return None
        if not any(isinstance(e, CountChange) for e in effects):
            return (f"the learned change of {learned.name} is not one the world's declared "
                    "semantics can bring about")
        learned.schema = replace(learned.schema, effects=effects, provenance=(
            learned.schema.provenance + "; gains the world's declared semantics cannot "
            "explain left out"))
        return None

    def action_prior(self, env: WorldAdapter, failure: OperatorFailure,
                     names: tuple[str, ...]) -> tuple[float, ...]:
        """The policy's action prior: `focus_bias` on the focus actions, `novelty_bias` more
        on the novel ones, 0 elsewhere."""
        s = self.config
        if s.focus_bias == 0 and s.novelty_bias == 0:
            return ()
        known = self.known_actions if self.known_actions is not None else names
        types = {o.name for o in self.kb.base.objects}
        # new types: those observed at the failure (the oracle: those the world registers)
        shown = (env.oracle_types(self.knowledge) if self.knowledge == "oracle"
                 else observed_types(failure.before) if failure.before is not None else ())
        fresh = new_types(shown, types)
        offered = env.actions()
        focus = focus_actions(offered, failure.operator, known, fresh)
        novel = novel_actions(offered, known, fresh)
        return tuple(s.focus_bias * (n in focus) + s.novelty_bias * (n in novel)
                     for n in names)

    def _splice(self, failure: OperatorFailure, learned: LearnedOperator,
                replacing: bool) -> None:
        self.kb.add(learned.schema, origin="learned", meta=learned.meta(),
                    replace_existing=replacing)
        failed = failure.operator.name
        if failed != learned.name and failed in self.kb and (
                self.kb.entry(failed).status == "active"):
            self.kb.demote(failed, f"failed under novelty {self.novelty or '?'}: "
                                   f"{failure.reason or 'wrong effects'}; replaced by "
                                   f"{learned.name}")

    def plan_uses(self, learned: LearnedOperator, failure: OperatorFailure) -> bool:
        """Does a fresh plan from the failure state use the learned operator?"""
        result = self.planner.plan(self.kb.derivation(failure.before), goal=self.goal)
        return result.ok and learned.name in {step.operator for step in result.steps}

    @staticmethod
    def _outcome(failure: OperatorFailure, learned: LearnedOperator | None,
                 result: TrainResult, other_steps: int, start: float, tuning: bool,
                 uses: bool, error: str = "", extra_starts: int = 0) -> RecoveryResult:
        return RecoveryResult(str(failure), learned, result.env_steps + other_steps,
                               result.eval_env_steps, time.perf_counter() - start,
                               result.converged, tuning, uses, result.epochs, error,
                               extra_starts)

    @staticmethod
    def _map_seeds(seed: int, failure: OperatorFailure, n: int) -> list[int]:
        """The run's extra maps for this failing operator (nesyworld.hybrid.seeding): fixed
        by the run seed (the learner's) and the operator, disjoint from every other run's."""
        return RunSeeds(seed).extra_maps(failure.operator.name, n)
