"""The learner: PPO (optionally wrapped by ICM) plus the spaces it was built for.

Kept apart from the trainer so that building, checkpointing and restoring a learner do not
depend on vector envs or collectors.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces.utils import flatdim
from tianshou.algorithm import PPO
from tianshou.algorithm.algorithm_base import OnPolicyAlgorithm

from nesyworld.learning.algorithms.icm import CuriosityWrapper, build_icm
from nesyworld.learning.algorithms.networks import MaskedActor
from nesyworld.learning.algorithms.ppo import build_ppo
from nesyworld.learning.config import ICMConfig, PPOConfig, TrainConfig
from nesyworld.learning.policy import Policy
from nesyworld.learning.training.checkpoint import Checkpoint

__all__ = ["Learner", "build_learner"]


@dataclass
class Learner:
    """PPO, its optional ICM wrapper, the configs and the env's raw spaces."""

    algorithm: OnPolicyAlgorithm
    """What the trainer updates: `ppo` itself, or the ICM wrapper around it."""
    ppo: PPO
    icm: CuriosityWrapper | None
    ppo_config: PPOConfig
    icm_config: ICMConfig | None
    observation_space: gym.Space
    action_space: gym.spaces.Discrete

    @property
    def obs_dim(self) -> int:
        return int(flatdim(self.observation_space))

    def policy(self, greedy: bool = True, seed: int | None = None) -> Policy:
        """A `Policy` handle sharing the live actor network (it sees further training)."""
        actor = self.ppo.policy.actor
        assert isinstance(actor, MaskedActor), "build_ppo's actor is a MaskedActor"
        return Policy(actor, self.observation_space, self.action_space, greedy, seed)

    def checkpoint(
        self, train: TrainConfig | None = None, env_steps: int = 0, **metadata: Any
    ) -> Checkpoint:
        """A detached snapshot (deep copies) of the networks, optimisers and configs."""
        rms = self.ppo.ret_rms
        return Checkpoint(
            ppo=self.ppo_config,
            icm=self.icm_config,
            train=train,
            observation_space=self.observation_space,
            action_space=self.action_space,
            obs_dim=self.obs_dim,
            actor_state=copy.deepcopy(self.ppo.policy.actor.state_dict()),
            critic_state=copy.deepcopy(self.ppo.critic.state_dict()),
            ppo_optim_state=copy.deepcopy(self.ppo.optim.state_dict()),
            icm_state=None if self.icm is None else copy.deepcopy(self.icm.model.state_dict()),
            icm_optim_state=None
            if self.icm is None
            else copy.deepcopy(self.icm.optim.state_dict()),
            return_stats={
                "mean": np.asarray(rms.mean).tolist(),
                "var": np.asarray(rms.var).tolist(),
                "count": int(rms.count),
            },
            env_steps=env_steps,
            metadata=dict(metadata),
        )

    def load(self, ckpt: Checkpoint) -> None:
        """Continue from `ckpt`: weights, optimiser moments and return statistics.

        The architecture must match (same obs size, action count and hidden sizes); the
        learning rates of this learner's configs replace the stored ones (so a fine-tuning run
        can use a smaller lr). ICM parts are loaded only if both sides have a matching ICM;
        otherwise the ICM (if any) starts fresh.
        """
        if ckpt.obs_dim != self.obs_dim or int(ckpt.action_space.n) != int(self.action_space.n):
            raise ValueError(
                f"checkpoint is for obs_dim={ckpt.obs_dim}, n_actions={ckpt.action_space.n}; "
                f"this env has obs_dim={self.obs_dim}, n_actions={self.action_space.n}"
            )
        for name in ("hidden_sizes", "critic_sizes"):
            saved, own = getattr(ckpt.ppo, name), getattr(self.ppo_config, name)
            if saved != own:
                what = "hidden sizes" if name == "hidden_sizes" else "critic hidden sizes"
                raise ValueError(f"checkpoint {what} {saved} differ from {own}")
        self.ppo.policy.actor.load_state_dict(ckpt.actor_state)
        self.ppo.critic.load_state_dict(ckpt.critic_state)
        if ckpt.ppo_optim_state is not None:
            self.ppo.optim.load_state_dict(
                _as_configured(ckpt.ppo_optim_state, self.ppo.optim.state_dict(),
                               self.ppo_config.lr))
        if ckpt.return_stats is not None:
            self.ppo.ret_rms.mean = np.asarray(ckpt.return_stats["mean"], dtype=np.float64)
            self.ppo.ret_rms.var = np.asarray(ckpt.return_stats["var"], dtype=np.float64)
            self.ppo.ret_rms.count = int(ckpt.return_stats["count"])
        if self.icm is not None and ckpt.icm is not None and ckpt.icm_state is not None:
            assert self.icm_config is not None
            same_shape = (
                ckpt.icm.feature_hidden_sizes == self.icm_config.feature_hidden_sizes
                and ckpt.icm.feature_dim == self.icm_config.feature_dim
                and ckpt.icm.model_hidden_sizes == self.icm_config.model_hidden_sizes
            )
            if same_shape:
                self.icm.model.load_state_dict(ckpt.icm_state)
                if ckpt.icm_optim_state is not None:
                    self.icm.optim.load_state_dict(
                        _as_configured(ckpt.icm_optim_state, self.icm.optim.state_dict(),
                                       self.icm_config.lr)
                    )


IMPLEMENTATION_KEYS = ("foreach", "fused", "capturable", "differentiable")
"""Param-group settings of a torch optimiser that choose how it computes, not what."""


def _as_configured(saved: dict[str, Any], live: dict[str, Any], lr: float) -> dict[str, Any]:
    """A copy of a saved torch optimiser state with this run's `lr` and implementation.

    Why: `Optimizer.load_state_dict` restores the saved param groups whole, which would
    silently override the fine-tuning run's configured lr, and would bring back the
    implementation the saving run used (a checkpoint made with the foreach Adam would turn
    this run's fused Adam back into it). The moments are what a checkpoint carries over.
    """
    state = copy.deepcopy(saved)
    for group, current in zip(state["param_groups"], live["param_groups"], strict=False):
        group.update({k: current[k] for k in IMPLEMENTATION_KEYS if k in current})
    for group in state["param_groups"]:  # every saved group, even one the run lacks
        group["lr"] = lr
    return state


def build_learner(
    observation_space: gym.Space,
    action_space: gym.Space,
    ppo_config: PPOConfig,
    icm_config: ICMConfig | None = None,
    deterministic_eval: bool = True,
) -> Learner:
    """A fresh learner for an env with these raw spaces (the action space must be Discrete)."""
    if not isinstance(action_space, gym.spaces.Discrete):
        raise TypeError(f"nesyworld.learning needs a Discrete action space, got {action_space}")
    obs_dim = int(flatdim(observation_space))
    ppo = build_ppo(obs_dim, action_space, ppo_config, deterministic_eval=deterministic_eval)
    icm = None if icm_config is None else build_icm(ppo, obs_dim, action_space, icm_config)
    return Learner(
        algorithm=ppo if icm is None else icm,
        ppo=ppo,
        icm=icm,
        ppo_config=ppo_config,
        icm_config=icm_config,
        observation_space=observation_space,
        action_space=action_space,
    )
