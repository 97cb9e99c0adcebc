"""Entity classes (the defaults a family of types starts from) and the controllers
that drive non-player agents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.world.entities.classes import EntityClass
    from nesyworld.world.entities.controllers import Controller

__getattr__, __all__ = lazy_exports(__name__, {
    "classes": ["EntityClass"],
    "controllers": ["Controller"],
})
