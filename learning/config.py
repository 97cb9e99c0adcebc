"""Frozen configurations for PPO, ICM and the training routine.

The defaults start from the NovelGym paper (appendix H, tables 4, 5 and 7, the post-novelty
routine) and depart from it where a better choice is clear; every departure is stated in the
field's docstring. The configs are frozen so that a checkpoint can store exactly what a run used
and a later fine-tuning run can compare architectures before loading weights.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

__all__ = ["ICMConfig", "PPOConfig", "TrainConfig", "config_from_dict"]


@dataclass(frozen=True)
class PPOConfig:
    """PPO for a discrete action space: separate MLP actor and critic, one Adam optimiser."""

    hidden_sizes: tuple[int, ...] = (256, 64)
    """Hidden layers of the actor, and of the critic unless `critic_hidden_sizes` says
    otherwise (paper table 4: 256, 64)."""

    critic_hidden_sizes: tuple[int, ...] | None = None
    """Hidden layers of the critic; None: the actor's (`hidden_sizes`). NovelGym's code
    builds its critic with 256, 128, 64 and its actor with 128, 64 (docs/EXPERIMENTS.md)."""

    lr: float = 3e-4
    """Adam learning rate. The paper uses 1e-5, which needs hundreds of thousands of steps even
    on tiny problems; 3e-4 is the usual PPO default and learns small recovery subproblems in a
    few thousand steps. Lower it for fine-tuning a policy that must not forget."""

    gamma: float = 0.99
    """Discount factor (paper: 0.99)."""

    eps_clip: float = 0.2
    """PPO ratio clip (paper: 0.2)."""

    gae_lambda: float = 0.95
    """GAE lambda; not given by the paper, 0.95 is the common PPO default."""

    ent_coef: float = 0.01
    """Entropy bonus; keeps exploring until the sparse goal reward has been seen."""

    vf_coef: float = 0.5
    """Weight of the value loss in the joint actor-critic loss."""

    epochs_per_update: int = 8
    """Passes over each collected chunk (tianshou's `update_step_num_repetitions`). The paper's
    table 7 lists 8 "batches per train", read here as 8 passes. Speed: the update's arithmetic
    grows with passes x chunk whatever the minibatch; with large minibatches (see `batch_size`)
    it is most of a training step, so 4 passes train about twice as fast as 8."""

    batch_size: int = 64
    """Minibatch size of the gradient steps. The paper uses 128; 64 doubles the gradient steps
    per collected chunk and, on the masked-gridworld test, roughly halved the env steps PPO
    needed (lr and gradient steps per sample matter more than anything else there).

    The trade-off, measured (experiments/benchmarks/training.py, one torch thread, beside the
    minimal PPO of minimal_ppo.py in the same run): with 64 pogostick copies and 4,096-step
    chunks, 64 x 8 passes trained at ~740 env steps/s and 2048 x 4 at ~5,300 (the minimal PPO:
    ~770 and ~7,200); small minibatches pay a fixed cost per gradient step (a few
    milliseconds of tiny matrix products, the optimiser and Python) that no collection path
    removes. Sample efficiency, the recovery's own settings (2 envs, 500-step chunks, PPO+ICM),
    seeds 0-2 of `experiments.adaptation.run`: 256 x 8 needed no more env steps than 64 x 8 on
    Axe (3,308/3,583/3,658 against 4,542/3,714/3,379 adaptation steps) and Fence (7,929/
    3,893/3,798 against 19,905/5,212/4,156), but not on Fire (15,024/12,185 against 7,394/
    27,112 for seeds 1-2, and seed 0 failed after 125,586 steps where 64 x 8 adapted in
    74,377), so the default stays 64. The recoveries use the paper's 128 (the hybrid
    agents' RecoveryConfig): on run seeds 0-5 of the three recoveries it adapted every time,
    in fewer env steps on average than 64, where 256 x 8 failed two of six Fire runs and
    128 x 4 one."""

    max_grad_norm: float | None = 0.5
    """Gradient-norm clip over actor and critic together; None disables it."""

    advantage_normalization: bool = True
    """Normalise advantages per minibatch, so the policy step does not depend on reward scale."""

    reward_scale: float = 0.01
    """Multiply rewards by this constant before computing returns and advantages (statistics
    and the convergence test still see the env's own rewards). Not in the paper: the recovery
    rewards (+1000 goal, -1 a step, -250 dead end) would otherwise make the value loss ~1e6,
    and because the gradient clip is shared that starves the actor's gradient. A constant is
    used rather than `return_scaling`, whose running statistics start at variance 1: the critic
    fits raw +1000 returns in the first update, then reads them multiplied by the new std, and
    on the Axe recovery env the policy unlearned a 97% random success rate (0% after 6,400
    steps) while this scale converged at the minimum of 5 epochs."""

    return_scaling: bool = False
    """tianshou's running-std return scaling (see `reward_scale` for why it is off)."""

    action_prior: tuple[float, ...] = ()
    """Initial logit offset of each action (empty: none), the bias of the actor's last layer
    at the start. A prior, not a pruning: every legal action keeps a non-zero probability and
    training moves the offsets like any weight. Recovery uses it to try the actions a failure
    most likely needs first while still acting with the whole action space."""

    value_clip: bool = False
    """Clip value updates like the policy ratio (arXiv:1811.02553); off by default."""

    recompute_advantage: bool = False
    """Recompute advantages before each pass (arXiv:2006.05990)."""

    dual_clip: float | None = None
    """Dual-clip constant (> 1) or None."""

    critic_warmup_steps: int = 0
    """The first this many env steps of a training run update its critic only; the policy
    stays as it came (the protocol counts them over a phase's runs, one an epoch:
    experiments/protocol/agents.py). A diagnostic of transfer, not the paper's (which has
    none): a critic carried over a novelty holds the old world's values, and its first
    advantages can steer the policy back to the old plan before it has learned the new one
    (docs/EXPERIMENTS.md, *What fine-tuning unlearns*)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden_sizes", tuple(int(h) for h in self.hidden_sizes))
        if not self.hidden_sizes:
            raise ValueError("PPOConfig.hidden_sizes must name at least one layer")
        if self.critic_hidden_sizes is not None:
            object.__setattr__(self, "critic_hidden_sizes",
                               tuple(int(h) for h in self.critic_hidden_sizes))
            if not self.critic_hidden_sizes:
                raise ValueError("PPOConfig.critic_hidden_sizes must name at least one layer "
                                 "(or be None: the actor's)")
        if self.reward_scale <= 0:
            raise ValueError("PPOConfig.reward_scale must be positive")
        if self.lr <= 0 or self.batch_size <= 0 or self.epochs_per_update <= 0:
            raise ValueError("PPOConfig: lr, batch_size and epochs_per_update must be positive")
        if self.critic_warmup_steps < 0:
            raise ValueError("PPOConfig.critic_warmup_steps must be 0 or more")
        if self.critic_warmup_steps and self.recompute_advantage:
            raise ValueError("PPOConfig.critic_warmup_steps needs recompute_advantage=False "
                             "(the warm-up runs on the plain passes, ppo_passes.py)")

    @property
    def critic_sizes(self) -> tuple[int, ...]:
        """The critic's hidden layers: `critic_hidden_sizes`, or the actor's."""
        return self.hidden_sizes if self.critic_hidden_sizes is None else self.critic_hidden_sizes


@dataclass(frozen=True)
class ICMConfig:
    """Intrinsic curiosity (Pathak et al. 2017) on top of any on-policy algorithm."""

    feature_hidden_sizes: tuple[int, ...] = (256, 64)
    """Hidden layers of the feature net phi(s) (paper table 5: 256, 64)."""

    feature_dim: int = 16
    """Size of the learned feature vector phi(s) (paper: 16)."""

    model_hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layers of the forward and inverse models; the paper does not give them."""

    reward_scale: float = 0.01
    """Intrinsic reward = reward_scale * forward-model error (paper: 0.01)."""

    forward_loss_weight: float = 0.2
    """Loss = (1 - w) * inverse + w * forward (paper: 0.2)."""

    lr: float = 1e-4
    """Adam learning rate of the ICM networks (paper: 1e-4)."""

    lr_scale: float = 1.0
    """Multiplier of the ICM loss, i.e. of its effective learning rate (paper: 1)."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "feature_hidden_sizes", tuple(int(h) for h in self.feature_hidden_sizes)
        )
        object.__setattr__(
            self, "model_hidden_sizes", tuple(int(h) for h in self.model_hidden_sizes)
        )
        if self.feature_dim <= 0:
            raise ValueError("ICMConfig.feature_dim must be positive")


@dataclass(frozen=True)
class TrainConfig:
    """The training routine: budget, epochs, vector envs, evaluation and the convergence test."""

    step_budget: int = 500_000
    """Maximum number of training env steps; never exceeded (evaluation steps are extra and
    reported separately)."""

    epoch_length: int = 4800
    """Training env steps between two evaluations (paper table 7, post-novelty: 4800)."""

    collect_chunk: int = 800
    """Env steps collected before each PPO update, the paper's "train frequency" (800)."""

    num_envs: int = 2
    """Parallel training envs (paper: 4). 2 here because the target machines have 2 cores."""

    vector_env: Literal["subprocess", "dummy"] = "subprocess"
    """`subprocess`: tianshou SubprocVectorEnv, one process per env (real parallelism).
    `dummy`: DummyVectorEnv, all in-process (tests, envs that cannot be forked, and cheap envs:
    for the test gridworld, whose steps cost microseconds, dummy ran at ~450 env steps/s with
    updates included and subprocess at ~310, the pipes costing more than the env).
    Unused when `train` is given a `vector_env_factory` (one native Gymnasium vector env)."""

    eval_episodes: int = 20
    """Evaluation episodes per epoch. The paper uses 100; with 4800-step epochs and 400-step
    episodes that costs more env steps than training, and 20 episodes already resolve a 0.9
    success rate to about +-0.07."""

    deterministic_eval: bool = True
    """Evaluate the greedy (most probable) action, as the executor of a learned operator will;
    training always samples."""

    max_episode_steps: int | None = None
    """Wrap each env in a TimeLimit of this many steps (paper post-novelty: 400); None trusts
    the env's own truncation. Evaluation needs some limit: a greedy policy can loop forever."""

    seed: int = 0
    """Seeds torch and numpy, and the envs when `env_seed` is None."""

    env_seed: int | None = None
    """First seed of the envs: training envs env_seed, env_seed+1, ...; evaluation envs
    env_seed+10_000, ... (None: `seed`). Runs give it from their run seed's own block of map
    seeds (nesyworld.hybrid.seeding), so two runs never train on the same maps."""

    success_threshold: float = 0.9
    """Convergence test delta_G: success rate required in each of the last eta epochs."""

    reward_threshold: float = 400.0
    """Convergence test delta_R: mean episode reward required in each of the last eta epochs."""

    eta: int = 5
    """Convergence test eta: number of recent epochs that must all pass (paper: 5)."""

    nu: int = 5
    """Convergence test nu: the max over the last eta+nu epochs must not exceed the max over the
    last eta (paper: 5)."""

    require_full_window: bool = False
    """If True, the convergence test waits until eta+nu epochs exist; if False (default) the
    no-regression check uses whatever older epochs exist, so convergence can be declared after
    eta epochs."""

    stop_on_convergence: bool = True
    """Stop as soon as the convergence test passes (otherwise run to the budget)."""

    progress: bool = True
    """Show a tqdm progress bar (turn off in tests and non-interactive logs)."""

    logdir: str | None = None
    """Write every epoch to `<logdir>/epochs.csv` (a row each, for a spreadsheet) and as
    TensorBoard scalars in the same folder (learning/training/logs.py). Runs that continue
    (fine-tunes) append to the CSV and add an event file; TensorBoard reads them together."""

    torch_threads: int | None = 1
    """torch.set_num_threads for the run (restored afterwards); None leaves torch alone.
    Default 1: the networks are tiny, and on a 2-core machine shared with env processes torch's
    intra-op threads contend for the cores; measured 10x slower updates with 2 threads."""

    update_thread: bool = False
    """Give the update a second thread: the critic's half of each PPO gradient step (its
    loss, forward and backward) runs there while the actor's runs, and ICM's step while PPO
    computes its returns. The same weights bit for bit, in less time where a core is free
    (recovery training on the batched core, docs/SPEED.md). Off by default: a sweep's workers
    already keep every core busy. Needs the default optimiser (`fused_adam`,
    learning/algorithms/ppo.py)."""

    def __post_init__(self) -> None:
        if self.step_budget <= 0 or self.epoch_length <= 0 or self.collect_chunk <= 0:
            raise ValueError("TrainConfig: budget, epoch_length and collect_chunk must be > 0")
        if self.num_envs <= 0 or self.eval_episodes <= 0:
            raise ValueError("TrainConfig: num_envs and eval_episodes must be positive")
        if self.vector_env not in ("subprocess", "dummy"):
            raise ValueError(f"TrainConfig.vector_env: unknown {self.vector_env!r}")
        if self.eta <= 0 or self.nu < 0:
            raise ValueError("TrainConfig: eta must be positive and nu non-negative")


def config_from_dict(cls: type[Any], data: dict[str, Any]) -> Any:
    """Rebuild a config from `dataclasses.asdict` output, ignoring unknown keys.

    Why: checkpoints store configs as plain dicts so they survive later additions of fields
    (a new field takes its default when an old checkpoint is loaded).
    """
    known = {f.name for f in fields(cls)}
    # sequences come back as lists from some formats; the configs hold tuples (hashable)
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()
                  if k in known})


def config_to_dict(config: Any) -> dict[str, Any]:
    """Plain-dict form of a config (the inverse of `config_from_dict`)."""
    return asdict(config)
