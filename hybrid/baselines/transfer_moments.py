"""Carrying an Adam optimiser's state across a novelty that grows the networks.

A policy carried over a novelty (hybrid/baselines/transfer.py) keeps its weights; whether it
also keeps its optimiser's moments changes its first updates after the novelty. A fresh Adam
moves every weight by about the learning rate on its first steps, whatever the gradient's
size; one that kept its moments moves each weight as its history of gradients allows.
NovelGym's checkpoint holds one optimiser beside the weights, and its novelty runs load it:
the policy's (PPO's), or, for an agent with curiosity, the curiosity model's (tianshou's
ICMPolicy calls that one `optim`), so its PPO+ICM agent restarts the policy's Adam.

The moments are grown as the weights are: the function that grew the weights lays each
moment into the new shape, with 0 where a weight is new (a placeholder input that read 0 in
pre-training never had a gradient) and the source action's moments where a new action starts
as a copy of it. The step count comes through as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

__all__ = ["grow_moments"]

Grow = Callable[[nn.Module, nn.Module], None]
"""Grows an old module's values into a new module's, in place (the weights' growth)."""


def grow_moments(state: dict[str, Any], old: nn.Module, new: nn.Module, grow: Grow
                 ) -> dict[str, Any]:
    """`state`, a torch Adam state dict over `old.parameters()` (in that order, one param
    group), made one over `new.parameters()`: each per-parameter tensor laid into a zeroed
    copy of `new` by `grow`, and each scalar (the step count) carried; a parameter that had
    no state yet, and one `grow` makes new, gets the step of the others.

    Raises ValueError when `state` is not over `old`'s parameters."""
    groups = state.get("param_groups", [])
    old_named = list(old.named_parameters())
    if len(groups) != 1 or len(groups[0]["params"]) != len(old_named):
        raise ValueError(f"an optimiser state of {sum(len(g['params']) for g in groups)} "
                         f"parameters in {len(groups)} groups for a network of "
                         f"{len(old_named)} parameters in one")
    per_param = state["state"]
    entries = [per_param.get(pid, {}) for pid in groups[0]["params"]]
    for (name, param), entry in zip(old_named, entries, strict=True):
        for key, value in entry.items():
            if torch.is_tensor(value) and value.dim() and value.shape != param.shape:
                raise ValueError(f"optimiser state '{key}' of {name} has shape "
                                 f"{tuple(value.shape)}, the parameter {tuple(param.shape)}")
    moment_keys = sorted({key for entry in entries for key, value in entry.items()
                          if torch.is_tensor(value) and value.dim()})
    grown: dict[str, dict[str, torch.Tensor]] = {}
    for key in moment_keys:
        source, target = copy.deepcopy(old), copy.deepcopy(new)
        with torch.no_grad():
            for (_, param), entry in zip(source.named_parameters(), entries, strict=True):
                if key in entry:
                    param.copy_(entry[key])
                else:
                    param.zero_()
            for param in target.parameters():
                param.zero_()
            grow(source, target)
        grown[key] = {name: param.detach().clone() for name, param in target.named_parameters()}
    scalars: dict[str, Any] = next((entry for entry in entries if entry), {})
    carried = {key: value for key, value in scalars.items() if key not in moment_keys}
    names = [name for name, _ in new.named_parameters()]
    new_state = {  # empty for an optimiser that never stepped (no moments)
        index: {**{key: (value.clone() if torch.is_tensor(value) else value)
                   for key, value in carried.items()},
                **{key: grown[key][name] for key in moment_keys}}
        for index, name in enumerate(names)} if moment_keys else {}
    return {"state": new_state, "param_groups": [{**groups[0], "params": list(range(len(names)))}]}
