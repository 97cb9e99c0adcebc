"""The `nesyworld` command line. Each command group has its own module beside this one
(`world_commands`, `run_commands`, ...); this file only assembles them, so `nesyworld --help` lists
everything in one place, and holds the one error path every command shares (`report_error`):

* bad input, i.e. one of the project's error types (nesyworld.experiments.errors): one line
  ``nesyworld: error: <where>: <what>; expected <what>``, exit status 2;
* a file that cannot be read or written: ``nesyworld: error: <file>: <reason>``, status 2;
* anything else is a bug: one line naming it and pointing to ``--debug``, status 70
  (EX_SOFTWARE); ``nesyworld --debug ...`` also prints the traceback;
* Ctrl-C: status 130. argparse's own errors (a bad value, a mistyped option or name) are one
  line too, with the closest valid name and the command's ``--help``, status 2 (`Parser`).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from nesyworld.experiments.errors import is_user_error

Handler = Callable[[argparse.Namespace], int]


MODULES = ("world_commands", "run_commands", "symbolic_commands", "novelty_commands",
           "experiment_commands", "continual_commands", "studio_commands", "matrix_commands",
           "lifelong_commands", "multiagent_commands", "generality_commands",
           "adaptation_commands")
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
    "adaptation": "adaptation_commands",
}
"""Which group defines each command, so that running one builds only its group's parser
(some groups list shipped configs in their help, which costs a tenth of a second to read).
tests/experiments/test_cli.py checks it against the groups themselves."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose error is the CLI's one line: ``nesyworld: error: [COMMAND: ]
    <message> (see `nesyworld [COMMAND] --help`)``, without the usage (a command's usage is
    a screen long and hid the line that matters), on one line even when the message quotes
    an argument with a newline in it, and with the closest name when a choice or an option
    was mistyped. Sub-command parsers are made of the same class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands: dict[str, argparse.ArgumentParser] = {}
        """The sub-command parsers by name (the top-level parser's; build_parser fills
        it)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("nesyworld").strip()
        hint = did_you_mean(message, self)
        self.exit(EXIT_USAGE, f"nesyworld: error: {command + ': ' if command else ''}"
                              f"{printable(message)}{hint} (see `{self.prog} --help`)\n")


def did_you_mean(message: str, parser: argparse.ArgumentParser) -> str:
    """" (did you mean 'x'?)" for argparse's messages about a mistyped choice or option, when
    one of the valid ones is close; else ""."""
    choice = re.match(r"argument [^:]+: invalid choice: '(.*)' \(choose from (.*)\)$", message)
    if choice:
        typed, valid = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
    else:
        options = re.match(r"unrecognized arguments: (\S+)", message)
        if not options:
            return ""
        typed = options.group(1)
        valid = re.findall(r"--?[A-Za-z][\w-]*", parser.format_usage())
    close = difflib.get_close_matches(typed, valid, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def build_parser(command: str | None = None) -> Parser:
    """Every command's parser, or only the group of `command` when it names one."""
    import importlib

    parser = Parser(
        prog="nesyworld",
        description="Hybrid planning-and-learning agents in open worlds.",
    )
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error, print the traceback")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in (COMMANDS[command],) if command in COMMANDS else MODULES:
        importlib.import_module(f"nesyworld.experiments.cli.{name}").add_commands(sub)
    for command_parser in sub.choices.values():  # `nesyworld run --debug ...` works too
        command_parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                    help=argparse.SUPPRESS)
    parser.commands.update(sub.choices)
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


EXIT_USAGE, EXIT_SOFTWARE, EXIT_INTERRUPTED = 2, 70, 130
"""Exit statuses: bad input (as argparse's), an internal error (sysexits' EX_SOFTWARE), Ctrl-C."""
MESSAGE_CHARS = 300
"""How much of an internal error's message is shown: its exception can quote anything."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run `nesyworld ARGV`; the exit status. Never raises but SystemExit from a handler."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(next((w for w in words if not w.startswith("-")), None))
    try:
        args, extra = parser.parse_known_args(words)
        if extra:  # a mistyped option: the command's own error, with its own options
            owner = parser.commands.get(getattr(args, "command", ""), parser)
            owner.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as done:  # argparse printed help (0) or a usage error (2)
        return done.code if isinstance(done.code, int) else EXIT_USAGE
    if argv is None and getattr(args, "kernels", None) == "python" \
            and getattr(args, "planner", None) != "in-process":  # its search is a kernel too
        plain_python_kernels()
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("nesyworld: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `nesyworld specs --json | head`: the reader left; say nothing
        _silence_stdout(argv is None)
        return 0
    except Exception as err:  # the one error path: every command's failures end here
        return report_error(err, debug=args.debug)


def report_error(err: Exception, debug: bool = False) -> int:
    """Print `err` as one line on stderr (with the traceback first when `debug`); its exit
    status. See the module docstring for the three kinds."""
    if debug:
        import traceback

        traceback.print_exception(err, file=sys.stderr)
    if is_user_error(err):
        print(f"nesyworld: error: {first_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(err, OSError) and err.filename is not None:  # a file given or written
        reason = err.strerror or first_line(err)
        print(f"nesyworld: error: {printable(str(err.filename))}: {printable(reason)}",
              file=sys.stderr)
        return EXIT_USAGE
    message = first_line(err)[:MESSAGE_CHARS]
    print(f"nesyworld: internal error: {type(err).__name__}"
          + (f": {message}" if message else "")
          + ("" if debug else " (run again with --debug for the traceback)"), file=sys.stderr)
    return EXIT_SOFTWARE


def first_line(err: BaseException) -> str:
    """The first non-blank line of `err`'s message (PDDL errors add the source line and a
    caret below it), with control characters escaped."""
    lines = [line for line in str(err).splitlines() if line.strip()]
    return printable(lines[0].strip()) if lines else ""


def printable(text: str) -> str:
    """`text` with control characters (a newline in a file name) escaped, so it stays one
    line on a terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def _silence_stdout(program: bool) -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush does
    not complain; only when running as the program (never under a test's captured stdout)."""
    if program:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
