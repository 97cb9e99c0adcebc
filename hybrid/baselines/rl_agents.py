"""The NovelGym paper's two RL baselines as nesyworld agents (paper 6.3, appendix D).

`RLAgent` learns the whole task with PPO (optionally +ICM) on envs whose reward is shaped by
plan subgoals (`PlanShapedReward`, D.1). `TransferRLAgent` starts from a trained policy and
keeps learning after a novelty with the task reward alone (D.2); when the novelty adds entity
types or actions it grows the network on the fly, carrying every weight over by name
(`nesyworld.hybrid.baselines.transfer`).

Both satisfy the `Agent` protocol. Acting (`act`) runs the current policy on the env the agent
was given; learning (`learn`) runs `nesyworld.learning.train` on fresh copies of that env's
world, so training never disturbs an episode in progress and can use vector envs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
from gymnasium.spaces.utils import flatdim

from nesyworld.hybrid.baselines.batched_episodes import evaluate_policy, skip_episodes, steady_world
from nesyworld.hybrid.baselines.legal_actions import (
    CHECKPOINT_KEY,
    ForbidActions,
    check_masking,
    offered,
)
from nesyworld.hybrid.baselines.rl_config import (
    DEFAULT_RL_CONFIG,
    DEFAULT_SHAPING,
    DEFAULT_TRANSFER,
    TRANSFER_RL_CONFIG,
    RLConfig,
)
from nesyworld.hybrid.baselines.shaping import PlanShapedReward, ShapingConfig
from nesyworld.hybrid.baselines.transfer import (
    SpaceNames,
    TransferConfig,
    carried_over,
    space_names,
    transfer_checkpoint,
)
from nesyworld.hybrid.baselines.vector_envs import VectorTrainingEnvFactory
from nesyworld.hybrid.execution.episode import EpisodeResult, run_episode
from nesyworld.hybrid.recovery.env import SpecRef
from nesyworld.learning import (
    Checkpoint,
    EpochRecord,
    load_checkpoint,
    mask_from_info,
    save_checkpoint,
    train,
)
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.learning.training.checkpoint import CheckpointError
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner
from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.observations.builder import ObservationConfig
from nesyworld.world.spec.model import WorldSpec


@contextlib.contextmanager
def _torch_threads(n: int | None) -> Iterator[None]:
    """Run with `n` torch threads (None: as is). Why: acting is one tiny forward pass per step,
    and with torch's default of a thread per core it ran 20x slower (0.13 s vs 2.7 s for a
    400-step episode) on a 2-core machine with other work running."""
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def task_env(spec: SpecRef | WorldSpec, observation: ObservationConfig) -> gym.Env:
    """A fresh NesyGridEnv of `spec`; a SpecRef is rebuilt here because a WorldSpec does not
    pickle and subprocess vector envs pickle their factories."""
    return NesyGridEnv(spec.build() if isinstance(spec, SpecRef) else spec,
                       observation=observation)


@dataclass(frozen=True)
class TrainingEnvFactory:
    """Training envs for `train`: `make`'s env with plan shaping (unless None) and the
    forbidden actions masked (with `action_masks=False`, nothing else is). Picklable when
    `make` is; the copies made in one process share one plan cache, since initial states
    repeat."""

    make: Callable[[], gym.Env]
    shaping: ShapingConfig | None
    kb: KnowledgeBase | None
    forbidden: tuple[str, ...]
    cache: PlanCache = field(default_factory=PlanCache, compare=False)
    action_masks: bool = True
    """False: every action but the forbidden ones reported legal (`RLConfig.action_masks`)."""

    def __call__(self) -> gym.Env:
        env = self.make()
        if self.shaping is not None:
            planner = Planner(self.shaping.planner, timeout=self.shaping.planner_timeout,
                              cache=self.cache)
            env = PlanShapedReward(env, self.kb, self.shaping, planner)
        return ForbidActions(env, self.forbidden, self.action_masks)


def _checkpoint_names(ckpt: Checkpoint, where: str = "checkpoint") -> SpaceNames:
    """The observation slots' and actions' names an RL agent saved with its weights; a
    missing or malformed list is a CheckpointError naming `where` (the file)."""
    names = ckpt.metadata.get("names")
    if names is None:
        raise CheckpointError(f"{where}: this checkpoint does not name its observation slots "
                              "and actions; expected one saved with RLAgent.save")
    n_actions = int(ckpt.action_space.n)
    ok = (isinstance(names, dict) and isinstance(names.get("observation"), list)
          and isinstance(names.get("actions"), list) and len(names["actions"]) == n_actions
          and all(isinstance(a, str) for a in names["actions"])
          and all(isinstance(label, (list, tuple)) and all(isinstance(x, (str, int))
                                                             for x in label)
                  for label in names["observation"]))
    if not ok:
        raise CheckpointError(f"{where}: metadata.names is malformed; expected observation "
                              f"labels and {n_actions} action names")
    return SpaceNames.from_dict(names)


class RLAgent:
    """PPO on the whole task with plan-shaped rewards: the paper's pre-novelty RL baseline.

    `shaping=None` trains on the task reward alone. `train_env`, when given, makes the
    training envs instead of fresh copies of `env`'s world (shaping and the forbidden actions
    are still applied). The agent acts only in spaces named like the ones it was trained in;
    `TransferRLAgent` is the one that adapts.
    """

    name = "rl"

    def __init__(self, env: gym.Env, kb: KnowledgeBase | None = None,
                 config: RLConfig = DEFAULT_RL_CONFIG,
                 shaping: ShapingConfig | None = DEFAULT_SHAPING,
                 train_env: Callable[[], gym.Env] | None = None,
                 checkpoint: Checkpoint | None = None) -> None:
        self.env = env
        self.config = config
        self.shaping = shaping
        self.kb = kb
        self.train_env = train_env
        self.records: list[EpochRecord] = []
        self._cache = PlanCache()
        self._spaces: tuple[gym.Space, gym.Space] | None = None
        if checkpoint is None:
            self.names = space_names(env)
            checkpoint = self._fresh_checkpoint()
        else:
            self.names = _checkpoint_names(checkpoint)
            check_masking(checkpoint, config.action_masks)
        self._use(checkpoint)
        self._sync()

    @property
    def _world_env(self) -> NesyGridEnv:
        """The NesyGridEnv under the acting env's wrappers (Gymnasium types `unwrapped` as any
        Env): the world whose copies the agent trains on."""
        return cast(NesyGridEnv, self.env.unwrapped)

    # --- the protocol ------------------------------------------------------------------------
    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        self._sync()

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        self._sync()
        names = self.names.actions
        mask = offered(mask_from_info(info, len(names)), names, self.config.forbidden,
                       self.config.action_masks)
        with _torch_threads(self.config.train.torch_threads):
            return self.policy.act(observation, mask)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: dict[str, Any]) -> None:
        return None  # learning happens in `learn`, on envs of its own

    def learn(self, steps: int | None = None) -> dict[str, float]:
        """Train from the current weights for `steps` env steps (default: the config's budget)
        and act with the result from now on. Returns the run's statistics."""
        self._sync()
        cfg = self.config.train if steps is None else dataclasses.replace(
            self.config.train, step_budget=int(steps))
        vector = self.vector_env_factory()
        if vector is not None:  # the acting env's own world: its names, already synced
            result = train(config=cfg, ppo=self.config.ppo, icm=self.config.icm,
                           init=self.checkpoint, vector_env_factory=vector)
        else:
            factory = self.env_factory()
            probe = factory()  # the training world may name its slots otherwise than this
            target = space_names(probe)
            spaces = (probe.unwrapped.observation_space, probe.unwrapped.action_space)
            probe.close()
            if target != self.names:
                self.adapt(target, spaces)
            result = train(factory, cfg, self.config.ppo, self.config.icm,
                           init=self.checkpoint)
        self.records.extend(result.epochs)
        self._use(result.checkpoint(**{**self.checkpoint.metadata,
                                       "names": self.names.as_dict()}))
        self._spaces = None  # check the acting env's names again at the next step
        last = result.epochs[-1] if result.epochs else None
        train_seconds = sum(r.epoch_steps / r.steps_per_second for r in result.epochs
                            if r.steps_per_second > 0)
        return {
            "env_steps": float(result.env_steps),
            "evaluation_env_steps": float(result.eval_env_steps),
            "total_env_steps": float(self.checkpoint.env_steps),
            "epochs": float(len(result.epochs)),
            "converged": float(result.converged),
            "success_rate": last.success_rate if last else float("nan"),
            "mean_reward": last.mean_reward if last else float("nan"),
            "train_success_rate": last.train_success_rate if last else float("nan"),
            "steps_per_second": result.env_steps / train_seconds if train_seconds else 0.0,
            "wall_seconds": result.wall_seconds,
        }

    def evaluate(self, seeds: Sequence[int], max_episode_steps: int | None = None
                 ) -> list[EpisodeResult]:
        """The episodes `run_episode(self.env, self, seed)` would play for these seeds in turn,
        each cut at `max_episode_steps` (None: the world's own limit). Why: played one by one
        they were most of the RL baselines' protocol time; here they run all at once on the
        batched core (`batched_episodes`) when it can run the world and the env's schedule keeps
        it for every episode, else one by one. The acting env is first reset with `seeds[0]`,
        as `run_episode` would: a novelty due then arrives, `_sync` adapts to it, and the
        copies are built from the world the episodes really play in."""
        seeds = [int(s) for s in seeds]
        if seeds and self.batched_core() and steady_world(self.env, len(seeds)):
            self.env.reset(seed=seeds[0])
            if self.batched_core():  # still, in the world the reset brought in
                self._sync()  # adapt to that world (or refuse it) as `act` would
                skip_episodes(self.env, len(seeds) - 1)  # its schedule counts every episode
                rng = np.random.default_rng([self.config.train.seed, seeds[0]])
                with _torch_threads(self.config.train.torch_threads):
                    return evaluate_policy(self.env, self.policy, seeds, self.config.forbidden,
                                           self.config.greedy, rng, max_episode_steps,
                                           self.config.action_masks)
            skip_episodes(self.env, -1)  # take the probe reset back: run_episode resets again
        env = self.env if max_episode_steps is None else gym.wrappers.TimeLimit(
            self.env, max_episode_steps)
        return [run_episode(env, self, seed) for seed in seeds]

    def save(self, path: str | Path, **metadata: Any) -> None:
        """One checkpoint file: weights, optimiser, configs and the names of the spaces, and
        any `metadata` the caller keeps with them (JSON values)."""
        save_checkpoint(path, self.checkpoint, agent=self.name, names=self.names.as_dict(),
                        **metadata, **{CHECKPOINT_KEY: self.config.action_masks})

    def load(self, path: str | Path) -> None:
        ckpt = load_checkpoint(path)  # every problem: one CheckpointError naming the file
        self.names = _checkpoint_names(ckpt, str(path))
        check_masking(ckpt, self.config.action_masks, str(path))
        self._use(ckpt)
        self._spaces = None
        self._sync()

    # --- training envs and weights -----------------------------------------------------------
    def env_factory(self) -> TrainingEnvFactory:
        """What `learn` trains on: `train_env`'s envs, or fresh envs of the acting env's
        current world (a mid-episode novelty is then there from the start)."""
        inner = self._world_env
        if self.shaping is not None and self.kb is None:  # derived once, not once per env
            self.kb = KnowledgeBase.from_world(inner.world)
        make = self.train_env or functools.partial(
            task_env, SpecRef.of(inner.world.spec), inner.config)
        return TrainingEnvFactory(make, self.shaping, self.kb, self.config.forbidden,
                                  self._cache, self.config.action_masks)

    def batched_core(self) -> bool:
        """Whether copies of the acting env's current world can run on the batched core (see
        `RLConfig.vector`): LiDAR observations without noise, and no custom `train_env`."""
        inner = self._world_env
        config: ObservationConfig = inner.config
        if not self.config.vector or self.train_env is not None or config.kind != "lidar":
            return False
        spec = inner.world.spec
        noise = config.noise if config.noise is not None else spec.observation_noise
        return noise <= 0  # the batched LiDAR is exact: noise needs NesyGridEnv copies

    def vector_env_factory(self) -> VectorTrainingEnvFactory | None:
        """What `learn` trains on when it can use the batched core (see `RLConfig.vector`):
        copies of the acting env's current world in one vector env; None when it cannot."""
        if not self.batched_core():
            return None
        inner = self._world_env
        if self.shaping is not None and self.kb is None:
            self.kb = KnowledgeBase.from_world(inner.world)
        return VectorTrainingEnvFactory(inner.world.spec,
                                        inner.config,
                                        self.shaping, self.kb, self.config.forbidden,
                                        self._cache, self.config.action_masks)

    def _fresh_checkpoint(self) -> Checkpoint:
        """Untrained networks, built directly rather than through `build_learner`: tianshou
        JIT-compiles its algorithm on construction (seconds), which acting never needs."""
        inner = self.env.unwrapped
        action_space = inner.action_space
        assert isinstance(action_space, gym.spaces.Discrete), "PPO here takes discrete actions"
        obs_dim, n_actions = flatdim(inner.observation_space), int(action_space.n)
        ppo = self.config.ppo
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.config.train.seed)
            actor = MaskedActor(obs_dim, n_actions, ppo.hidden_sizes)
            critic = ValueCritic(obs_dim, ppo.critic_sizes)
        return Checkpoint(ppo=self.config.ppo, icm=self.config.icm, train=self.config.train,
                          observation_space=inner.observation_space,
                          action_space=action_space, obs_dim=obs_dim,
                          actor_state=actor.state_dict(), critic_state=critic.state_dict(),
                          metadata={"names": self.names.as_dict(),
                                    CHECKPOINT_KEY: self.config.action_masks})

    def _use(self, ckpt: Checkpoint) -> None:
        saved, own = ckpt.ppo, self.config.ppo
        if (saved.hidden_sizes, saved.critic_hidden_sizes) != (own.hidden_sizes,
                                                               own.critic_hidden_sizes):
            ppo = dataclasses.replace(own, hidden_sizes=saved.hidden_sizes,  # the weights'
                                      critic_hidden_sizes=saved.critic_hidden_sizes)  # shapes
            self.config = dataclasses.replace(self.config, ppo=ppo)
        self.checkpoint = ckpt
        self.policy = ckpt.policy(greedy=self.config.greedy, seed=self.config.train.seed)

    def _current_spaces(self) -> tuple[gym.Space, gym.Space]:
        inner = self.env.unwrapped
        return inner.observation_space, inner.action_space

    def _sync(self) -> None:
        """Notice that the env's spaces were rebuilt (a novelty arrived) and adapt. Cheap on
        every step: names are compared only when the env made new space objects."""
        spaces = self._current_spaces()
        if self._spaces is not None and all(
                a is b for a, b in zip(spaces, self._spaces, strict=True)):
            return
        current = space_names(self.env)
        if current != self.names:
            self.adapt(current, spaces)
        self._spaces = spaces

    def adapt(self, current: SpaceNames, spaces: tuple[gym.Space, gym.Space]) -> None:
        """The env's spaces now mean something else; this agent cannot follow."""
        raise ValueError(f"{self.name}: the env's observation or actions changed (a novelty?); "
                         "a policy trained on the old ones cannot act here. Use "
                         "TransferRLAgent to carry it over.")


