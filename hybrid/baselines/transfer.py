"""Carrying a trained policy across a novelty that changes the observation or action space.

NovelGym's Transfer RL baseline (paper 6.3) keeps the pre-novelty weights when a novelty adds
entity types or actions and grows the network to the new spaces. What makes that safe is
knowing what every input and output *means*: here each flat observation slot gets a label such
as ``("lidar", "oak_log", 3)`` or ``("inventory", "axe")``, and each output is an action name.
Weights are then carried from old to new by label, never by position: a novelty inserts
``select_axe`` in the middle of the action list and appends ``axe`` to the types, which shifts
every later index, and a positional copy would silently wire the old policy to the wrong
inputs and outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np
import torch
from gymnasium.spaces.utils import flatdim
from torch import nn

from nesyworld.hybrid.baselines.transfer_moments import grow_moments
from nesyworld.learning import Checkpoint
from nesyworld.learning.algorithms.icm import curiosity_module
from nesyworld.learning.algorithms.networks import MaskedActor, ValueCritic
from nesyworld.world.observations import N_BEAMS
from nesyworld.world.observations.builder import ObservationConfig

if TYPE_CHECKING:
    from nesyworld.world.envs.gym_env import NesyGridEnv

Label = tuple[Hashable, ...]

TRANSFERABLE_KINDS = ("lidar", "local_view", "dict")
MOMENTS = ("unchanged_spaces", "all", "novelgym")
"""The values of `TransferConfig.moments`."""


@dataclass(frozen=True)
class SpaceNames:
    """The meaning of every network input (flat observation slot) and output (action)."""

    observation: tuple[Label, ...]
    actions: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """Plain data for checkpoint metadata (labels become lists)."""
        return {"observation": [list(label) for label in self.observation],
                "actions": list(self.actions)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SpaceNames:
        return cls(tuple(tuple(label) for label in data["observation"]),
                   tuple(data["actions"]))


@dataclass(frozen=True)
class TransferConfig:
    """How new weights start when a network grows."""

    new_weight_scale: float = 0.01
    """New inputs and outputs start with the fresh initialisation times this: small enough
    that the grown network behaves like the old one on everything it already knew, large
    enough that gradients reach the new weights. A new action's output starts on top of the
    mean of the old ones (`center_new_actions`) or as a copy (`new_actions_from`). The
    paper's baselines use 1: its placeholder inputs kept their initial weights."""

    seed: int = 0
    """Seeds the fresh initialisation the new weights are scaled from."""

    new_actions_from: str = ""
    """An old action whose output weights each new action starts from, or "" to start each
    at the mean of the old ones (`center_new_actions`).

    NovelGym pre-trains its RL agents with placeholder no-op actions that a novelty renames
    (its fire novelty maps `nop_placeholder1 -> approach_water_bucket`), so in the paper a new
    action starts as a trained no-op. "nop" reproduces that on a policy pre-trained with one
    no-op. The two starts differ: after pre-training, a no-op kept 10-200 times the
    probability of the mean logit (`python -m nesyworld.experiments.probe`,
    docs/EXPERIMENTS.md). An action the old policy did not have falls back to the mean."""

    keep_curiosity: bool = False
    """Carry a checkpoint's ICM over, grown as the policy is (new inputs at the fresh
    initialisation times `new_weight_scale`, a new action as `new_actions_from`), instead of
    starting a fresh one. NovelGym's placeholders never changed a space, so its ICM came
    through a novelty trained (its checkpoint holds the ICM with the policy), and found only
    what the novelty changed surprising; a fresh one finds every transition surprising at
    first."""

    moments: str = "unchanged_spaces"
    """Which optimiser moments come through (hybrid/baselines/transfer_moments.py):
    "unchanged_spaces", all of them where no space changed and none where one did (Adam
    restarts); "all", the policy's and, with `keep_curiosity`, the curiosity model's, grown
    to the new spaces; "novelgym", what NovelGym's checkpoint held, one optimiser: the
    curiosity model's for an agent with curiosity (the policy's Adam restarts), else the
    policy's."""

    fresh_critic: bool = False
    """Start the critic afresh at each transfer, its Adam moments with it. A diagnostic, not a
    protocol setting (NovelGym carries its critic over): the carried critic values states by
    the old world's returns, and the first advantages after a novelty are measured against
    those values."""

    def __post_init__(self) -> None:
        if self.moments not in MOMENTS:
            raise ValueError(f"TransferConfig.moments is {self.moments!r}; expected one of "
                             + ", ".join(MOMENTS))

    def kept_moments(self, curiosity: bool) -> tuple[bool, bool]:
        """Whether the policy's and the curiosity model's moments come through a change of
        the spaces, for an agent with or without `curiosity`."""
        if self.moments == "all":
            return True, curiosity
        if self.moments == "novelgym":
            return not curiosity, curiosity
        return False, False


