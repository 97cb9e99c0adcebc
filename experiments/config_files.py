"""Which shipped config files there are, and which command each is for, without reading
them as configs: `nesyworld --help` lists them, and importing the config readers (the spec
loader and YAML with them) cost its start a tenth of a second. The readers themselves are in
config_reading.py."""

from __future__ import annotations

from pathlib import Path

from nesyworld.world.input_files import read_regular

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
"""The shipped configs of every kind (named by their stem on the command line)."""

MAX_CONFIG_BYTES = 2_000_000
"""What is read to tell a config's kind: a YAML file's cap (world/spec/bounds.py)."""
CONFIG_KINDS = (("scenarios", "matrix"), ("tasks", "continual"))
"""The configs beside ours that other commands run, by the top-level key that marks them
(`nesyworld matrix`, `nesyworld continual`); every other file is a protocol experiment."""


def config_kind(path: Path) -> str:
    """'matrix', 'continual' or 'experiment': which command a config file is for (a file
    that cannot be read is left to the experiment loader to refuse, located)."""
    try:  # a FIFO or a device is refused unopened (input_files.py)
        text = "\n" + read_regular(path, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return "experiment"
    return next((kind for key, kind in CONFIG_KINDS if f"\n{key}:" in text), "experiment")


def shipped_of_kind(kind: str) -> dict[str, Path]:
    """Shipped configs of one kind by name."""
    return {p.stem: p for p in sorted(CONFIGS_DIR.glob("*.yaml")) if config_kind(p) == kind}