class TransferRLAgent(RLAgent):
    """A trained policy carried into a changed world: the paper's Transfer RL baseline.

    `source` is a trained RLAgent, a Checkpoint saved by one, or its file. Whenever the env's
    spaces change (now, or mid-episode when a novelty arrives) the network grows to them by
    name, so the old actions keep the ratios of their probabilities on everything the old
    policy knew, and each new action starts as `transfer` says: by default as likely as an
    average old action, in the paper's protocol as the trained no-op (PAPER_TRANSFER; see
    `nesyworld.hybrid.baselines.transfer`). `learn` then fine-tunes on the task reward alone (D.2).
    """

    name = "transfer_rl"

    def __init__(self, env: gym.Env, source: RLAgent | Checkpoint | str | Path,
                 kb: KnowledgeBase | None = None, config: RLConfig = TRANSFER_RL_CONFIG,
                 shaping: ShapingConfig | None = None,
                 transfer: TransferConfig = DEFAULT_TRANSFER,
                 train_env: Callable[[], gym.Env] | None = None) -> None:
        if isinstance(source, RLAgent):
            ckpt = source.checkpoint
        else:
            ckpt = source if isinstance(source, Checkpoint) else load_checkpoint(source)
        ckpt = carried_over(ckpt, transfer)  # the moments a transfer keeps, spaces changed or not
        self.transfer = transfer
        self.expansions: list[dict[str, Any]] = []  # what each adaptation added, and when
        super().__init__(env, kb, config, shaping, train_env, checkpoint=ckpt)

    def adapt(self, current: SpaceNames, spaces: tuple[gym.Space, gym.Space]) -> None:
        """Grow (or shrink) the network to the spaces named `current`, weights kept by name."""
        old = self.names
        action_space = spaces[1]
        assert isinstance(action_space, gym.spaces.Discrete), "PPO here takes discrete actions"
        ckpt = transfer_checkpoint(self.checkpoint, old, current, spaces[0], action_space,
                                   self.transfer)
        state = getattr(getattr(self.env.unwrapped, "world", None), "state", None)
        self.expansions.append({
            "step": int(state.step) if state is not None else -1,
            "new_types": sorted(_words(current.observation) - _words(old.observation)),
            "new_actions": [a for a in current.actions if a not in old.actions],
        })
        self.names = current
        self._use(ckpt)


def _words(labels: Sequence[tuple[Any, ...]]) -> set[str]:
    """Every name used in some label (kinds and entity types)."""
    return {part for label in labels for part in label if isinstance(part, str)}

