"""The domain check: declared operator semantics agree with the simulator on every shipped
spec, and deliberately wrong declarations are caught and named.

The wrong-declaration tests monkeypatch an action class's `operators()`: that is exactly the
hand-written code the check exists to audit, so a check that passed them would be worthless.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from nesyworld.domains import DOMAINS_DIR
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.derivation.domain_check import (
    DomainCheckReport,
    check_domain,
    check_operator,
)
from nesyworld.world import World
from nesyworld.world.actions.crafting import Craft
from nesyworld.world.actions.interact import Break
from nesyworld.world.actions.schema import INVENTORY, CountChange, OperatorSchema


def _world_specs() -> list[Path]:
    """Every shipped world spec: YAML files whose top level declares a world (entity types,
    or `extends` a base world); novelty files describe changes, not worlds."""
    out = []
    for path in sorted(DOMAINS_DIR.glob("*/*.yaml")):
        if "novelt" in path.parent.name or "novelt" in path.stem:
            continue
        data = yaml.safe_load(path.read_text())
        if isinstance(data, dict) and ("entity_types" in data or "extends" in data):
            out.append(path)
    return out


SPECS = _world_specs()


def test_the_shipped_specs_are_found() -> None:
    assert {p.stem for p in SPECS} >= {"pogostick", "pogostick_full", "sandwich"}


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_declared_semantics_agree_with_the_simulator(path: Path) -> None:
    report = check_domain(path)
    assert report.ok, f"\n{report}"
    assert all(op.samples > 0 for op in report.operators)
    assert {op.name for op in report.operators} == {op.name for op in derive(path).operators}


def test_the_default_check_is_fast() -> None:
    report = check_domain("pogostick")
    assert report.seconds < 3.0, report.seconds
    assert report.samples == 20 and all(op.samples == 20 for op in report.operators)


def test_the_check_is_deterministic_and_serialisable() -> None:
    a, b = check_domain("sandwich", samples=5, seed=3), check_domain("sandwich", samples=5, seed=3)
    da, db = a.to_dict(), b.to_dict()
    da.pop("seconds"), db.pop("seconds")
    assert da == db
    assert json.loads(json.dumps(da))["ok"] is True
    table = a.to_table()
    assert "use_oven" in table and "OK" in table.splitlines()[0]


def _patched(
    original: Callable[..., list[OperatorSchema]], edit: Callable[[OperatorSchema], OperatorSchema]
) -> Callable[..., list]:
    def operators(self: object) -> list[OperatorSchema]:
        return [edit(op) for op in original(self)]

    return operators


def test_a_wrong_recipe_count_is_caught_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def three_planks(op: OperatorSchema) -> OperatorSchema:
        if op.name != "craft_planks":
            return op
        effects = tuple(
            CountChange(e.fluent, e.arg, 3)
            if isinstance(e, CountChange) and e.arg == "planks"
            else e
            for e in op.effects
        )
        return dataclasses.replace(op, effects=effects)

    monkeypatch.setattr(Craft, "operators", _patched(Craft.operators, three_planks))
    report = check_domain("pogostick", samples=5)
    assert not report.ok
    assert [op.name for op in report.failures] == ["craft_planks"]
    bad = report.operator("craft_planks")
    assert bad.status == "MISMATCH" and len(bad.disagreements) == 5 and bad.agreements == 0
    d = bad.disagreements[0]
    assert d.refused is None
    [expected] = [c for c in d.expected if c.startswith("inventory(planks)")]
    [observed] = [c for c in d.observed if c.startswith("inventory(planks)")]
    before = int(expected.split(": ")[1].split(" -> ")[0])
    assert expected.endswith(f"-> {before + 3}") and observed.endswith(f"-> {before + 4}")
    text = str(report)
    assert "FAILED" in text and "craft_planks" in text and "recipe 'planks'" in text


def test_forgotten_drops_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_drops(op: OperatorSchema) -> OperatorSchema:
        effects = tuple(
            e for e in op.effects if not (isinstance(e, CountChange) and e.fluent == INVENTORY)
        )
        return dataclasses.replace(op, effects=effects)

    monkeypatch.setattr(Break, "operators", _patched(Break.operators, no_drops))
    report = check_domain("pogostick", samples=4)
    failed = {op.name for op in report.failures}
    assert failed == {op.name for op in report.operators if op.name.startswith("break_")}
    d = report.operator("break_diamond_ore_with_iron_pickaxe").disagreements[0]
    assert any(c.startswith("inventory(diamond)") for c in d.observed)
    assert not any(c.startswith("inventory(") for c in d.expected)


def test_a_missing_precondition_shows_as_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Break declared without its tool requirement: the simulator refuses whenever the
    sampled state does not happen to hold the pickaxe, and the report says why."""

    def no_tool(op: OperatorSchema) -> OperatorSchema:
        return dataclasses.replace(op, preconditions=op.preconditions[:1])

    monkeypatch.setattr(Break, "operators", _patched(Break.operators, no_tool))
    report = check_domain("pogostick", samples=10)
    bad = report.operator("break_diamond_ore_with_iron_pickaxe")
    assert not bad.ok
    assert any("needs iron_pickaxe selected" in (d.refused or "") for d in bad.disagreements)
    assert report.operator("break_oak_log").ok  # needs no tool: still agrees


def test_unsatisfiable_samples_are_reported_not_hidden() -> None:
    report = DomainCheckReport("x", "y", 1, 0, [])
    assert report.ok and report.failures == []
    spec = World("pogostick").spec
    world = World(spec, seed=0)
    op = next(o for o in derive(world).operators if o.name == "craft_pogo_stick")
    with pytest.raises(ValueError, match="preconditions do not hold"):
        check_operator(world, op)


# --- real mismatches found by the check (declared semantics of the built-in approach action) --
def _approach(world: World, target: str) -> OperatorSchema:
    return next(o for o in derive(world).operators if o.name == f"approach_{target}")


def test_approach_from_a_door_changes_only_facing() -> None:
    world = World("pogostick_full", seed=0)
    world.move_agent(world.main, (7, 11))  # the door between the two rooms
    assert world.types.names[world.state.under[world.main]] == "door"
    assert check_operator(world, _approach(world, "oak_log")) is None


def test_approach_to_an_enclosed_target_is_not_refused() -> None:
    world = World("pogostick", seed=726)
    assert check_operator(world, _approach(world, "crafting_table")) is None
