"""Lifelong worlds (a world that never resets): regrowth of used resources and the
reward schedules of the `lifelong:` spec section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.world.lifelong.regrowth import regrow
    from nesyworld.world.lifelong.rewards import LifelongRewards

__getattr__, __all__ = lazy_exports(__name__, {
    "regrowth": ["regrow"],
    "rewards": ["LifelongRewards"],
})
