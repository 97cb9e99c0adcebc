"""What a hybrid agent may know after a novelty: the knowledge regime.

Novelty research asks how an agent copes with a change it was not told about, so what it is
told is part of every result. Two regimes:

- ``closed`` (the default everywhere): the agent has its pre-novelty knowledge base, what it
  observes (the abstract state, the action names it is offered, each step's outcome with a
  refusal's reason when the environment gives one, the reward) and nothing else. Model repair
  proposes only what the evidence supports, dead ends are judged with the agent's own model,
  and a learned operator is checked against the rollouts it was built from.
- ``oracle``: a labelled baseline that may also consult the post-novelty world's own derived
  model (its operators, its type hierarchy, its declared growth and spawns). A figure made in
  this regime says nothing about coping with novelty; it bounds what the closed agent could
  reach with perfect knowledge of the change.

The code that differs by regime asks `knowledge == "oracle"` at the one place it would read
the post-novelty world's model (hybrid/repair/repairer.py, hybrid/recovery/recover.py,
hybrid/recovery/learned_operator.py, hybrid/agents/hybrid_agent.py), and reads it only
through the oracle's door of the environment boundary (hybrid/boundary/world_adapter.py),
which refuses in any other regime; tests/test_boundary.py checks there is no other way.
"""

from __future__ import annotations

from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, KNOWLEDGE_REGIMES, Knowledge
from nesyworld.symbolic.derivation.abstraction import SymbolicState
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.actions.movement import ROOT_TYPE
from nesyworld.world.actions.schema import AIR

__all__ = ["DEFAULT_KNOWLEDGE", "KNOWLEDGE_REGIMES", "Knowledge", "check_knowledge",
           "kb_parents", "observed_types"]


def check_knowledge(value: str) -> Knowledge:
    """`value` as a regime; a ValueError that names the choices otherwise."""
    if value not in KNOWLEDGE_REGIMES:
        raise ValueError(f"unknown knowledge regime {value!r}; expected one of "
                         f"{', '.join(KNOWLEDGE_REGIMES)}")
    return value


def observed_types(z: SymbolicState) -> tuple[str, ...]:
    """The entity types an agent has evidence of in this state: on the map, in its
    inventory, faced or held. A type the world registers but never shows is not among them."""
    return tuple(name for i, name in enumerate(z.names) if name != AIR and (
        z.world[i] > 0 or z.inventory[i] > 0 or i in (z.facing, z.holding)))


def kb_parents(kb: KnowledgeBase) -> dict[str, tuple[str, ...]]:
    """The categories of each type as the knowledge base's own (pre-novelty) hierarchy has
    them. A type the knowledge base never saw has no entry: its category is unknown."""
    out: dict[str, tuple[str, ...]] = {}
    for t in kb.base.types:
        out[t.name] = tuple(p for p in (t.parent, *t.other_parents) if p and p != ROOT_TYPE)
    for o in kb.base.objects:
        out[o.name] = tuple(p for p in (o.type, *o.other_parents) if p != ROOT_TYPE)
    return out
