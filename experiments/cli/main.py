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


MODULES = ("world_commands", "run_commands", "symbolic_commands", "novelty_commands",
           "experiment_commands", "continual_commands", "studio_commands", "matrix_commands",
           "lifelong_commands", "multiagent_commands", "generality_commands")
"""The command groups, in the order `nesyworld --help` lists them."""

COMMANDS = {
    "specs": "world_commands", "classes": "world_commands", "check": "world_commands",
    "show": "world_commands", "play": "world_commands", "replay": "world_commands",
    "run": "run_commands", "pddl": "symbolic_commands", "plan": "symbolic_commands",
    "parse": "symbolic_commands", "graph": "symbolic_commands",
    "check-domain": "symbolic_commands", "novelties": "novelty_commands",
    "diff": "novelty_commands", "experiment": "experiment_commands",
    "report": "experiment_commands", "continual": "continual_commands",
    "studio": "studio_commands", "matrix": "matrix_commands", "lifelong": "lifelong_commands",
    "multiagent": "multiagent_commands", "generality": "generality_commands",
}
"""Which group defines each command, so that running one builds only its group's parser
(some groups list shipped configs in their help, which costs a tenth of a second to read).
tests/experiments/test_cli.py checks it against the groups themselves."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser, or only the group of `command` when it names one."""
    import importlib

    parser = argparse.ArgumentParser(
        prog="nesyworld",
        description="Hybrid planning-and-learning agents in open worlds.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in (COMMANDS[command],) if command in COMMANDS else MODULES:
        importlib.import_module(f"nesyworld.experiments.cli.{name}").add_commands(sub)
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
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(next((w for w in words if not w.startswith("-")), None))
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
