"""Train PPO (+ICM) on any Gymnasium env with a Discrete action space, until convergence.

`train(env_factory, config, ppo, icm)` runs its own loop rather than tianshou's OnPolicyTrainer,
because the trainer's early stop sees only one scalar score (and only the best one so far),
while the paper's convergence test needs the per-epoch success rate and mean reward history.
The loop is the on-policy trainer's core: collect a chunk inside `policy_within_training_step`
(so actions are sampled), `algorithm.update` on it; every `epoch_length` steps, evaluate on
separate envs and apply the convergence test. Training chunks come from the lean `Rollout`
(rollout.py), which gives the transitions tianshou's Collector would, without its per-step
bookkeeping; evaluation likewise runs the Collector's n_episode logic without it
(evaluation.py; `LEAN_EVALUATION = False` goes back to the Collector itself). The
envs are N single envs in tianshou's vector envs, or one native Gymnasium vector env behind
`VectorEnvAdapter` (vector_adapter.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
import tqdm
from tianshou.env import BaseVectorEnv
from tianshou.utils.torch_utils import policy_within_training_step

from nesyworld.learning.algorithms.ppo import update_thread
from nesyworld.learning.config import ICMConfig, PPOConfig, TrainConfig
from nesyworld.learning.policy import Policy
from nesyworld.learning.training.checkpoint import Checkpoint
from nesyworld.learning.training.convergence import ConvergenceTest
from nesyworld.learning.training.envs import EnvFactory, make_envs
from nesyworld.learning.training.evaluation import CollectorEvaluation, LeanEvaluation
from nesyworld.learning.training.learner import Learner, build_learner
from nesyworld.learning.training.logs import EpochLog, run_logdir
from nesyworld.learning.training.rollout import Rollout, step_envs
from nesyworld.learning.training.vector_adapter import VectorEnvFactory

__all__ = ["EpochRecord", "TrainResult", "train"]

log = logging.getLogger(__name__)

MAX_UNLIMITED_EVAL_EPISODE = 10_000
"""Evaluation buffer length per env when TrainConfig.max_episode_steps is None; longer
evaluation episodes would misreport their length (not their return or success) on the
Collector path."""

LEAN_EVALUATION = True
"""Evaluate with `LeanEvaluation` (same episodes, steps and random stream as the Collector,
checked by tests/learning/test_fast_path.py) rather than tianshou's Collector."""


