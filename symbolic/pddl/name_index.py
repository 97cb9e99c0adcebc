"""Linear-time name checks while a unified-planning Problem is built.

Why: ``Problem.add_object``, ``add_fluent``, ``add_action`` and the type registration each ask
``has_name``, which scans the lists of every action, fluent, object and type already added.
Building a problem of n names is therefore quadratic: 40,000 objects took minutes, and IPC's
grounded domains (14,447 actions in rovers-propositional domain-33) need the same. The reader
checks its names itself (duplicates are errors, names shared between kinds are a dialect
warning), so UP's check only has to answer the same question faster.

How: for the duration of the build, the problem's ``_has_name_method`` (the one callable all of
UP's mixins consult) is an index over those lists that takes in each list's new items on every
call; the lists only grow while building, so every item is indexed once. Afterwards UP's own
method is put back, so the problem pickles and behaves exactly as one built the slow way. With
a unified-planning whose problems lack these attributes, nothing is swapped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LISTS = ("_actions", "_fluents", "_objects", "_user_types")


class NameIndex:
    """``has_name`` over the problem's growing lists, each item indexed once."""

    def __init__(self, lists: list[list[Any]]) -> None:
        self.lists = lists
        self.seen = [0] * len(lists)
        self.names: set[str] = set()

    def __call__(self, name: str) -> bool:
        for i, items in enumerate(self.lists):
            if len(items) > self.seen[i]:
                self.names.update(str(item.name) for item in items[self.seen[i]:])
                self.seen[i] = len(items)
        return name in self.names


@contextmanager
def indexed_names(problem: Any) -> Iterator[None]:
    """Within the block, `problem`'s name checks take constant time; see the module docstring."""
    found = [getattr(problem, name, None) for name in LISTS]
    lists = [items for items in found if isinstance(items, list)]
    original = getattr(problem, "_has_name_method", None)
    if original is None or len(lists) < len(found):
        yield
        return
    problem._has_name_method = NameIndex(lists)
    try:
        yield
    finally:
        problem._has_name_method = original
