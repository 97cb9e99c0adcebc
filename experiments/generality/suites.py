"""Named suites of unseen novelties, each tied to the spec it changes.

A suite is a folder of novelty files plus the one shipped spec they were written for: a
novelty file says what changes but not which world it changes, and a pogostick novelty applied
to the birdhouse world is a spec error, not a case. So `nesyworld generality --suite NAME`
needs both, and this table is where they meet. The files are listed from their folder when
asked, so a novelty added to a suite's folder joins the suite with no code.

- `polycraft`: `domains/polycraft/suite/`, novelties of the pogostick task beyond the paper's
  (those stay in `domains/polycraft/novelties/`, the shipped set).
- `workshop`: `domains/workshop/novelties/`, the birdhouse task's own novelties.
- `minigrid`: `domains/minigrid/novelties.py`, wrapper classes on MiniGrid tasks, run by the
  hosted path (experiments/generality/hosted_case.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nesyworld.domains import DOMAINS_DIR, find_spec, shipped_novelties


@dataclass(frozen=True)
class Suite:
    """A folder of novelty files and the shipped spec they change."""

    name: str
    spec: str
    folder: Path
    description: str = ""
    module: str = ""
    """For an env that is not nesyworld's: the module whose NOVELTIES (gymnasium.Wrapper
    classes, each naming its `task`) are the suite; `spec` then only names the adapter."""

    def novelties(self) -> list[Path] | list[str]:
        """The suite's novelty files, sorted by name (the order the cases run in), or its
        novelty classes as `module:Class`, in the module's order."""
        if self.module:
            import importlib

            classes = importlib.import_module(self.module).NOVELTIES
            return [f"{self.module}:{c.__name__}" for c in classes]
        return sorted(self.folder.glob("*.yaml"))


SUITES: dict[str, Suite] = {
    "polycraft": Suite("polycraft", "pogostick", DOMAINS_DIR / "polycraft" / "suite",
                       "unseen novelties of the pogostick task, all eight SAIL-ON levels"),
    "workshop": Suite("workshop", "birdhouse", DOMAINS_DIR / "workshop" / "novelties",
                      "novelties of the birdhouse task, a second YAML-only domain"),
    "minigrid": Suite("minigrid", "minigrid", DOMAINS_DIR / "minigrid",
                      "MiniGrid novelties as gymnasium.Wrapper classes, on several MiniGrid "
                      "tasks (needs the minigrid extra)",
                      module="nesyworld.domains.minigrid.novelties"),
}


def get_suite(name: str) -> Suite:
    """The suite of that name; an unknown name is an error that lists the known ones."""
    try:
        return SUITES[name]
    except KeyError:
        raise KeyError(f"no novelty suite '{name}'; known: {', '.join(SUITES)}") from None


def domain_novelties(spec: str) -> list[str]:
    """The shipped novelties written for the domain of a shipped spec (the folder it lies in:
    `pogostick` -> polycraft's), by name. Novelties of another domain name types this spec
    lacks, so running them on it would only fail at loading. A spec given by a file path is
    placed by its folder the same way; one outside the shipped domains gets every shipped
    novelty, as before there were two domains with novelties."""
    path = Path(spec).resolve() if Path(spec).is_file() else find_spec(spec)
    found = shipped_novelties()
    if path is None or not path.is_relative_to(DOMAINS_DIR):
        return list(found)
    domain = path.relative_to(DOMAINS_DIR).parts[0]
    return [name for name, p in found.items() if p.parent.parent.name == domain]
