"""The `nesyworld` command line. Each layer contributes its sub-commands from its own module;
this file only assembles them, so `nesyworld --help` lists everything in one place."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from nesyworld.world.errors import SpecError

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    from nesyworld.experiments import (
        cli_continual,
        cli_experiment,
        cli_lifelong,
        cli_matrix,
        cli_multiagent,
        cli_novelty,
        cli_run,
        cli_studio,
        cli_symbolic,
        cli_world,
    )

    parser = argparse.ArgumentParser(
        prog="nesyworld",
        description="Hybrid planning-and-learning agents in open worlds.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    cli_world.add_commands(sub)
    cli_run.add_commands(sub)
    cli_symbolic.add_commands(sub)
    cli_novelty.add_commands(sub)
    cli_experiment.add_commands(sub)
    cli_continual.add_commands(sub)
    cli_studio.add_commands(sub)
    cli_matrix.add_commands(sub)
    cli_lifelong.add_commands(sub)
    cli_multiagent.add_commands(sub)
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
