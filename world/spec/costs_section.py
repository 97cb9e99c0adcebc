"""An action's `costs:`: its step cost by target and by held item, checked in place.

    actions:
      break:
        class: break
        cost: 1                                  # anything not listed below
        costs:
          target: {diamond_ore: 5}               # replaces `cost` on this target
          holding: {iron_pickaxe: 0.5}           # multiplies the cost while this is selected

What a target is depends on the action class (`Action.COST_TARGETS`): the faced entity type
for break, collect and use, the recipe for craft, the trade for trade. A class without
targets takes no `costs:`, so a misplaced entry is an error rather than a cost never charged.
The targets are checked once recipes and trades are known, hence a pass of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from nesyworld.world.spec.model import ActionCosts, ActionSpec
from nesyworld.world.spec.reader import SpecReader

COSTS_KEYS = {"target": "step cost by target, replacing `cost`",
              "holding": "a factor by selected item"}
TARGET_KINDS = {"types": "a concrete entity type", "recipes": "a recipe name",
                "trades": "a trade name"}


def parse_action_costs(rd: SpecReader, raw_actions: Mapping[str, Any],
                       actions: dict[str, ActionSpec], registry: Any,
                       types: Mapping[str, Any], names: Mapping[str, Mapping[str, Any]]
                       ) -> dict[str, ActionSpec]:
    """`actions` with each one's `costs:` read from `raw_actions`; `names` holds the recipe
    and trade tables (kind -> declared names) that recipe and trade targets must come from."""
    out = dict(actions)
    for name, raw in raw_actions.items():
        if not isinstance(raw, dict) or raw.get("costs") is None:
            continue
        path = ("actions", name, "costs")
        spec = actions[name]
        kind = getattr(registry.get(spec.cls), "COST_TARGETS", "")
        if not kind:
            with_costs = sorted(n for n in registry.names()
                                if getattr(registry.get(n), "COST_TARGETS", ""))
            raise rd.fail(path, f"action class '{spec.cls}' has no per-target costs", key=True,
                          expected="costs: only on the classes " + ", ".join(with_costs))
        data = rd.mapping(raw["costs"], path, COSTS_KEYS)
        target = _table(rd, data.get("target"), (*path, "target"), kind, types, names)
        holding = _table(rd, data.get("holding"), (*path, "holding"), "types", types, names)
        out[name] = replace(spec, costs=ActionCosts(target, holding))
    return out


def _table(rd: SpecReader, raw: Any, path: tuple[Any, ...], kind: str,
           types: Mapping[str, Any], names: Mapping[str, Mapping[str, Any]]
           ) -> Mapping[str, float]:
    table = rd.mapping(raw, path, nullable=True)
    out: dict[str, float] = {}
    for key, value in table.items():
        if kind == "types":
            if key not in types or types[key].get("abstract"):
                raise rd.fail((*path, key), f"unknown entity type '{key}'", found=key, key=True,
                              expected="a concrete type declared under entity_types")
        elif key not in names.get(kind, {}):
            raise rd.fail((*path, key), f"unknown {kind[:-1]} '{key}'", found=key, key=True,
                          expected=f"{TARGET_KINDS[kind]} declared under {kind}")
        cost = rd.number(value, (*path, key))
        if cost < 0:
            raise rd.fail((*path, key), "value out of range", found=value,
                          expected="a number >= 0")
        out[str(key)] = cost
    return MappingProxyType(out)
