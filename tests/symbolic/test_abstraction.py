"""The one abstraction: facts and counts from the simulator, and declared effects."""

from __future__ import annotations

import timeit

from nesyworld.domains import scripted_solution
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.world import World


def test_initial_abstraction_matches_spec() -> None:
    world = World("pogostick", seed=0)
    z = abstract(world)
    assert z.count("inventory", "iron_pickaxe") == 1
    assert z.count("world", "oak_log") == 5
    assert z.count("world", "trader") == 1  # agents are counted on the map
    assert "holding(air)" in z.facts()


def test_declared_effects_predict_the_scripted_solution() -> None:
    """Along the scripted plan, each operator's declared effects give exactly the next
    abstract state (NPCs are not stepped, so only the action acts)."""
    world = World("pogostick", seed=1)
    d = derive(world)
    for action in scripted_solution("pogostick") or []:
        z0 = abstract(world)
        candidates = [
            op for op in d.operators if op.action.split("_{")[0] == action or op.action == action
        ]
        bindings = [{"?from": z0.names[z0.facing], "?prev": z0.names[z0.holding]}]
        applicable = [op for op in candidates if z0.satisfies(op.preconditions, bindings[0])]
        assert len(applicable) == 1, (action, [op.name for op in candidates])
        outcome = world.act(world.main, action)
        assert outcome.ok, outcome.reason
        assert abstract(world) == z0.apply(applicable[0].effects, bindings[0]), action
    assert world.goal_reached()


def test_abstraction_is_fast_and_hashable() -> None:
    world = World("pogostick", seed=0)
    z = abstract(world)
    assert hash(z) == hash(abstract(world)) and {z: 1}[abstract(world)] == 1
    per_call = timeit.timeit(lambda: abstract(world), number=2000) / 2000
    assert per_call < 1e-3  # microseconds in practice; generous for shared machines


def test_diff_explains_changes() -> None:
    world = World("pogostick", seed=0)
    world.state.inventory[world.main, world.types.id("oak_log")] = 1
    z0 = abstract(world)
    world.act(world.main, "craft_planks")
    changes = abstract(world).diff(z0)
    assert "inventory(planks): 0 -> 4" in changes and "inventory(oak_log): 1 -> 0" in changes


def test_a_type_the_state_does_not_have_counts_zero_and_holds_nothing() -> None:
    """A novelty can remove a type the knowledge base still names: reading it must not
    crash the monitor or the planner's checks."""
    from nesyworld.world.actions.schema import FACING, INVENTORY, WORLD, Fact

    z = abstract(World("pogostick"))
    assert z.count(INVENTORY, "unobtainium") == 0 and z.count(WORLD, "unobtainium") == 0
    assert not z.holds(Fact(FACING, ("unobtainium",)))
    assert not z.holds(Fact("on_fire", ("unobtainium",)))
    assert z.holds(Fact("on_fire", ("unobtainium",), negated=True))
