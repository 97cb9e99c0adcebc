"""World sub-commands: specs, classes, check, show, play, run, replay."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from nesyworld.experiments.cli.arguments import output_file, world_seed
from nesyworld.experiments.cli.output import LazyConsole, plain

if TYPE_CHECKING:
    from nesyworld.world import World

console = LazyConsole()


def add_commands(sub: Any) -> None:
    p = sub.add_parser("specs", help="list the shipped world specs")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_specs)

    p = sub.add_parser("classes", help="list registered entity, action and controller classes")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_classes)

    p = sub.add_parser("check", help="validate a world spec and summarise it")
    p.add_argument("spec", help="a spec file or a shipped spec name (e.g. pogostick)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("show", help="draw a world's initial state (ASCII, optionally PNG)")
    p.add_argument("spec")
    p.add_argument("--seed", type=world_seed, default=0, help="layout seed (default 0)")
    p.add_argument("--png", metavar="FILE", help="also write the RGB rendering to FILE")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("play", help="play a world from the keyboard in the terminal")
    p.add_argument("spec")
    p.add_argument("--seed", type=world_seed, default=0, help="layout seed (default 0)")
    p.add_argument("--record", metavar="FILE", help="save the trajectory as JSON")
    p.set_defaults(handler=cmd_play)

    p = sub.add_parser("replay", help="replay a recorded trajectory and verify every state")
    p.add_argument("trajectory")
    p.add_argument("--render", action="store_true")
    p.set_defaults(handler=cmd_replay)


def _print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=1) + "\n")


def cmd_specs(args: argparse.Namespace) -> int:
    from nesyworld.domains import shipped_specs
    from nesyworld.world import load_spec

    rows: list[dict[str, Any]] = []
    for name, path in shipped_specs().items():
        spec = load_spec(path)
        rows.append({"name": name, "path": str(path), "size": list(spec.map.size),
                     "goal": dict(spec.goal), "description": spec.description})
    if args.json:
        _print_json(rows)
        return 0
    from rich.table import Table

    table = Table(title="shipped world specs")
    for col in ("name", "size", "goal", "description"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], "x".join(map(str, r["size"])), plain(r["goal"]),
                      r["description"])
    console.print(table)
    return 0


def cmd_classes(args: argparse.Namespace) -> int:
    import nesyworld.world.builtins  # noqa: F401
    from nesyworld.world import ACTIONS, CONTROLLERS, ENTITIES

    data = {
        "entities": ENTITIES.names(),
        "actions": ACTIONS.names(),
        "controllers": CONTROLLERS.names(),
    }
    if args.json:
        _print_json(data)
        return 0
    for kind, names in data.items():
        console.print(f"[bold]{kind}[/bold]: {', '.join(names)}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from nesyworld.world import World, load_spec

    spec = load_spec(args.spec)
    world = World(spec, seed=0)
    summary: dict[str, Any] = {
        "name": spec.name,
        "source": spec.source,
        "types": list(spec.entity_types),
        "concrete_types": len(world.types),
        "actions": list(spec.actions),
        "grounded_actions": list(world.action_names()),
        "recipes": list(spec.recipes),
        "trades": list(spec.trades),
        "agents": {n: a.controller or "main" for n, a in spec.agents.items()},
        "goal": dict(spec.goal),
        "operators": sum(len(a.operators()) for a in world.actions.values()),
    }
    if args.json:
        _print_json(summary)
        return 0
    console.print(f"[green]ok[/green] {spec.source}: world '{spec.name}'")
    for key in ("types", "actions", "recipes", "trades"):
        console.print(f"  {key} ({len(summary[key])}): {', '.join(summary[key])}")
    console.print(f"  grounded actions: {len(summary['grounded_actions'])}, "
                  f"operators: {summary['operators']}, agents: {plain(summary['agents'])}, "
                  f"goal: {plain(summary['goal'])}")
    return 0


def draw(world: World) -> str:
    from nesyworld.world.observations import render_ascii

    st = world.state
    m = world.main
    return render_ascii(st.grid, world.types.glyphs,
                        [(int(st.pos[m, 0]), int(st.pos[m, 1]), int(st.facing[m]))])


def cmd_show(args: argparse.Namespace) -> int:
    from nesyworld.world import World

    if args.png:
        output_file(args.png)
    world = World(args.spec, seed=args.seed)
    print(draw(world))
    print(world.describe())
    legend = ", ".join(f"{g}={n}" for n, g in zip(world.types.names, world.types.glyphs,
                                                   strict=True))
    print(f"legend: {legend}; ^>v< = {world.agent_names[world.main]}")
    if args.png:
        import matplotlib.pyplot as plt
        import numpy as np

        from nesyworld.world.observations import default_palette, render_rgb

        colors = np.array([c if c else default_palette([n])[0]
                           for n, c in zip(world.types.names, world.types.colors, strict=True)],
                          np.uint8)
        st = world.state
        agents = [(int(r), int(c), int(f)) for (r, c), f in zip(st.pos, st.facing, strict=True)]
        plt.imsave(args.png, render_rgb(st.grid, colors, agents), format="png")
        print(f"wrote {args.png}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Keys without Enter and a frame redrawn in place at a terminal; from a pipe (stdin not
    a terminal), one command a line and the frames printed in turn."""
    from rich.console import Console

    from nesyworld.experiments.terminal_play import line_commands, play, terminal_keys
    from nesyworld.world import Recorder, World

    if args.record:  # before the game: a recording that cannot be saved would be lost
        output_file(args.record)
    world = World(args.spec, seed=args.seed)
    rec = Recorder(world, args.seed)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    keys = terminal_keys(sys.stdin) if interactive else line_commands(sys.stdin)
    try:
        play(world, keys, Console(), rec, live=interactive)
    except KeyboardInterrupt:
        print("interrupted")
    if args.record:
        rec.trajectory.save(args.record)
        print(f"trajectory saved to {args.record}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Replays the recorded novelties at their steps too, and says which: a user checking a
    novelty run should see that the novelty was part of what was verified."""
    from nesyworld.world import Trajectory, replay

    traj = Trajectory.load(args.trajectory)
    world = replay(traj)
    if args.render:
        print(draw(world))
    arrivals = "; ".join(
        f"'{r.novelty.name}' " + ("from the reset" if r.reset else f"after step {r.step}")
        for r in sorted(traj.injections, key=lambda r: (not r.reset, r.step)))
    novelties = f", re-applying novelt{'ies' if len(traj.injections) > 1 else 'y'} " \
        f"{arrivals}" if arrivals else ""
    print(f"replayed {len(traj.actions)} actions of {traj.spec} (seed {traj.seed}){novelties}: "
          f"every state matches the recording; goal reached: {plain(world.goal_reached())}")
    return 0
