"""The lifelong protocol: agents in a world that never resets, reward rate per window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.experiments.lifelong.run import load_lifelong, run_lifelong

__getattr__, __all__ = lazy_exports(__name__, {
    "run": ["load_lifelong", "run_lifelong"],
})
