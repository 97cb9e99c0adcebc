"""The knowledge base: the operators an agent believes in, derived, edited or learned.

Each operator carries its provenance and a status. Planning uses the active ones; a demoted
operator (one that failed under a novelty) stays visible, with the reason, but is not planned
with. The knowledge base renders PDDL, diffs against another knowledge base (what a novelty
changed, what recovery learned), and saves to a folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.derivation.derive import Derivation, derive
from nesyworld.symbolic.derivation.schema_io import schema_from_dict, schema_to_dict
from nesyworld.symbolic.kb_folder import (
    KB_FILE,
    KnowledgeBaseError,
    check_pddl_files,
    check_vocabulary,
    read_kb_json,
)
from nesyworld.symbolic.pddl.writer import write_pddl
from nesyworld.world.actions.schema import OperatorSchema

__all__ = ["FORMAT", "Entry", "KBDiff", "KnowledgeBase", "KnowledgeBaseError", "operator_pddl"]

Origin = Literal["derived", "edited", "learned", "repaired"]
Status = Literal["active", "demoted"]
FORMAT = "nesyworld.kb/1"


@dataclass(frozen=True)
class Entry:
    """One operator with where it came from and whether it is planned with."""

    operator: OperatorSchema
    origin: Origin = "derived"
    status: Status = "active"
    reason: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class KBDiff:
    """What differs between two knowledge bases, by operator name."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]
    status_changed: tuple[str, ...]
    types_added: tuple[str, ...] = ()
    types_removed: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (
            self.added
            or self.removed
            or self.changed
            or self.status_changed
            or self.types_added
            or self.types_removed
        )

    def __str__(self) -> str:
        parts = []
        for label, names in (
            ("added", self.added),
            ("removed", self.removed),
            ("changed", self.changed),
            ("status", self.status_changed),
            ("types added", self.types_added),
            ("types removed", self.types_removed),
        ):
            if names:
                parts.append(f"{label}: {', '.join(names)}")
        return "; ".join(parts) or "no differences"


