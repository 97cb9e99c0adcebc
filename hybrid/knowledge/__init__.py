"""Knowledge regimes: what a hybrid agent may know of a world that changed under it (see
hybrid/knowledge/regime.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.knowledge.options import (
        DEFAULT_KNOWLEDGE,
        KNOWLEDGE_REGIMES,
        REFUSAL_MODES,
        Knowledge,
    )
    from nesyworld.hybrid.knowledge.regime import check_knowledge, kb_parents, observed_types

__getattr__, __all__ = lazy_exports(__name__, {
    "options": ["DEFAULT_KNOWLEDGE", "KNOWLEDGE_REGIMES", "REFUSAL_MODES", "Knowledge"],
    "regime": ["check_knowledge", "kb_parents", "observed_types"],
})