def _kind_labels(kind: str, types: Sequence[str], space: gym.Space,
                 config: ObservationConfig) -> list[Label]:
    """Labels of one observation kind, in gymnasium's flattening order."""
    if kind == "lidar":
        lidar: list[Label] = [("lidar", t, beam) for t in types for beam in range(N_BEAMS)]
        return lidar + [("inventory", t) for t in types] + [("selected", t) for t in types]
    if kind == "local_view":
        n = config.local_view_size
        parts: dict[str, list[Label]] = {
            "view": [("view", t, r, c) for t, r, c in product(types, range(n), range(n))],
            "inventory": [("inventory", t) for t in types],
            "selected": [("selected", t) for t in types]}
        assert isinstance(space, gym.spaces.Dict)
        return [label for key in space.spaces for label in parts[key]]
    raise ValueError(f"observation kind {kind!r} has no per-type layout to transfer; use one "
                     f"of {', '.join(TRANSFERABLE_KINDS)}")


def observation_labels(types: Sequence[str], config: ObservationConfig,
                       space: gym.Space) -> tuple[Label, ...]:
    """One label per flat observation slot of a NesyGridEnv with these entity types.

    Checked against the space's flat size, so a change of the observation layout fails here
    rather than producing a mis-wired network.
    """
    if config.kind == "dict":
        assert isinstance(space, gym.spaces.Dict)
        labels = [(kind, *label) for kind, sub in space.spaces.items()
                  for label in _kind_labels(kind, types, sub, config)]
    else:
        labels = _kind_labels(config.kind, types, space, config)
    if len(labels) != flatdim(space):
        raise ValueError(f"{len(labels)} observation labels for a space of flat size "
                         f"{flatdim(space)}: the {config.kind} layout is not the one expected")
    return tuple(labels)


def space_names(env: gym.Env) -> SpaceNames:
    """The current SpaceNames of a (possibly wrapped) NesyGridEnv."""
    inner = cast("NesyGridEnv", env.unwrapped)  # Gymnasium types `unwrapped` as any Env
    labels = observation_labels(inner.world.types.names, inner.config, inner.observation_space)
    return SpaceNames(labels, tuple(inner.action_names))


def slot_map(old: Sequence[Hashable], new: Sequence[Hashable]) -> np.ndarray:
    """For each new name, the index of the same name among the old ones, or -1."""
    where = {name: i for i, name in enumerate(old)}
    return np.array([where.get(name, -1) for name in new], dtype=np.int64)


def _linears(module: nn.Module) -> list[nn.Linear]:
    return [m for m in module.modules() if isinstance(m, nn.Linear)]


def expand_network(old: nn.Module, new: nn.Module, inputs: np.ndarray,
                   outputs: np.ndarray | None, scale: float) -> None:
    """Copy `old`'s weights into `new` (same hidden sizes, other input/output sizes), in place.

    `inputs[i]` is the old input feeding new input i (-1: new), likewise `outputs` for the
    last layer (None: same outputs). Weights between old units are copied; weights touching a
    new unit keep `new`'s own initialisation times `scale`. Hidden layers are copied whole.
    """
    old_layers, new_layers = _linears(old), _linears(new)
    if len(old_layers) != len(new_layers):
        raise ValueError(f"networks differ in depth: {len(old_layers)} vs {len(new_layers)}")
    last = len(new_layers) - 1
    with torch.no_grad():
        for k, (a, b) in enumerate(zip(old_layers, new_layers, strict=True)):
            cols = inputs if k == 0 else np.arange(b.in_features)
            rows = outputs if (k == last and outputs is not None) else np.arange(b.out_features)
            if len(cols) != b.in_features or len(rows) != b.out_features:
                raise ValueError(f"layer {k}: maps of {len(rows)}x{len(cols)} for a layer of "
                                 f"{b.out_features}x{b.in_features}")
            b.weight.mul_(scale)
            b.bias.mul_(scale)
            new_r = torch.as_tensor(np.flatnonzero(rows >= 0))
            new_c = torch.as_tensor(np.flatnonzero(cols >= 0))
            old_r = torch.as_tensor(rows[rows >= 0])
            old_c = torch.as_tensor(cols[cols >= 0])
            b.weight[new_r[:, None], new_c[None, :]] = a.weight[old_r[:, None], old_c[None, :]]
            b.bias[new_r] = a.bias[old_r]


