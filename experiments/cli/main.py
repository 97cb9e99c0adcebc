"""The `nesyworld` command line. Each command group has its own module beside this one
(`world_commands`, `run_commands`, ...); this file only assembles them, so `nesyworld --help` lists
everything in one place."""

from __future__ import annotations

import argparse
import os
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


def plain_python_kernels() -> None:
    """Run the simulator's kernels as plain Python (``NESYWORLD_NUMBA=0``) in this process,
    unless the user chose or the kernels are loaded already.

    For the symbolic commands (`kernels="python"` in their defaults), which step a world a few
    times at most: numba's import and cache loads take longer and 100 MB more than the steps
    save, and the results are identical (see nesyworld.world.kernels). Only done when `main`
    runs as the program, since the switch holds for the whole process."""
    if "NESYWORLD_NUMBA" not in os.environ and "nesyworld.world.kernels.jit" not in sys.modules:
        os.environ["NESYWORLD_NUMBA"] = "0"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None and getattr(args, "kernels", None) == "python" \
            and getattr(args, "planner", None) != "in-process":  # its search is a kernel too
        plain_python_kernels()
    try:
        return int(args.handler(args) or 0)
    except SpecError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # a file named on the command line is missing or unreadable
        if err.filename is None:  # not about a named file: a failure to show in full
            raise
        print(f"error: {err.filename}: {err.strerror or err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
