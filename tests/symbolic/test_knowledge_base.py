"""The knowledge base: add, remove, demote, diff, render and save/load operators."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.symbolic.derivation.schema_io import schema_from_dict, schema_to_dict
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import Planner
from nesyworld.world.actions.schema import CountChange, Fact, OperatorSchema, SetFact


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.from_world("pogostick")


def test_every_derived_operator_has_provenance(kb: KnowledgeBase) -> None:
    assert len(kb) == len(kb.active) > 20
    for entry in kb:
        assert entry.origin == "derived" and entry.operator.provenance


def test_demote_removes_from_planning_but_keeps_record(kb: KnowledgeBase) -> None:
    other = kb.copy()
    other.demote("trade_block_of_titanium_1", "trader refuses")
    assert "trade_block_of_titanium_1" in other
    assert other.entry("trade_block_of_titanium_1").reason == "trader refuses"
    names = {op.name for op in other.derivation().operators}
    assert "trade_block_of_titanium_1" not in names
    assert "trade_block_of_titanium_1" in {op.name for op in kb.derivation().operators}
    result = Planner("fast-downward").plan(other.derivation())
    assert result.status == "unsolvable"  # titanium has no other source
    other.promote("trade_block_of_titanium_1")
    assert other.diff(kb).empty


def test_added_operator_is_planned_with_and_written(kb: KnowledgeBase) -> None:
    other = kb.without("trade_block_of_titanium_1")
    shortcut = OperatorSchema(
        name="learned_titanium_0",
        params=(),
        preconditions=(Fact("facing", ("trader",)),),
        effects=(CountChange("inventory", "block_of_titanium", 1),),
        action="nop",
        provenance="learned in a test",
    )
    other.add(shortcut, meta={"steps": 10})
    with pytest.raises(ValueError, match="already exists"):
        other.add(shortcut)
    plan = Planner("fast-downward").plan(other.derivation())
    assert plan.ok and "learned_titanium_0" in [s.operator for s in plan.steps]
    domain, _ = other.pddl()
    assert "(:action learned_titanium_0" in domain and "; learned in a test" in domain
    diff = kb.diff(other)
    assert diff.added == ("learned_titanium_0",) and diff.removed == ("trade_block_of_titanium_1",)


def test_save_and_load_round_trip(kb: KnowledgeBase, tmp_path: Path) -> None:
    other = kb.copy()
    other.demote("craft_stick", "test")
    other.add(
        OperatorSchema("learned_x", (), (), (SetFact("facing", ("air",), True),), "nop", "test"),
        meta={"novelty": "axe"},
    )
    folder = other.save(tmp_path / "kb")
    assert (folder / "domain.pddl").read_text().count("(:action") == len(other.active)
    loaded = KnowledgeBase.load(folder)
    assert loaded.diff(other).empty
    assert loaded.entry("learned_x").meta == {"novelty": "axe"}
    assert loaded.entry("craft_stick").status == "demoted"


def test_schema_json_round_trip(kb: KnowledgeBase) -> None:
    for entry in kb:
        assert schema_from_dict(schema_to_dict(entry.operator)) == entry.operator


def test_hand_edited_domain_loads_back(kb: KnowledgeBase) -> None:
    domain, _ = kb.pddl()
    assert "(increase (inventory planks) 4)" in domain
    edited = domain.replace("(increase (inventory planks) 4)", "(increase (inventory planks) 2)")
    loaded = KnowledgeBase.from_pddl(edited, kb.base, "edited.pddl")
    diff = kb.diff(loaded)
    assert diff.changed == ("craft_planks",) and not diff.added and not diff.removed
    entry = loaded.entry("craft_planks")
    assert entry.origin == "edited" and entry.operator.action == "craft_planks"
    assert loaded.entry("craft_stick").origin == "derived"
    unchanged = KnowledgeBase.from_pddl(domain, kb.base)
    assert kb.diff(unchanged).empty