@dataclass(frozen=True)
class EpochRecord:
    """One epoch: training since the last evaluation, then an evaluation."""

    epoch: int
    steps: int
    """Training env steps so far (cumulative, this run)."""
    epoch_steps: int
    success_rate: float
    """Evaluation success rate (from info[success_key] at episode end)."""
    mean_reward: float
    """Evaluation mean episode return."""
    mean_length: float
    """Evaluation mean episode length."""
    eval_episodes: int
    eval_steps: int
    """Evaluation env steps taken (with a native vector env, including those of envs the
    evaluation no longer needed, see vector_adapter.py)."""
    train_episodes: int
    """Training episodes finished in this epoch (and their success rate / mean return below)."""
    train_success_rate: float
    train_mean_reward: float
    steps_per_second: float
    """Training env steps per second of training wall time (collection + updates), this epoch."""
    wall_seconds: float
    """Wall time since the start of the run, at the end of this epoch."""
    converged: bool
    losses: dict[str, float]
    """Mean over this epoch's updates of each statistic the algorithm reports (PPO: loss,
    actor_loss, vf_loss, ent_loss, gradient_steps; ICM adds icm_loss, icm_forward_loss,
    icm_inverse_loss and intrinsic_reward, the mean intrinsic reward per step)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainResult:
    """What a training run produced."""

    converged: bool
    env_steps: int
    """Training env steps (exact; evaluation steps are in `eval_env_steps`)."""
    eval_env_steps: int
    """Evaluation env steps taken (the sum of the epochs' `eval_steps`)."""
    epochs: list[EpochRecord]
    policy: Policy
    wall_seconds: float
    learner: Learner
    config: TrainConfig
    prior_env_steps: int = 0
    """Training env steps of the checkpoint this run continued from (0 for a fresh run)."""

    @property
    def total_env_steps(self) -> int:
        return self.env_steps + self.eval_env_steps

    def checkpoint(self, **metadata: Any) -> Checkpoint:
        """Snapshot for `save_checkpoint` / fine-tuning (env_steps summed over continued runs)."""
        return self.learner.checkpoint(
            train=self.config, env_steps=self.prior_env_steps + self.env_steps, **metadata
        )


def _mean(xs: Any, default: float = 0.0) -> float:
    arr = np.asarray(xs, dtype=float)
    return float(arr.mean()) if arr.size else default


def _evaluation(
    policy: Any, eval_envs: BaseVectorEnv, config: TrainConfig
) -> CollectorEvaluation | LeanEvaluation:
    """The evaluation path: the lean loop, or tianshou's Collector (same results, slower)."""
    if LEAN_EVALUATION:
        return LeanEvaluation(eval_envs, policy)
    # Each eval env's buffer must hold a whole episode: tianshou takes episode lengths from it.
    per_env = (config.max_episode_steps or MAX_UNLIMITED_EVAL_EPISODE) + 1
    return CollectorEvaluation(eval_envs, policy, per_env)


def train(
    env_factory: EnvFactory | None = None,
    config: TrainConfig | None = None,
    ppo: PPOConfig | None = None,
    icm: ICMConfig | None = None,
    success_key: str = "success",
    init: Checkpoint | None = None,
    on_epoch: Callable[[EpochRecord], bool | None] | None = None,
    vector_env_factory: VectorEnvFactory | None = None,
    on_chunk: Callable[[int], bool | None] | None = None,
) -> TrainResult:
    """Train a masked PPO (+ICM if `icm` is given) policy on envs made by `env_factory`.

    `env_factory` is called `num_envs` times for training and up to `num_envs` times for
    evaluation; each env must have a Discrete action space, may give `info["action_mask"]`
    and should give `info[success_key]` at episode end. `init`: continue from a checkpoint
    (fine-tuning). `on_epoch` is called after each epoch's evaluation (e.g. to log, save, or
    enforce a wall-clock limit): returning True stops training after that epoch.
    `on_chunk(env_steps)` is called after each collected chunk and its update, with the
    training env steps so far: a progress display moves with it between epochs (an epoch
    is several chunks, then an evaluation). Returning True stops training at once, without
    that epoch's evaluation (a caller that found what it trained for in the chunk).

    Instead of `env_factory`, `vector_env_factory(n)` may make a native Gymnasium vector env of
    n envs (`gymnasium.vector.VectorEnv`, autoreset mode NEXT_STEP or DISABLED, supporting
    partial resets): called once with `num_envs` for training and once with
    min(num_envs, eval_episodes) for evaluation. Its Discrete `single_action_space`, the
    batched infos' "action_mask" (N, n_actions) and success flag (N,) play the same roles;
    `config.vector_env` is then unused. Give exactly one of the two factories.

    Seeds torch's and numpy's global generators with `config.seed` (tianshou shuffles
    minibatches with numpy's), so a run is reproducible given the seed and the env.
    """
    if (env_factory is None) == (vector_env_factory is None):
        raise TypeError("train: give exactly one of env_factory and vector_env_factory")
    config = config or TrainConfig()
    ppo = ppo or PPOConfig()
    start = time.perf_counter()
    torch.manual_seed(config.seed)
    np.random.seed(config.seed)
    old_threads = torch.get_num_threads()
    if config.torch_threads is not None:
        torch.set_num_threads(config.torch_threads)
    # torch.distributions checks every sample and parameter by default; on these tiny
    # networks that check was a visible share of the PPO update (seen with py-spy)
    old_validate = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)

    venvs: list[BaseVectorEnv] = []
    epoch_log: EpochLog | None = None
    try:
        obs_space, act_space = make_envs(
            env_factory, vector_env_factory, config, success_key, venvs
        )
        train_envs, eval_envs = venvs
        env_seed = config.seed if config.env_seed is None else config.env_seed
        train_envs.seed(env_seed)
        eval_envs.seed(env_seed + 10_000)
        learner = build_learner(obs_space, act_space, ppo, icm, config.deterministic_eval)
        if init is not None:
            learner.load(init)
        logdir = run_logdir(config.logdir, {
            "config": asdict(config), "ppo": asdict(ppo), "icm": None if icm is None
            else asdict(icm), "continues_from_env_steps": None if init is None
            else init.env_steps})
        if logdir is not None:
            epoch_log = EpochLog(logdir)
            on_epoch = _logged(epoch_log, on_epoch)
        with update_thread(learner.ppo) if config.update_thread else nullcontext():
            result = _run(learner, train_envs, eval_envs, config, start, on_epoch, on_chunk)
    finally:
        if epoch_log is not None:
            epoch_log.close()
        for venv in venvs:
            venv.close()
        if config.torch_threads is not None:
            torch.set_num_threads(old_threads)
        torch.distributions.Distribution.set_default_validate_args(old_validate)
    result.prior_env_steps = 0 if init is None else init.env_steps
    return result


