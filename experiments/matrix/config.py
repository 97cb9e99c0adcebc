"""Novelty x scenario matrix configs: which scenarios, novelties, agents and seeds to cross.

NovPhy (Gamage et al.) applies every novelty to every physical scenario, because a novelty
that looks harmless on one task can break another; the matrix does the same for our tasks.
A config is a YAML file (a shipped one lives in experiments/configs/, named by its stem):

    name: matrix
    scenarios: [pogostick, pogostick_tap, pogostick_diamond_block]   # shipped specs or files
    novelties: [axe, fence, fire, multi_room]    # each also run against the no-novelty baseline
    agents: [planning]                           # planning, random
    seeds: 2                                     # a count or a list
    episodes: 3                                  # episodes per (scenario, novelty, agent, seed)
    mode: macro                                  # the planning agent's execution mode
    observation: {noise: 0.1}                    # optional: noisy observations for every run

Every mistake is reported at load time as file:line:column with what was expected.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nesyworld.experiments.config_files import shipped_of_kind
from nesyworld.experiments.config_reading import (
    MAX_EPISODES,
    config_file,
    load_config,
    lookup,
    read_count,
    read_names,
    read_novelty,
    read_seeds,
    read_top,
)
from nesyworld.world.spec.observation import parse_observation
from nesyworld.world.spec.reader import SpecReader as Reader
from nesyworld.world.spec.yaml_source import SourceMap

if TYPE_CHECKING:
    from nesyworld.hybrid.execution.skills import Mode

MATRIX_AGENTS = ("planning", "random")
"""Agents cheap enough to fill a matrix (each cell is several whole episodes)."""
MODES: tuple[Mode, ...] = ("macro", "primitive")
BASELINE = "none"
"""The column of runs without any novelty."""

TOP_KEYS = {
    "name": "the matrix's name (default: the file's stem)",
    "description": "free text",
    "scenarios": "shipped spec names or spec files (the rows)",
    "novelties": "shipped novelty names or novelty files (the columns)",
    "agents": "agent names: " + ", ".join(MATRIX_AGENTS),
    "seeds": "a seed count or a list of seeds",
    "episodes": "episodes per cell and seed",
    "mode": "the planning agent's execution mode: " + ", ".join(MODES),
    "observation": "how the agents perceive the worlds: {noise: 0..1}",
}
REQUIRED = ("scenarios", "novelties", "agents", "seeds")


@dataclass(frozen=True)
class MatrixConfig:
    """Every scenario x (baseline + every novelty) x agent x seed, `episodes` episodes each."""

    name: str
    scenarios: tuple[str, ...]
    novelties: tuple[str, ...]
    agents: tuple[str, ...]
    seeds: tuple[int, ...]
    episodes: int = 3
    mode: Mode = "macro"
    noise: float = 0.0
    source: str = ""

    @property
    def columns(self) -> tuple[str, ...]:
        return (BASELINE, *self.novelties)

    def cells(self) -> list[tuple[str, str, str, int]]:
        """(agent, scenario, novelty, seed) of every run, scenario-major so a partial run
        fills whole rows first."""
        return [(a, s, n, seed) for s in self.scenarios for n in self.columns
                for a in self.agents for seed in self.seeds]

    def settings(self) -> dict[str, Any]:
        """What makes a recorded cell reusable: a result made under other settings is redone."""
        return {"episodes": self.episodes, "mode": self.mode, "noise": self.noise}

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def shipped_matrices() -> dict[str, Path]:
    """Shipped configs that are matrices (they have `scenarios:`), by name."""
    return shipped_of_kind("matrix")


def load_matrix(source: str | Path) -> MatrixConfig:
    """A matrix config from a file path, a shipped config's name, or YAML text."""
    return load_config(source, "matrix", "the shipped matrices", build_matrix, "matrix")


def build_matrix(data: Any, smap: SourceMap, *, default_name: str = "matrix",
                 base: Path | None = None) -> MatrixConfig:
    """Validate a loaded document; `base` is where relative spec/novelty files are found."""
    rd = Reader(smap)
    base = base or Path.cwd()
    top, name = read_top(rd, data, TOP_KEYS, tuple(REQUIRED), default_name)
    scenarios = tuple(_scenario(rd, s, ("scenarios", i), base) for i, s in
                      enumerate(read_names(rd, top["scenarios"], ("scenarios",), "scenario")))
    novelties = read_names(rd, top["novelties"], ("novelties",), "novelty")
    for i, n in enumerate(novelties):
        if n == BASELINE:
            raise rd.fail(("novelties", i), f"'{BASELINE}' is the baseline column, always run",
                          found=n, expected="a novelty name")
    novelties = tuple(read_novelty(rd, n, ("novelties", i), base) for i, n in enumerate(novelties))
    agents = read_names(rd, top["agents"], ("agents",), "agent")
    for i, agent in enumerate(agents):
        if agent not in MATRIX_AGENTS:
            raise rd.fail(("agents", i), f"unknown agent '{agent}'", found=agent,
                          expected="one of " + ", ".join(MATRIX_AGENTS))
    mode = rd.string(top.get("mode", "macro"), ("mode",))
    if mode not in MODES:
        raise rd.fail(("mode",), f"unknown mode '{mode}'", found=mode,
                      expected="one of " + ", ".join(MODES))
    episodes = read_count(rd, top.get("episodes", 3), ("episodes",), 1, MAX_EPISODES)
    noise = parse_observation(rd, top.get("observation")).noise
    return MatrixConfig(name, scenarios, novelties, agents, read_seeds(rd, top["seeds"]),
                        episodes, mode, noise, smap.file)


def _scenario(rd: Reader, name: str, path: tuple[Any, ...], base: Path) -> str:
    from nesyworld.domains import find_spec, shipped_specs

    if lookup(find_spec, name) is not None:
        return name
    found = config_file(name, base)
    if found is None:
        raise rd.fail(path, f"unknown scenario '{name}'", found=name,
                      expected="a shipped spec (" + ", ".join(shipped_specs()) + ") or a spec "
                      "file")
    return found
