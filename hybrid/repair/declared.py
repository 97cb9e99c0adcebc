"""Operators of what is new, taken from outside the evidence of one failure: the world's
declared operators of new actions and types, and trials' induced ones, offered beside the
candidate repairs (candidates.py).

Why apart from candidates.py: those are read off one failure's evidence alone; these come
from a source the knowledge regime decides (hybrid/repair/repairer.py: trials in the closed
regime, the world's own model only in the labelled oracle baseline).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from nesyworld.hybrid.execution.monitor import mentioned_names
from nesyworld.hybrid.repair.candidates import Candidate
from nesyworld.hybrid.repair.evidence import Evidence
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.actions.schema import OperatorSchema

__all__ = ["declared_operators", "failed_action_declared", "with_declared"]


def declared_operators(world_operators: Sequence[OperatorSchema], new_actions: Collection[str],
                       kb: KnowledgeBase, new_types: Collection[str] = ()
                       ) -> tuple[OperatorSchema, ...]:
    """The world's declared operators of what is new since the knowledge base was made, which
    the knowledge base lacks: those of new env actions (a new trade, a new recipe) and those
    that name a new type (breaking a new block, collecting from a new chest). What a known
    action now does to known things is for the evidence to show (`failed_action_declared`
    reads it only for the action that failed)."""
    new = set(new_actions)
    types = set(new_types)
    out: list[OperatorSchema] = []
    for op in world_operators:
        if op.name in kb or op.name in {o.name for o in out}:
            continue
        pattern = re.compile(re.sub(r"\\\{\\\?[\w-]+\\\}", r"\\w+", re.escape(op.action)) + "$")
        if op.action in new or (op.params and any(pattern.match(a) for a in new)) or (
                types & mentioned_names(op)):
            out.append(op)
    return tuple(out)


def failed_action_declared(world_operators: Sequence[OperatorSchema], evidence: Evidence,
                           kb: KnowledgeBase) -> list[Candidate]:
    """The world's declared semantics of the action that failed: its operator of the same
    name as the world now derives it, when that differs from the knowledge base's (the
    approach of a type now behind a door requires the door open)."""
    op = evidence.failure.operator
    name = op.schema.name
    if name not in kb:
        return []
    now = next((w for w in world_operators if w.name == name), None)
    if now is None or now == kb.operator(name):
        return []
    return [Candidate("declared", f"the world declares what {op.env_action} does now",
                      (now,), (), rank=3)]


def with_declared(cands: Sequence[Candidate], declared: Sequence[OperatorSchema],
                  induced: bool = False) -> list[Candidate]:
    """Each candidate together with the new actions' operators (a broken route is often
    replaced through a new action), and those operators alone. `induced`: they come from
    trials (hybrid/repair/trials.py), not from the world's declared model."""
    if not declared:
        return list(cands)
    out = [replace(c, operators=(*c.operators, *declared)) for c in cands]
    out.append(Candidate("induced", "trials showed what its new actions do", tuple(declared),
                         (), rank=4) if induced else
               Candidate("declared", "the world declares what its new actions do",
                         tuple(declared), (), rank=4))
    return sorted(out, key=lambda c: c.rank)
