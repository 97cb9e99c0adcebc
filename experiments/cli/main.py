"""The `nesyworld` command line. Each command group has its own module beside this one
(`world_commands`, `run_commands`, ...); this file only assembles them, so `nesyworld --help` lists
everything in one place."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from nesyworld.world.errors import SpecError

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    from nesyworld.experiments.cli import (
        continual_commands,
        experiment_commands,
        generality_commands,
        lifelong_commands,
        matrix_commands,
        multiagent_commands,
        novelty_commands,
        run_commands,
        studio_commands,
        symbolic_commands,
        world_commands,
    )

    parser = argparse.ArgumentParser(
        prog="nesyworld",
        description="Hybrid planning-and-learning agents in open worlds.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    world_commands.add_commands(sub)
    run_commands.add_commands(sub)
    symbolic_commands.add_commands(sub)
    novelty_commands.add_commands(sub)
    experiment_commands.add_commands(sub)
    continual_commands.add_commands(sub)
    studio_commands.add_commands(sub)
    matrix_commands.add_commands(sub)
    lifelong_commands.add_commands(sub)
    multiagent_commands.add_commands(sub)
    generality_commands.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except SpecError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