def center_new_actions(last: nn.Linear, outputs: np.ndarray) -> None:
    """Start each new action (`outputs[i]` < 0) of the actor's `last` layer at the mean of
    the old actions' logits, in every state, in place: as likely as an average old action.

    Why not at a logit of 0: a softmax ignores a common offset of the logits, and a long
    training lets the old ones drift from 0 (the policy gradient sums to zero over the
    actions, Adam's per-weight steps do not). After the paper's 4M steps of pogostick they
    stood at +30 on average in the first state (+45 for the action taken), so a new action
    starting at 0 had a probability of 1e-17 and was never sampled whatever the policy did
    next (`python -m nesyworld.experiments.probe`, docs/EXPERIMENTS.md). At the mean it
    starts unlikely where the old policy is sure, and gets its share as soon as the old
    actions it was sure of fail and their logits fall back together.
    """
    new, old = np.flatnonzero(outputs < 0), np.flatnonzero(outputs >= 0)
    if not len(new) or not len(old):
        return
    new_t, old_t = torch.as_tensor(new), torch.as_tensor(old)
    with torch.no_grad():
        last.weight[new_t] += last.weight[old_t].mean(dim=0)
        last.bias[new_t] += last.bias[old_t].mean()


def copy_action(last: nn.Linear, outputs: np.ndarray, source: int) -> None:
    """Start each new action (`outputs[i]` < 0) of the actor's `last` layer as a copy of the
    new layer's action `source` (an old one), in place: equally likely in every state."""
    new = np.flatnonzero(outputs < 0)
    if not len(new):
        return
    new_t = torch.as_tensor(new)
    with torch.no_grad():
        last.weight[new_t] = last.weight[source].clone()
        last.bias[new_t] = last.bias[source].clone()


def copy_source(config: TransferConfig, old: SpaceNames, new: SpaceNames) -> int | None:
    """The new index of the action each new action starts as a copy of
    (`config.new_actions_from`), or None when it names no action of both spaces."""
    name = config.new_actions_from
    return new.actions.index(name) if name in old.actions and name in new.actions else None


def carried_over(ckpt: Checkpoint, config: TransferConfig) -> Checkpoint:
    """`ckpt` as it comes through a novelty that changes no space: with the optimisers'
    moments `config.moments` keeps (all of them by default)."""
    if config.moments != "unchanged_spaces":
        keep_policy, keep_icm = config.kept_moments(ckpt.icm is not None)
        ckpt = dataclasses.replace(
            ckpt, ppo_optim_state=ckpt.ppo_optim_state if keep_policy else None,
            icm_optim_state=ckpt.icm_optim_state if keep_icm else None)
    return restarted_critic(ckpt, config.seed) if config.fresh_critic else ckpt


