"""A recovery's settings and what it reports.

`RecoveryConfig` says how a recovery learns (its budget, its algorithm and the departures
from the paper's post-novelty routine, each with the measurement behind it); `RecoveryResult`
is what one recovery did and cost. hybrid/recovery/recover.py runs recoveries with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from nesyworld.hybrid.recovery.env import RecoveryEnvConfig
from nesyworld.hybrid.recovery.learned_operator import LearnedOperator
from nesyworld.hybrid.recovery.recurrence import RecurrenceTest
from nesyworld.learning import EpochRecord, ICMConfig, PPOConfig, TrainConfig

__all__ = ["DEFAULT_RECOVERY", "RECOVERY_MINIBATCH", "RecoveryConfig", "RecoveryResult",
           "batched_train_config"]


def _recovery_train_config() -> TrainConfig:
    return TrainConfig(step_budget=60_000, epoch_length=500, collect_chunk=500,
                       eval_episodes=4, vector_env="dummy", progress=False,
                       deterministic_eval=False)


def batched_train_config(train: TrainConfig, copies: int) -> TrainConfig:
    """`train` for `copies` copies of the batched recovery env: the chunk and the epoch
    rounded up to whole rounds of all copies (500 stays 500 for 4 copies, becomes 512 for
    16). The trainer collects whole rounds, so an epoch of 500 on 16 copies would be a chunk
    of 496 and one of 16, each with its own PPO update."""
    def whole(steps: int) -> int:
        return -(-steps // copies) * copies

    return replace(train, num_envs=copies, collect_chunk=whole(train.collect_chunk),
                   epoch_length=whole(train.epoch_length))


RECOVERY_MINIBATCH = 128
"""The recoveries' PPO minibatch: the paper's (its table 7), where PPOConfig's default is 64.
Measured on the light protocol's Axe, Fence and Fire recoveries, run seeds 0-5
(`python -m nesyworld.experiments.adaptation.run --novelties axe fence fire --seeds 6
--minibatch 128`): every run adapted, in fewer env steps on average than at 64 (T_adapt
3,883 / 6,989 / 16,905 against 4,486 / 7,153 / 23,078), with half the gradient steps a
chunk (per env step, training ran about as fast: 872 against 865 env steps/s over 16,384
steps of the Axe recovery in experiments/benchmarks/training.py, where the recovery env's
own steps and the evaluations weigh as much as the update). 256 failed two of six Fire
recoveries, 128 x 4 one."""


@dataclass(frozen=True)
class RecoveryConfig:
    """Budget and algorithm of a recovery.

    Departures from the paper's post-novelty routine (4,800-step epochs, 100 evaluation
    episodes), each because the recovery subproblem is small: 500-step epochs, so the
    convergence test (5 passing epochs, paper appendix A) costs 2,500 steps at least instead
    of 24,000; 4 evaluation episodes, because every episode starts at the same snapshot and
    the evaluation is greedy (the only variation is the world's own randomness); in-process
    envs (copies of the batched recovery env, `batched_copies`, or RecoveryEnvs), because
    pipes to subprocesses cost more than a recovery step.

    Learned operators run their policy sampled, not greedy, and the convergence test
    evaluates it the same way: on a map it never trained on, a greedy policy that picks a
    useless action picks it forever (the Axe operator stalled so on 3 of 40 new maps), a
    sampled one soon tries the next likeliest.
    """

    env: RecoveryEnvConfig = field(default_factory=lambda: RecoveryEnvConfig(horizon=100))
    train: TrainConfig = field(default_factory=_recovery_train_config)
    ppo: PPOConfig = field(default_factory=lambda: PPOConfig(batch_size=RECOVERY_MINIBATCH))
    """PPO's settings; the minibatch is the paper's 128 (`RECOVERY_MINIBATCH`)."""
    icm: ICMConfig | None = field(default_factory=ICMConfig)
    rollouts: int = 20
    """Rollouts (sampled) from the snapshot that define the operator's effects."""
    min_success_rate: float = 0.9
    """Rollout success rate below which no operator is made (the planner could not rely on
    it); the failure is then left to the planning agent's retries."""
    extra_maps: int = 16
    """Fresh maps on which the planning agent is run to meet the same failure again, each
    a further start of the recovery env (see starts.py); 0 learns from the one
    failure only. Their env steps count as adaptation."""
    confirmations: int = 2
    """Failures of an operator before it is learned from. A novelty breaks an operator every
    time; a one-off mismatch (an NPC stepping into the cell just broken, so the agent faces
    it rather than air) does not repeat, and the replan that follows the first failure is
    cheap where a recovery costs thousands of steps."""
    attempts: int = 2
    """Recoveries of one operator that may end without an operator before the agent stops
    trying to learn it (and only replans around it): each costs the whole step budget."""
    focus_bias: float = 2.0
    """Initial logit bonus of the focus actions (`focus_actions`: those a fix most likely
    needs) over the rest of the whole action space the recovery acts with; 0 for none. With
    ~50 actions and ~20 in focus, 2.0 gives the focus about 85% of the first samples: the
    fence and fire recoveries learned in several times more steps without it."""
    novelty_bias: float = 2.0
    """Further logit bonus, on top of `focus_bias`, of the actions new since the novelty
    (`novel_actions`: offered only since, or naming a type that came with it); 0 for none.
    A recovery learns little before its first success, and that comes from exploring: on
    Fire (collect the new water bucket, select it, use it on the burning table, craft) a
    sampled episode from the initial policy succeeds 12.5% of the time with it and 1.25%
    without (400 episodes from run seed 5's 17 starts). Without it the first success was a
    matter of luck: 1 run seed in 12 (`nesyworld run pogostick --novelty fire --agent
    rapidlearn+ --seed S`, S = 0-11) never adapted, and the 11 that did needed 26,162 env
    steps on average; with it all 12 adapted, in 12,790 on average (the README's *Speed*)."""
    finetunes: int = 3
    """Fine-tunes of one learned operator (each after it failed on a new map) before the
    agent stops tuning it and only replans around its failures: without a bound, failures
    on ever new maps keep restarting the learning, and adaptation never ends."""
    induce: bool = True
    """Induce before training (induction.py): the first successful episodes become
    operators, and a set that verifies by execution ends the training. The paper's
    learning-only agents turn it off (`hybrid_configs`), so their recoveries are PPO's."""
    induce_tries: int = 3
    """Successful episodes examined for induction, at most (each costs a plan and a
    verification run)."""
    patience: int = 8
    """Evaluation epochs in a row without a single success after which a recovery stops
    training (0: never): a policy that has found no way from the failure in that many
    epochs rarely finds one in the rest of the budget, which it would spend whole (60,000
    steps, and nearly as many again in evaluation episodes that run to the horizon). On the
    Fence novelty a crafting table walled in a corner cost 110,752 env steps so, twice.
    The last of an operator's `attempts` trains without it, on its whole budget: after it
    the operator is given up and fails in every later episode, so a last attempt cut short
    costs more than the steps it saves. On Fire, run seeds 2 and 8 gave up after two
    attempts of 8 dry epochs each and failed the next million steps; without the stop,
    seed 2's learner first succeeded in a training rollout after 9,000 steps and learned the
    operator in 17,530."""
    recurrence: RecurrenceTest = field(default_factory=RecurrenceTest)
    """When a failure is too rare to learn from: the fresh maps sampled for more starts
    (`extra_maps`) also measure how often it recurs, and a failure they prove rarer than
    `recurrence.bar` of maps is left to replanning (recurrence.py). On the Fence novelty the
    operators it breaks only where fences wall a target in (the trader, the crafting
    table: 0 and 2 of 16 maps) cost 92% of T_adapt at the paper's protocol, for one or two
    points of success; `RecurrenceTest(max_maps=0)` learns from every failure."""
    batched_copies: int = 4
    """Copies of the recovery env trained on at once on the batched core
    (`RecoveryVectorEnv`), when the failure's world runs there; 0 trains on `train.num_envs`
    `RecoveryEnv`s, as a world that does not run there always does. 4 keeps the recoveries'
    sample efficiency: on the Axe, Fence and Fire recoveries of the main job (run seeds 0-5,
    `nesyworld run`'s in-process planner) every run adapted, in 3,378 / 5,968 / 9,333 env
    steps on average against 3,612 / 6,316 / 10,276 on 2 RecoveryEnvs; with 8 copies one
    Fire run never adapted, with 16 two Fire runs needed a second recovery (16,063 on
    average) and one Fence run took 72,664 (docs/SPEED.md)."""
    finetune_lr: float = 1e-4
    """Learning rate when fine-tuning a learned operator that failed (lower than a fresh
    run's, so the policy adapts without forgetting)."""

    @classmethod
    def rapidlearn(cls, **changes: Any) -> RecoveryConfig:
        """RapidLearn: PPO without curiosity, and every recovery learned (no induction)."""
        return replace(cls(icm=None, induce=False), **changes)

    @classmethod
    def rapidlearn_plus(cls, **changes: Any) -> RecoveryConfig:
        """RapidLearn+: PPO with ICM curiosity (the paper's best hybrid), every recovery
        learned (no induction)."""
        return replace(cls(induce=False), **changes)

    @property
    def variant(self) -> str:
        return "rapidlearn" if self.icm is None else "rapidlearn+"


@dataclass
class RecoveryResult:
    """What one recovery did and cost."""

    failure: str
    operator: LearnedOperator | None
    learning_steps: int
    """Training, checking rollouts and sampled failure maps (docs/COUNTS.md)."""
    evaluation_steps: int
    """The learner's own evaluation episodes (its convergence test)."""
    wall_seconds: float
    converged: bool
    fine_tuned: bool
    plan_uses_it: bool
    epochs: list[EpochRecord] = field(default_factory=list)
    error: str = ""
    extra_starts: int = 0
    """Failures met again on other maps and trained from (see `RecoveryConfig`)."""
    induced: list[str] = field(default_factory=list)
    """Operators induced from a successful episode, verified, that ended the training
    instead of a learned policy (induction.py)."""

    @property
    def ok(self) -> bool:
        return self.operator is not None or bool(self.induced)

    @property
    def env_steps(self) -> int:
        """Env steps in all: what this recovery adds to T_adapt."""
        return self.learning_steps + self.evaluation_steps

    def summary(self) -> dict[str, Any]:
        return {"method": "learning", "failure": self.failure,
                "operator": self.operator.name if self.operator else None,
                "env_steps": self.env_steps, "learning_steps": self.learning_steps,
                "evaluation_steps": self.evaluation_steps,
                "wall_seconds": round(self.wall_seconds, 2), "converged": self.converged,
                "fine_tuned": self.fine_tuned, "plan_uses_it": self.plan_uses_it,
                "epochs": len(self.epochs), "extra_starts": self.extra_starts,
                "induced": self.induced, "error": self.error}


DEFAULT_RECOVERY = RecoveryConfig()
"""The default settings (a frozen config, so one instance serves every default argument)."""
