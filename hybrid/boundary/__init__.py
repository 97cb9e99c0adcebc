"""The environment boundary: what an agent may learn of an environment (interface.py), and
nesyworld's own world behind it (world_adapter.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.boundary.interface import Environment, Host, OracleRefused, Outcome
    from nesyworld.hybrid.boundary.world_adapter import CopyRecipe, WorldAdapter

__getattr__, __all__ = lazy_exports(__name__, {
    "interface": ["Environment", "Host", "OracleRefused", "Outcome"],
    "world_adapter": ["CopyRecipe", "WorldAdapter"],
})
