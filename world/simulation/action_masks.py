"""Action masks: which of an agent's actions the world would not refuse now.

A mask is asked for at every env step, over every grounded action, so how each action answers
is worked out once per agent (`MaskPlan.of`): an action class's batched `mask_instances` or
`mask` answers for a run of its groundings in one call, a class that never refuses is always
True, and only what has neither falls back to its `check`. `World.action_mask`
(world/simulation/world.py) keeps one plan per agent.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from nesyworld.world.actions.base import Action, GroundedAction, MaskContext

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World

__all__ = ["MaskPlan", "mask_kind"]

# an action's `mask`, or its class's `mask_instances`: one bool per argument, a list or an array
_MaskFn = Callable[..., "Sequence[bool] | np.ndarray"]
_Group = tuple[_MaskFn, slice, list[Any], bool]


def mask_kind(action: Action) -> tuple[str, bool]:
    """How a mask learns whether the action would be refused: "instances" by the class's
    `mask_instances`, together with neighbouring instances of the same class; "mask" by its
    `mask`; "always" when the class never refuses (no `check` of its own); "check" by
    `check`. A class's mask answers for its check only if it is defined where `check` is, or
    below: a subclass that changes `check` alone falls back to its `check`. Second: the mask
    depends on the MaskContext alone (`MASK_FROM_CONTEXT`, declared for that mask)."""
    mro = type(action).__mro__

    def owner(name: str) -> type:
        return next(k for k in mro if name in k.__dict__)

    check_owner, mask_owner = owner("check"), owner("mask")
    if mask_owner is not Action and issubclass(mask_owner, check_owner):
        group_owner = owner("mask_instances")
        if not action.GROUNDED and group_owner is not Action and issubclass(
                group_owner, mask_owner):
            kind, mask_owner = "instances", group_owner
        else:
            kind = "mask"
        return kind, action.MASK_FROM_CONTEXT and issubclass(
            owner("MASK_FROM_CONTEXT"), mask_owner)
    return ("always" if check_owner is Action else "check"), False


@dataclass(frozen=True)
class MaskPlan:
    """How one agent's actions are masked."""

    always: list[bool]  # True where the action's class never refuses (no `check` of its own)
    # (mask or mask_instances, the slice of the mask it fills, its args or instances, whether
    # it takes a MaskContext): one call per run of groundings or of instances of one class
    groups: tuple[_Group, ...]
    context_groups: tuple[_Group, ...]  # those whose answer depends on the context alone
    checks: tuple[tuple[int, Any, Any], ...]  # (index, check, arg): classes with only a check
    needs_ctx: bool
    # the last context, and `always` with the context groups' answers for it filled in
    memo: list[Any] = field(default_factory=lambda: [object(), None])

    @classmethod
    def of(cls, actions: Sequence[GroundedAction]) -> MaskPlan:
        """The plan for an agent offered `actions`, in their order."""
        always = [False] * len(actions)
        checks: list[tuple[int, Any, Any]] = []
        runs: list[tuple[object, _MaskFn, int, list[Any], bool]] = []
        key: object
        mask: _MaskFn
        for i, g in enumerate(actions):
            kind, from_context = mask_kind(g.action)
            if kind == "always":
                always[i] = True
                continue
            if kind == "check":
                checks.append((i, g.action.check, g.arg))
                continue
            if kind == "instances":
                # never None here: mask_kind picks a class's own mask_instances only
                key, item = type(g.action), g.action
                mask = cast(_MaskFn, type(g.action).mask_instances)
            else:
                key, mask, item = g.action, g.action.mask, g.arg
            last = runs[-1] if runs else None
            if last is not None and last[0] is key and last[2] + len(last[3]) == i:
                last[3].append(item)
            else:
                runs.append((key, mask, i, [item], from_context))
        groups: list[_Group] = []
        context_groups: list[_Group] = []
        for _, mask, start, items, from_context in runs:
            takes_ctx = "ctx" in inspect.signature(mask).parameters
            group = (mask, slice(start, start + len(items)), items, takes_ctx)
            (context_groups if from_context and takes_ctx else groups).append(group)
        return cls(always, tuple(groups), tuple(context_groups), tuple(checks),
                   any(g[3] for g in groups + context_groups))

    def evaluate(self, world: World, agent: int) -> np.ndarray:
        """The agent's mask in the world's current state."""
        ctx = MaskContext.of(world, agent) if self.needs_ctx else None
        memo = self.memo
        if memo[0] == ctx:  # most steps leave the agent's surroundings as they were
            out = memo[1].copy()
        else:
            out = self.always.copy()
            for mask, where, args, _ in self.context_groups:
                ok = mask(world, agent, args, ctx)
                out[where] = ok.tolist() if type(ok) is np.ndarray else ok
            memo[0], memo[1] = ctx, out.copy()
        for mask, where, args, takes_ctx in self.groups:
            ok = mask(world, agent, args, ctx) if takes_ctx else mask(world, agent, args)
            # one value per argument; a list slice takes an array's much faster as a list
            out[where] = ok.tolist() if type(ok) is np.ndarray else ok
        for i, check, arg in self.checks:
            out[i] = check(world, agent, arg) is None
        if len(out) != len(self.always):
            raise ValueError(self._bad_mask(world, agent, ctx))
        return np.array(out, dtype=bool)

    def _bad_mask(self, world: World, agent: int, ctx: MaskContext | None) -> str:
        """The error for a class mask that gave the wrong number of values."""
        for mask, _, args, takes_ctx in self.groups + self.context_groups:
            ok = mask(world, agent, args, ctx) if takes_ctx else mask(world, agent, args)
            if len(ok) != len(args):
                return f"{mask.__qualname__} gave {len(ok)} values for {len(args)} arguments"
        return "a mask gave the wrong number of values"