def _logged(epoch_log: EpochLog, on_epoch: Callable[[EpochRecord], bool | None] | None
            ) -> Callable[[EpochRecord], bool | None]:
    """`on_epoch`, writing each record to `epoch_log` first."""
    def logged(record: EpochRecord) -> bool | None:
        epoch_log.write(record)
        return None if on_epoch is None else on_epoch(record)
    return logged


def _run(
    learner: Learner,
    train_envs: BaseVectorEnv,
    eval_envs: BaseVectorEnv,
    config: TrainConfig,
    start: float,
    on_epoch: Callable[[EpochRecord], bool | None] | None,
    on_chunk: Callable[[int], bool | None] | None = None,
) -> TrainResult:
    n_envs = config.num_envs
    algorithm, policy = learner.algorithm, learner.ppo.policy
    rollout = Rollout(step_envs(train_envs), policy.actor)
    evaluation = _evaluation(policy, eval_envs, config)
    test = ConvergenceTest.from_config(config)
    env_steps = eval_steps = 0
    epochs: list[EpochRecord] = []
    converged = stopped = False
    pbar = tqdm.tqdm(
        total=config.step_budget, unit="step", disable=not config.progress, dynamic_ncols=True
    )
    try:
        while env_steps + n_envs <= config.step_budget and not converged and not stopped:
            epoch_t0 = time.perf_counter()
            epoch_steps = 0
            losses: dict[str, list[float]] = {}
            returns: list[float] = []
            successes: list[bool] = []
            while epoch_steps < config.epoch_length:
                n = min(
                    config.collect_chunk,
                    config.epoch_length - epoch_steps,
                    config.step_budget - env_steps,
                )
                n = max(n // n_envs, 1) * n_envs  # the collector steps all envs together
                if env_steps + n > config.step_budget:
                    break
                with policy_within_training_step(policy):
                    buffer, chunk = rollout.collect(n)
                    ustats = algorithm.update(
                        buffer=buffer,
                        batch_size=learner.ppo_config.batch_size,
                        repeat=learner.ppo_config.epochs_per_update,
                    )
                env_steps += chunk.steps
                epoch_steps += chunk.steps
                pbar.update(chunk.steps)
                if on_chunk is not None and on_chunk(env_steps):
                    stopped = True
                returns.extend(chunk.returns)
                successes.extend(chunk.successes)
                for key, value in ustats.get_loss_stats_dict().items():
                    if isinstance(value, int | float):
                        losses.setdefault(key, []).append(float(value))
                if stopped:
                    break
            if epoch_steps == 0 or stopped:
                break
            train_seconds = time.perf_counter() - epoch_t0
            ev = evaluation.run(config.eval_episodes)
            eval_steps += ev.env_steps
            rates = [*(r.success_rate for r in epochs), _mean(ev.successes)]
            rewards = [*(r.mean_reward for r in epochs), _mean(ev.returns)]
            converged, reason = test.check(rates, rewards)
            record = EpochRecord(
                epoch=len(epochs) + 1,
                steps=env_steps,
                epoch_steps=epoch_steps,
                success_rate=rates[-1],
                mean_reward=rewards[-1],
                mean_length=_mean(ev.lens),
                eval_episodes=ev.episodes,
                eval_steps=ev.env_steps,
                train_episodes=len(returns),
                train_success_rate=_mean(successes, default=float("nan")),
                train_mean_reward=_mean(returns, default=float("nan")),
                steps_per_second=epoch_steps / max(train_seconds, 1e-9),
                wall_seconds=time.perf_counter() - start,
                converged=converged,
                losses={k: _mean(v) for k, v in losses.items()},
            )
            epochs.append(record)
            log.info(
                "epoch %d: steps=%d success=%.2f reward=%.1f len=%.1f sps=%.0f (%s)",
                record.epoch,
                env_steps,
                record.success_rate,
                record.mean_reward,
                record.mean_length,
                record.steps_per_second,
                reason,
            )
            pbar.set_postfix(
                epoch=record.epoch,
                success=f"{record.success_rate:.2f}",
                reward=f"{record.mean_reward:.1f}",
                sps=f"{record.steps_per_second:.0f}",
            )
            if not config.stop_on_convergence:
                converged = False
            if on_epoch is not None and on_epoch(record):
                break
    finally:
        pbar.close()
    final_converged = bool(epochs and epochs[-1].converged)
    return TrainResult(
        converged=final_converged,
        env_steps=env_steps,
        eval_env_steps=eval_steps,
        epochs=epochs,
        policy=learner.policy(greedy=config.deterministic_eval, seed=config.seed),
        wall_seconds=time.perf_counter() - start,
        learner=learner,
        config=config,
    )
