"""The training rows the benchmarks measure (training.py) and bound (roofline.py): configs,
envs and the speed each aims at, in one place so that the speed and the FLOP ceiling of a
row are always of the same settings."""

from __future__ import annotations

from dataclasses import dataclass, replace

from nesyworld.experiments.benchmarks.minimal_ppo import MinimalPPO
from nesyworld.hybrid.agents.planning_agent import PlanningAgent, PlanningConfig
from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.recovery.batched_env import recovery_vector_env_factory
from nesyworld.hybrid.recovery.config import RecoveryConfig, batched_train_config
from nesyworld.hybrid.recovery.env import recovery_env_factory
from nesyworld.learning import (
    ICMConfig,
    PPOConfig,
    TrainConfig,
    TrainResult,
    VectorEnvFactory,
    train,
)
from nesyworld.learning.training.envs import EnvFactory
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world import World
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.novelty.transforms import apply_novelties

__all__ = ["SPEC", "TARGETS", "BenchmarkCase", "axe_failure", "ppo_settings", "ppo_train_config",
           "recovery_setting"]

SPEC = "pogostick"
TARGETS = {"ppo": 20_000.0, "ppo+icm": 15_000.0, "recovery": 10_000.0}
"""The issue's targets, training env steps/s: PPO on 64 copies, PPO+ICM, and recovery
training (PPO+ICM on 2 envs, 500-step chunks, the recovery's minibatch x 8 passes)."""


@dataclass(frozen=True)
class BenchmarkCase:
    """One row of the training benchmark: its configs and envs, and the speed it aims at
    (env steps/s)."""

    name: str
    train: TrainConfig
    ppo: PPOConfig
    icm: ICMConfig | None
    target: float
    env_factory: EnvFactory | None = None
    vector_env_factory: VectorEnvFactory | None = None

    def run(self) -> TrainResult:
        return train(self.env_factory, self.train, self.ppo, self.icm,
                     vector_env_factory=self.vector_env_factory)

    @property
    def reference(self) -> MinimalPPO:
        """The minimal PPO with these copies, chunk, minibatch and passes (on pogostick)."""
        envs = self.train.num_envs
        return MinimalPPO(envs=envs, rollout=max(1, self.train.collect_chunk // envs),
                          passes=self.ppo.epochs_per_update, minibatch=self.ppo.batch_size)


def ppo_train_config(steps: int, num_envs: int, chunk: int, threads: int = 1) -> TrainConfig:
    """The PPO rows' routine: `steps` of training in `chunk`-step chunks, no early stop, on
    `threads` torch threads."""
    return TrainConfig(step_budget=steps, epoch_length=max(chunk, steps // 2),
                       collect_chunk=chunk, num_envs=num_envs, progress=False,
                       eval_episodes=2, max_episode_steps=300, stop_on_convergence=False,
                       torch_threads=threads)


def ppo_settings(steps: int, num_envs: int, chunk: int, minibatch: int = 2048,
                 passes: int = 4, threads: int = 1) -> list[BenchmarkCase]:
    """PPO and PPO+ICM at `minibatch` x `passes`, and PPO at the default PPOConfig, on
    `num_envs` NesyVectorEnv copies of the pogostick task, on `threads` torch threads."""
    config, fast = ppo_train_config(steps, num_envs, chunk, threads), \
        PPOConfig(batch_size=minibatch, epochs_per_update=passes)

    def envs(n: int) -> NesyVectorEnv:
        return NesyVectorEnv(n, SPEC)

    where = f"{num_envs} copies, chunk {chunk}"
    return [BenchmarkCase(f"PPO training, {where}, minibatch {minibatch} x{passes}", config, fast,
                    None, TARGETS["ppo"], vector_env_factory=envs),
            BenchmarkCase(f"PPO+ICM training, {where}, minibatch {minibatch} x{passes}", config,
                    fast, ICMConfig(), TARGETS["ppo+icm"], vector_env_factory=envs),
            BenchmarkCase(f"PPO training, {where}, default PPOConfig (minibatch 64 x8)", config,
                    PPOConfig(), None, TARGETS["ppo"], vector_env_factory=envs)]


def axe_failure(kb: KnowledgeBase) -> tuple[World, OperatorFailure]:
    """The planning agent under the Axe novelty, run until an operator fails."""
    env = NesyGridEnv(apply_novelties(SPEC, ["axe"]))
    agent = PlanningAgent(env, kb, PlanningConfig())
    obs, info = env.reset(seed=0)
    agent.reset(obs, info)
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        agent.observe(obs, float(reward), terminated, truncated, info)
        if agent.failures or terminated or truncated:
            break
    if not agent.failures:
        raise RuntimeError("the Axe novelty broke no operator on this map")
    return agent.env.unwrapped.world, agent.failures[0]


def recovery_setting(world: World, failure: OperatorFailure, kb: KnowledgeBase,
                     steps: int | None = None, minibatch: int | None = None,
                     copies: int | None = None) -> BenchmarkCase:
    """PPO+ICM on `failure`'s recovery env with the recovery's own settings (RecoveryConfig),
    for `steps` env steps (None: the recovery's own budget), at `minibatch` if given, on the
    envs recovery training uses: `copies` (None: `RecoveryConfig.batched_copies`) copies of
    the batched recovery env where the failure's world runs on the batched core, else (or
    with `copies` 0) `RecoveryConfig.train.num_envs` RecoveryEnvs."""
    rc = RecoveryConfig()
    if minibatch is not None:
        rc = replace(rc, ppo=replace(rc.ppo, batch_size=minibatch))
    assert failure.snapshot is not None  # an operator's failure in a run keeps its state
    config = replace(rc.train, step_budget=rc.train.step_budget if steps is None else steps,
                     stop_on_convergence=False)
    copies = rc.batched_copies if copies is None else copies
    batched = recovery_vector_env_factory(world.spec, failure.snapshot,
                                          failure, kb, rc.env) if copies else None
    if batched is not None:
        config = batched_train_config(config, copies)
    settings = (f"chunk {config.collect_chunk}, minibatch {rc.ppo.batch_size} "
                f"x{rc.ppo.epochs_per_update}")
    if batched is not None:
        name = (f"recovery training, PPO+ICM (Axe failure; {copies} copies on the batched "
                f"core, {settings})")
        return BenchmarkCase(name, config, rc.ppo, rc.icm, TARGETS["recovery"],
                             vector_env_factory=batched)
    factory = recovery_env_factory(world.spec, failure.snapshot, failure, kb, rc.env)
    name = f"recovery training, PPO+ICM (Axe failure; {config.num_envs} RecoveryEnvs, {settings})"
    return BenchmarkCase(name, config, rc.ppo, rc.icm, TARGETS["recovery"], env_factory=factory)
