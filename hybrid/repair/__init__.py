"""Model repair: fix the knowledge base from what a failure shows, verified by execution,
before any learning (see hybrid/repair/repairer.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.repair.candidates import Candidate, candidates
    from nesyworld.hybrid.repair.evidence import Evidence, RefusalReading, gather, read_refusal
    from nesyworld.hybrid.repair.repairer import ModelRepair, RepairConfig, RepairResult
    from nesyworld.hybrid.repair.verify import Verification, verify

__getattr__, __all__ = lazy_exports(__name__, {
    "candidates": ["Candidate", "candidates"],
    "evidence": ["Evidence", "RefusalReading", "gather", "read_refusal"],
    "repairer": ["ModelRepair", "RepairConfig", "RepairResult"],
    "verify": ["Verification", "verify"],
})
