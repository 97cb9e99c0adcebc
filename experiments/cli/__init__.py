"""The `nesyworld` command line: the entry point and one module per command group."""

from nesyworld.experiments.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
