"""The goal must be reachable from what the spec declares: every goal item has to be held,
placed, dropped, crafted, traded or collected somewhere, or the spec is refused at load.

Everything that can put a type into the world counts: the map (placements, drawn rows,
border, walls, doors, the surround, a generated map's tables), the agents, placing an item, a
sapling growing, what a broken block leaves behind (`leaves`) and spawns (`on_break`, which a
lifelong `regrow` becomes), what a collect or use rule turns its cell into (`becomes`), and
what an event spawns. Missing one of these would refuse a sound spec, as a spec whose only ore
appears where a rock was broken. A novelty that makes the goal unreachable is blamed on the
novelty's own file by `blame_novelty` (world/novelty/transforms.py).
"""

from __future__ import annotations

from nesyworld.world.spec.model import WorldSpec
from nesyworld.world.spec.reader import SpecReader


def obtainable(spec: WorldSpec) -> set[str]:
    """Items the main agent could ever hold: a fixed point over drops, recipes, trades, rules."""
    have = set(spec.agents[spec.main_agent].inventory)
    in_world = {p.type for p in spec.map.objects if p.quantity > 0}
    if spec.map.ascii is not None:
        glyph_types = {t.glyph: t.name for t in spec.entity_types.values() if t.glyph}
        glyph_types.update(spec.map.legend)
        in_world |= {glyph_types[ch] for row in spec.map.ascii for ch in row}
    in_world |= {a.type for a in spec.agents.values()}
    in_world |= _layout_types(spec)
    # things an event spawns mid-episode (its trigger may never come; for "can never be
    # obtained" a possible way is enough)
    in_world |= {e.type for e in getattr(spec, "events", ()) if e.kind == "spawn"}
    changed = True
    while changed:
        before = len(have) + len(in_world)
        for t in list(in_world):
            et = spec.entity_types[t]
            if et.breakable and (et.break_tool is None or et.break_tool in have):
                have |= set(et.drops)
                in_world.add(et.leaves)
                if et.on_break:
                    in_world.add(et.on_break.spawn)
            for rule in (et.collect, et.use):
                if rule and (rule.holding is None or rule.holding in have) and set(
                        rule.consumes) <= have:
                    have |= set(rule.gives)
                    if rule.removes:
                        in_world.add(rule.becomes)
        for item in list(have):
            et = spec.entity_types[item]
            if et.placeable:
                in_world.add(item)
                if et.grows_into:
                    in_world.add(et.grows_into.spawn)
        for r in spec.recipes.values():
            if set(r.inputs) <= have and (r.station is None or r.station in in_world):
                have |= set(r.outputs)
        for trade in spec.trades.values():
            if set(trade.inputs) <= have and trade.trader in in_world:
                have |= set(trade.outputs)
        changed = len(have) + len(in_world) != before
    return have


def _layout_types(spec: WorldSpec) -> set[str]:
    """Types the layout itself puts on the map besides placements and drawn rows: the
    border, walls, doors (a locked door a key is used on may give something), the surround,
    and a generated map's walls, doors and densities."""
    m = spec.map
    out = {w.type for w in m.walls} | {d.type for d in m.doors}
    out |= {s.with_ for s in m.surround}
    if m.border:
        out.add(m.border)
    g = m.generate
    if g is not None:
        out |= {g.wall, g.door} if g.rooms > 1 else {g.wall}
        out |= {t for t, d in g.densities.items() if d > 0}
        out |= {t for t, n in g.min_counts.items() if n > 0}
        out |= {p.type for p in g.extra if p.quantity > 0}
    return out


def check_goal_reachable(rd: SpecReader, spec: WorldSpec) -> None:
    have = obtainable(spec)
    for item in spec.goal:
        if item not in have:
            raise rd.fail(("goal", "inventory", item), f"goal item '{item}' can never be "
                          "obtained", found=item, expected="an item that some drop, recipe, "
                          "trade or interaction can give the main agent")
