"""torch's Adam without the import of torch's compiler: the same update, bit for bit.

Why: torch.optim guards an optimizer's bookkeeping (`add_param_group`, `zero_grad`,
`state_dict`, `load_state_dict`) and `Adam.step` for torch.compile, and the first call of
any of them imports `torch._dynamo` (sympy and the FX tracer with it): as long as importing
torch itself, about 1.5-2.5 s on our 2-core machines, paid by every process that trains (the
README's main job, every sweep worker, every test worker) for a compiler nesyworld never
runs. The guards only change anything while torch.compile traces; in eager mode each runs the
function it wraps.

How: `EagerAdam` is `torch.optim.Adam` whose guarded methods call the guarded function
directly (the `__wrapped__` that `functools.wraps` records), and whose `step` sets the grad
mode as torch's guard does, without its compiler graph breaks. When this torch does not have
that shape (a release that changes the guards), `EAGER_SUPPORTED` is False and `eager_adam`
gives torch's own Adam: slower to start, same results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.optim import Adam, Optimizer

GUARDED = ("add_param_group", "zero_grad", "state_dict", "load_state_dict")
"""Optimizer methods torch wraps in its lazily-imported compiler guard."""


def _unguarded(cls: type, name: str) -> Callable[..., Any] | None:
    function = cls.__dict__.get(name)
    return getattr(function, "__wrapped__", None)


EAGER_SUPPORTED = (all(_unguarded(Optimizer, name) is not None for name in GUARDED)
                   and _unguarded(Adam, "step") is not None)
"""Whether this torch's Adam has the guards `EagerAdam` steps around."""


class EagerAdam(Adam):
    """`torch.optim.Adam`, eager only; see the module docstring."""

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        _unguarded(Optimizer, "add_param_group")(self, param_group)  # type: ignore[misc]

    def zero_grad(self, set_to_none: bool = True) -> None:
        _unguarded(Optimizer, "zero_grad")(self, set_to_none)  # type: ignore[misc]

    def state_dict(self) -> dict[str, Any]:
        return _unguarded(Optimizer, "state_dict")(self)  # type: ignore[misc]

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _unguarded(Optimizer, "load_state_dict")(self, state_dict)  # type: ignore[misc]

    def step(self, closure: Callable[[], float] | None = None) -> Any:
        previous = torch.is_grad_enabled()
        try:
            torch.set_grad_enabled(self.defaults["differentiable"])
            return _unguarded(Adam, "step")(self, closure)  # type: ignore[misc]
        finally:
            torch.set_grad_enabled(previous)


def eager_adam_class() -> type[Adam]:
    """`EagerAdam` where this torch supports it, else torch's Adam."""
    return EagerAdam if EAGER_SUPPORTED else Adam