class KnowledgeBase:
    """Operators (by name, in insertion order) over the domain vocabulary of a derivation."""

    def __init__(self, derivation: Derivation, entries: Mapping[str, Entry] | None = None) -> None:
        self.base = derivation
        self._entries: dict[str, Entry] = (
            dict(entries)
            if entries is not None
            else {op.name: Entry(op) for op in derivation.operators}
        )
        self._planning: Derivation | None = None

    @classmethod
    def from_world(cls, source: Any, seed: int = 0) -> KnowledgeBase:
        """The agent's pre-novelty knowledge: everything the world's registries declare."""
        return cls(derive(source, seed=seed))

    @classmethod
    def from_pddl(cls, domain_text: str, base: Derivation, file: str = "<domain>"
                  ) -> KnowledgeBase:
        """Operators from a (hand-edited) numeric PDDL domain, over `base`'s vocabulary.

        An operator identical to the derived one keeps origin "derived"; a changed or new one
        is "edited". Each runs the env action of the derived operator of the same name, or an
        env action of its own name.
        """
        from nesyworld.symbolic.derivation.schema_io import schema_from_action
        from nesyworld.symbolic.pddl.reader import read_pddl

        problem = read_pddl(domain_text, None, domain_file=file)
        derived = {op.name: op for op in base.operators}
        entries: dict[str, Entry] = {}
        for action in problem.actions:
            known = derived.get(action.name)
            op = schema_from_action(
                action, known.provenance if known else f"edited in {file}",
                known.action if known else action.name)
            if known is not None:
                op = replace(op, cost=known.cost, macro=known.macro, notes=known.notes,
                             repeat=known.repeat)
            if known is not None and (set(op.preconditions), set(op.effects), op.params) == (
                    set(known.preconditions), set(known.effects), known.params):
                entries[op.name] = Entry(known, "derived")
            else:
                entries[op.name] = Entry(op, "edited")
        return cls(base, entries)

    # --- contents ------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def entry(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"no operator '{name}' in the knowledge base") from None

    def operator(self, name: str) -> OperatorSchema:
        return self.entry(name).operator

    @property
    def active(self) -> list[OperatorSchema]:
        return [e.operator for e in self._entries.values() if e.status == "active"]

    # --- changes -------------------------------------------------------------------------
    def _changed(self) -> None:
        self._planning = None

    def add(
        self,
        operator: OperatorSchema,
        origin: Origin = "learned",
        meta: Mapping[str, Any] | None = None,
        replace_existing: bool = False,
    ) -> Entry:
        if operator.name in self._entries and not replace_existing:
            raise ValueError(
                f"operator '{operator.name}' already exists; pass "
                "replace_existing=True to replace it"
            )
        entry = Entry(operator, origin, "active", "", dict(meta or {}))
        self._entries[operator.name] = entry
        self._changed()
        return entry

    def remove(self, name: str) -> Entry:
        entry = self.entry(name)
        del self._entries[name]
        self._changed()
        return entry

    def demote(self, name: str, reason: str) -> Entry:
        """Stop planning with an operator, keeping it (and why) in the record."""
        entry = replace(self.entry(name), status="demoted", reason=reason)
        self._entries[name] = entry
        self._changed()
        return entry

    def promote(self, name: str) -> Entry:
        entry = replace(self.entry(name), status="active", reason="")
        self._entries[name] = entry
        self._changed()
        return entry

    def copy(self) -> KnowledgeBase:
        return KnowledgeBase(self.base, self._entries)

    def without(self, name: str) -> KnowledgeBase:
        """A copy with one operator removed (recovery plans without the failed operator)."""
        kb = self.copy()
        kb.remove(name)
        return kb

    # --- planning views ------------------------------------------------------------------
    def derivation(
        self, state: SymbolicState | None = None, goal: Mapping[str, int] | None = None
    ) -> Derivation:
        """The planning problem over the active operators, from `state` to `goal`."""
        if self._planning is None:
            self._planning = self.base.with_operators(self.active)
        if state is None and goal is None:
            return self._planning
        return self._planning.with_state(state if state is not None else self.base.initial, goal)

    def pddl(self, classical: bool = False, state: SymbolicState | None = None) -> tuple[str, str]:
        return write_pddl(self.derivation(state), classical=classical)

    # --- comparison ----------------------------------------------------------------------
    def diff(self, other: KnowledgeBase) -> KBDiff:
        """What `other` has that this one lacks (added), and so on."""
        mine, theirs = self._entries, other._entries
        my_types = {t.name for t in self.base.types} | {o.name for o in self.base.objects}
        their_types = {t.name for t in other.base.types} | {o.name for o in other.base.objects}
        return KBDiff(
            added=tuple(n for n in theirs if n not in mine),
            removed=tuple(n for n in mine if n not in theirs),
            changed=tuple(
                n for n in mine if n in theirs and mine[n].operator != theirs[n].operator
            ),
            status_changed=tuple(
                n for n in mine if n in theirs and mine[n].status != theirs[n].status
            ),
            types_added=tuple(sorted(their_types - my_types)),
            types_removed=tuple(sorted(my_types - their_types)),
        )

    # --- files ---------------------------------------------------------------------------
    def save(self, folder: str | Path) -> Path:
        """Write kb.json (operators, origins, statuses, provenance) and the domain as PDDL for
        reading. Learned operators' policies are saved beside them by the hybrid layer."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        data = {
            "format": FORMAT,
            "world": self.base.source,
            "entries": [
                {
                    "operator": schema_to_dict(e.operator),
                    "origin": e.origin,
                    "status": e.status,
                    "reason": e.reason,
                    "meta": dict(e.meta),
                }
                for e in self._entries.values()
            ],
        }
        (out / "kb.json").write_text(json.dumps(data, indent=1))
        domain, problem = self.pddl()
        (out / "domain.pddl").write_text(domain)
        (out / "problem.pddl").write_text(problem)
        return out

    @classmethod
    def load(cls, folder: str | Path, derivation: Derivation | None = None) -> KnowledgeBase:
        """The knowledge base `save` wrote to `folder`, over `derivation` (by default derived
        again from the world kb.json names). The whole folder is checked first (kb_folder.py),
        so that a bad one is one located error, never a KeyError or a broken plan later:
        a KnowledgeBaseError (a SpecError) naming the file and the field path, or a PDDLError
        naming the line of domain.pddl or problem.pddl."""
        data = read_kb_json(folder)
        base = derivation if derivation is not None else derive(data["world"])
        check_vocabulary(data["entries"], base, str(Path(folder) / KB_FILE))
        entries = {}
        for raw in data["entries"]:
            op = schema_from_dict(raw["operator"])
            entries[op.name] = Entry(
                op, raw["origin"], raw["status"], raw.get("reason", ""), raw.get("meta", {})
            )
        kb = cls(base, entries)
        check_pddl_files(Path(folder), [op.name for op in kb.active])
        return kb

def operator_pddl(kb: KnowledgeBase, name: str) -> str:
    """One operator's `(:action ...)` block, with its comment lines, from the written domain."""
    domain, _ = kb.pddl()
    match = re.search(rf"((?:^[ \t]*;[^\n]*\n)*)^[ \t]*\(:action {re.escape(name)}\s", domain,
                      re.MULTILINE)
    if match is None:
        raise KeyError(f"operator '{name}' is not in the written domain")
    start, depth = match.start(0), 0
    body_start = domain.index("(:action", match.start(0))
    for i in range(body_start, len(domain)):
        depth += {"(": 1, ")": -1}.get(domain[i], 0)
        if depth == 0:
            return domain[start:i + 1]
    return domain[start:]