def restarted_critic(ckpt: Checkpoint, seed: int) -> Checkpoint:
    """`ckpt` with a freshly initialised critic (seeded by `seed`) and no Adam moments for
    it: torch's Adam starts the moments of a parameter its state does not list, so the
    actor's moments stay as they were."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        critic = ValueCritic(ckpt.obs_dim, ckpt.ppo.critic_sizes)
    state = ckpt.ppo_optim_state
    if state is not None:
        groups = state["param_groups"]
        if len(groups) != 1:
            raise ValueError(f"an optimiser state in {len(groups)} parameter groups; "
                             "expected one over actor then critic")
        actor_ids = groups[0]["params"][:len(list(ckpt.actor().parameters()))]
        state = {**state, "state": {pid: entry for pid, entry in state["state"].items()
                                    if pid in actor_ids}}
    return dataclasses.replace(ckpt, critic_state=critic.state_dict(), ppo_optim_state=state)


def transfer_checkpoint(ckpt: Checkpoint, old: SpaceNames, new: SpaceNames,
                        observation_space: gym.Space, action_space: gym.spaces.Discrete,
                        config: TransferConfig = TransferConfig()) -> Checkpoint:
    """`ckpt` grown (or shrunk) from the spaces named `old` to those named `new`.

    The ICM (if any) is dropped unless `config.keep_curiosity` grows it too; the optimisers'
    moments as `config.moments` says (hybrid/baselines/transfer_moments.py).
    """
    if old == new:
        return carried_over(ckpt, config)
    keep_policy, keep_icm = config.kept_moments(ckpt.icm is not None)
    inputs, outputs = slot_map(old.observation, new.observation), slot_map(old.actions,
                                                                            new.actions)
    if not (inputs >= 0).any():
        raise ValueError("no observation slot of the old policy exists in the new space: the "
                         "two envs do not share an observation layout")
    hidden, critic_hidden = ckpt.ppo.hidden_sizes, ckpt.ppo.critic_sizes
    n_obs, n_act = len(new.observation), len(new.actions)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        actor, critic = MaskedActor(n_obs, n_act, hidden), ValueCritic(n_obs, critic_hidden)
    old_critic = ckpt.critic()
    source = copy_source(config, old, new)

    def grow_policy(before: nn.Module, after: nn.Module, scale: float, center: bool) -> None:
        """Actor then critic, as PPO's optimiser holds them (`nn.ModuleList` of the two)."""
        part = nn.Module.get_submodule
        expand_network(part(before, "0.net"), part(after, "0.net"), inputs, outputs, scale)
        last = _linears(part(after, "0.net"))[-1]
        if source is not None:
            copy_action(last, outputs, source)
        elif center:
            center_new_actions(last, outputs)
        expand_network(part(before, "1.net"), part(after, "1.net"), inputs, None, scale)

    before, after = nn.ModuleList([ckpt.actor(), old_critic]), nn.ModuleList([actor, critic])
    grow_policy(before, after, config.new_weight_scale, True)
    ppo_optim_state = None
    if keep_policy and ckpt.ppo_optim_state is not None:
        ppo_optim_state = grow_moments(ckpt.ppo_optim_state, before, after,
                                       lambda b, a: grow_policy(b, a, 0.0, False))
    icm_state = icm_optim_state = None
    if config.keep_curiosity and ckpt.icm is not None and ckpt.icm_state is not None:
        icm_state, icm_optim_state = grown_curiosity(ckpt, old, new, inputs, outputs, config,
                                                     keep_icm)
    added = {"observation": int((inputs < 0).sum()), "actions": int((outputs < 0).sum())}
    grown = dataclasses.replace(
        ckpt, observation_space=observation_space, action_space=action_space, obs_dim=n_obs,
        actor_state=actor.state_dict(), critic_state=critic.state_dict(),
        ppo_optim_state=ppo_optim_state, icm_state=icm_state, icm_optim_state=icm_optim_state,
        metadata={**ckpt.metadata, "names": new.as_dict(),
                  "transfers": [*ckpt.metadata.get("transfers", []), added]})
    return restarted_critic(grown, config.seed) if config.fresh_critic else grown


def grown_curiosity(ckpt: Checkpoint, old: SpaceNames, new: SpaceNames, inputs: np.ndarray,
                    outputs: np.ndarray, config: TransferConfig, moments: bool = False
                    ) -> tuple[dict[str, torch.Tensor], dict[str, Any] | None]:
    """`ckpt`'s ICM weights grown to the new spaces, as `transfer_checkpoint` grows the
    policy: the feature net's inputs by `inputs`, the forward model's one-hot action inputs
    (after the features) and the inverse model's action outputs by `outputs`; with
    `moments`, its optimiser's state grown the same way (None when it has none)."""
    assert ckpt.icm is not None and ckpt.icm_state is not None
    n_obs, n_act = len(new.observation), len(new.actions)
    with torch.random.fork_rng(devices=[]):  # the caller's random stream stays untouched
        torch.manual_seed(config.seed)
        grown = curiosity_module(n_obs, n_act, ckpt.icm)
        before = curiosity_module(ckpt.obs_dim, len(old.actions), ckpt.icm)
    before.load_state_dict(ckpt.icm_state)
    features = ckpt.icm.feature_dim
    action_columns = np.concatenate([np.arange(features),
                                     np.where(outputs >= 0, features + outputs, -1)])
    source = copy_source(config, old, new)

    def grow(old_icm: nn.Module, new_icm: nn.Module, scale: float) -> None:
        def parts(name: str) -> tuple[nn.Module, nn.Module]:
            return old_icm.get_submodule(name), new_icm.get_submodule(name)

        expand_network(*parts("feature_net"), inputs, None, scale)
        expand_network(*parts("forward_model"), action_columns, None, scale)
        expand_network(*parts("inverse_model"), np.arange(2 * features), outputs, scale)
        if source is not None:
            added = torch.as_tensor(np.flatnonzero(outputs < 0))
            with torch.no_grad():
                first = _linears(new_icm.get_submodule("forward_model"))[0]
                first.weight[:, features + added] = first.weight[:, [features + source]]
            copy_action(_linears(new_icm.get_submodule("inverse_model"))[-1], outputs, source)

    grow(before, grown, config.new_weight_scale)
    optim_state = None
    if moments and ckpt.icm_optim_state is not None:
        optim_state = grow_moments(ckpt.icm_optim_state, before, grown,
                                   lambda b, a: grow(b, a, 0.0))
    return {k: v.detach().clone() for k, v in grown.state_dict().items()}, optim_state
