"""A ground task as the flat arrays the compiled search reads (symbolic/planning/search_kernel.py).

Kept apart from the search so that the arrays are built once per task and the search called
many times, and so that this module, not the kernel, owns the translation between atoms and
numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from nesyworld.symbolic.planning.strips import Conditions, StripsTask

MAX_NODES = 500_000
"""States a search may generate before it answers "unknown" (about 9 s on the pogostick task):
the bound that keeps a question from running away. A task of many atoms gets fewer, so that
the stored states stay within `MAX_STATE_BYTES`."""

MAX_STATE_BYTES = 256 * 2**20


class SearchLimit(RuntimeError):
    """The search generated `max_nodes` states without an answer."""


def _csr(rows: Iterable[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    ptr = [0]
    items: list[int] = []
    for row in rows:
        items.extend(row)
        ptr.append(len(items))
    return np.asarray(ptr, np.int64), np.asarray(items, np.int64)


@dataclass
class CompiledTask:
    """The arrays of one task; `solve` searches it from any state over its atoms."""

    task: StripsTask
    weight: int = 1
    max_nodes: int = MAX_NODES

    def __post_init__(self) -> None:
        acts = self.task.actions
        effects = [e for a in acts for e in a.conditional]
        rules = self.task.relaxed_rules()
        self._rules = (*_csr(r[0] for r in rules), *_csr(r[1] for r in rules))
        self._arrays = (
            *_csr(a.pre.true for a in acts), *_csr(a.pre.false for a in acts),
            *_csr(a.add for a in acts), *_csr(a.delete for a in acts),
            _csr(range(len(a.conditional)) for a in acts)[0],
            *_csr(c.true for c, _, _ in effects), *_csr(c.false for c, _, _ in effects),
            np.asarray([atom for _, atom, _ in effects], np.int64),
            np.asarray([value for _, _, value in effects], np.uint8),
            *self._rules, np.asarray([r[2] for r in rules], np.int64),
        )
        # fixed keys: the same task always hashes its states alike, so searches repeat
        rng = np.random.default_rng(0)
        self._zobrist = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max,
                                     len(self.task.atoms), dtype=np.int64)
        self.generated = 0
        per_state = max(1, len(self.task.atoms))
        self.max_nodes = max(1, min(self.max_nodes, MAX_STATE_BYTES // per_state))

    def _state(self, atoms: Iterable[int]) -> np.ndarray:
        state = np.zeros(len(self.task.atoms), np.uint8)
        state[list(atoms)] = 1
        return state

    def relaxed_reachable(self, init: Iterable[int], goal: Conditions) -> bool:
        """Whether the goal's positive atoms are reachable ignoring deletes and negative
        conditions: what the search's pruning (an infinite h_FF) asks of every state."""
        from nesyworld.symbolic.planning.search_kernel import INF, relaxed_costs

        n = len(self.task.atoms)
        cost, supporter = np.empty(n, np.int64), np.empty(n, np.int64)
        relaxed_costs(self._state(init), *self._rules, cost, supporter)
        return all(cost[g] < INF for g in goal.true)

    def solve(self, init: Iterable[int], goal: Conditions) -> list[int] | None:
        """The plan as action numbers, None when provably there is none; SearchLimit when
        the node bound is reached first."""
        from nesyworld.symbolic.planning.search_kernel import FOUND, LIMIT, search, state_table

        status, plan, generated = search(
            self._state(init), np.asarray(goal.true, np.int64), np.asarray(goal.false, np.int64),
            *self._arrays, self._zobrist, self.weight, self.max_nodes, state_table())
        self.generated = int(generated)
        if status == LIMIT:
            raise SearchLimit(f"no answer after {self.max_nodes:,} states (the search's bound)")
        return [int(k) for k in plan] if status == FOUND else None
