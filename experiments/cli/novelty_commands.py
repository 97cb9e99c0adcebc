"""Novelty sub-commands: novelties (list) and diff (what a novelty changes)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from nesyworld.experiments.cli.output import LazyConsole

console = LazyConsole()


def add_commands(sub: Any) -> None:
    p = sub.add_parser("novelties", help="list the shipped novelties with category and level")
    p.add_argument("--domain", help="only this domain's novelties (e.g. polycraft)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_novelties)

    p = sub.add_parser("diff", help="what a novelty changes: types, operators, recipes, trades")
    p.add_argument("spec")
    p.add_argument("--novelty", action="append", required=True, metavar="NOVELTY",
                   help="a shipped novelty's name or a file (repeat to compose)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_diff)


def cmd_novelties(args: argparse.Namespace) -> int:
    from nesyworld.domains import shipped_novelties
    from nesyworld.world.novelty.transforms import load_novelty

    rows = []
    for name, path in shipped_novelties().items():
        domain = path.parent.parent.name
        if args.domain and domain != args.domain:
            continue
        n = load_novelty(path)
        when = (f"step {n.inject.step} of episodes >= {n.inject.episode}" if n.inject.mid_episode
                else f"episode {n.inject.episode}")
        rows.append({"name": name, "domain": domain, "category": n.category, "level": n.level,
                     "inject": when, "description": n.description})
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return 0
    from nesyworld.experiments.protocol.terminal_tables import FittedTable

    # names are what a user types: the table keeps them whole at any width (down to 80
    # columns, where two multi_interact_... rows were cut to the same text) and wraps the rest
    columns = ("name", "domain", "category", "level", "inject")
    console.print(FittedTable(
        headers=columns, cells=[[r[c] for c in columns] for r in rows],
        title="shipped novelties (descriptions: --json or the files)",
        whole_columns=("name", "domain")))
    return 0


def novelty_diff(spec: str, novelties: list[str]) -> dict[str, Any]:
    """Types, operators, recipes, trades and actions that a novelty adds, removes or changes."""
    from nesyworld.symbolic.knowledge_base import KnowledgeBase
    from nesyworld.world import load_spec
    from nesyworld.world.novelty.transforms import apply_novelties

    before, after = load_spec(spec), apply_novelties(spec, novelties)

    def compare(a: Any, b: Any) -> dict[str, list[str]]:
        return {"added": sorted(set(b) - set(a)), "removed": sorted(set(a) - set(b)),
                "changed": sorted(k for k in set(a) & set(b) if a[k] != b[k])}

    kb_diff = KnowledgeBase.from_world(before).diff(KnowledgeBase.from_world(after))
    return {
        "novelties": novelties,
        "types": compare(before.entity_types, after.entity_types),
        "actions": compare(before.actions, after.actions),
        "recipes": compare(before.recipes, after.recipes),
        "trades": compare(before.trades, after.trades),
        "agents": compare(before.agents, after.agents),
        "map_changed": before.map != after.map,
        "operators": {"added": list(kb_diff.added), "removed": list(kb_diff.removed),
                      "changed": list(kb_diff.changed)},
    }


def cmd_diff(args: argparse.Namespace) -> int:
    data = novelty_diff(args.spec, args.novelty)
    if args.json:
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return 0
    console.print(f"[bold]{args.spec}[/bold] + {', '.join(args.novelty)}")
    for section in ("types", "actions", "recipes", "trades", "agents", "operators"):
        for change, names in data[section].items():
            if names:
                console.print(f"  {section} {change}: {', '.join(names)}")
    if data["map_changed"]:
        console.print("  map: changed")
    return 0
