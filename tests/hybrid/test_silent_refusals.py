"""What model repair guesses from a refusal that says nothing (hybrid/repair/candidates.py):
more of what the operator spends, then something else in its place; execution decides."""

from __future__ import annotations

from nesyworld.hybrid.execution.monitor import OperatorFailure
from nesyworld.hybrid.execution.operators import GroundOperator
from nesyworld.hybrid.repair.candidates import (
    AMOUNT_STEPS,
    candidates,
    inventory_items,
    silent_amounts,
    silent_substitutes,
)
from nesyworld.hybrid.repair.evidence import gather
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.actions.schema import (
    FACING,
    INVENTORY,
    CountAtLeast,
    CountChange,
    Fact,
    OperatorSchema,
)

KB = KnowledgeBase.from_world("pogostick")
CRAFT = OperatorSchema("craft_stick", (), (CountAtLeast(INVENTORY, "planks", 2),),
                       (CountChange(INVENTORY, "planks", -2), CountChange(INVENTORY, "stick", 4)),
                       "craft_stick", "test")
BREAK = OperatorSchema("break_oak_log", (), (Fact(FACING, ("oak_log",)),),
                       (CountChange(INVENTORY, "oak_log", 1),), "break", "test")


def evidence(op: OperatorSchema, reason: str = "", kind: str = "refused") -> object:
    failure = OperatorFailure(GroundOperator(op), kind, reason, [], [], None, (), 3)  # type: ignore[arg-type]
    return gather(failure, ("planks", "stick", "oak_log"))


def test_a_silent_refusal_may_mean_more_of_what_is_spent_and_spent_alike() -> None:
    cands = silent_amounts(evidence(CRAFT))  # type: ignore[arg-type]
    assert len(cands) == len(AMOUNT_STEPS)
    for cand, amount in zip(cands, (3, 4), strict=True):
        (op,) = cand.operators
        assert CountAtLeast(INVENTORY, "planks", amount) in op.preconditions
        assert CountChange(INVENTORY, "planks", -amount) in op.effects
        assert CountChange(INVENTORY, "stick", 4) in op.effects  # what it makes is unchanged


def test_a_silent_refusal_may_mean_another_item_in_place_of_the_spent_one() -> None:
    cands = silent_substitutes(evidence(CRAFT), KB)  # type: ignore[arg-type]
    items = set(inventory_items(KB)) - {"planks", "stick"}
    assert {c.operators[0].effects[-1].arg for c in cands} == items  # type: ignore[union-attr]
    for cand in cands:
        (op,) = cand.operators
        assert not any(getattr(x, "arg", None) == "planks" for x in
                       (*op.preconditions, *op.effects))
        assert all(c.rank == 4 for c in cands)


def test_guesses_follow_what_a_refusal_states_and_need_a_refusal() -> None:
    # a stated reason leaves no room for guesses
    assert silent_amounts(evidence(CRAFT, "stick needs 3 planks")) == []  # type: ignore[arg-type]
    assert silent_substitutes(evidence(CRAFT, "stick needs 3 planks"), KB) == []  # type: ignore[arg-type]
    # an operator that spends nothing has nothing to guess about; a failure that was not a
    # refusal is read from what changed instead
    assert silent_amounts(evidence(BREAK)) == []  # type: ignore[arg-type]
    assert silent_amounts(evidence(CRAFT, kind="effect_mismatch")) == []  # type: ignore[arg-type]
    ranks = [c.rank for c in candidates(evidence(CRAFT), KB)]  # type: ignore[arg-type]
    assert ranks == sorted(ranks) and ranks[-1] == 9  # amounts, substitutes, then demotion
