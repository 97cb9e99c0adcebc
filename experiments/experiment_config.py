"""Experiment configs: which (agent, novelty, seed) runs a sweep makes, under which budgets.

A config is a YAML file (shipped ones live in experiments/configs/ and can be named by their
stem, e.g. ``table2``):

    name: table2
    domain: pogostick
    agents: [rapidlearn+, rapidlearn, transfer_rl+icm, transfer_rl]
    novelties: [axe, chest, distance, fence, fire]
    seeds: 10            # a count (seeds 0..9) or an explicit list, e.g. [3, 7]
    workers: 4           # runs at a time (default: one per CPU)
    backend: local       # or ray
    protocol: {pre_steps: 4000000, post_steps: 1000000, ...}   # run_spec.ProtocolConfig

A sweep can take hours, so every mistake is caught at load time and reported as
file:line:column with what was expected, using the world layer's located YAML reader.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from nesyworld.experiments.run_spec import AGENTS, ProtocolConfig, RunSpec
from nesyworld.world.errors import SpecError

# The world layer's typed reader of located documents: every check below fails with the
# key's file:line:column, like a world spec's would.
from nesyworld.world.spec_loader import _Reader as Reader
from nesyworld.world.spec_loader import resolve_source
from nesyworld.world.yaml_source import KeyPath, SourceMap, load_yaml_file, load_yaml_text

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
Backend = Literal["local", "ray"]
BACKENDS: tuple[str, ...] = ("local", "ray")

TOP_KEYS = {
    "name": "the experiment's name (default: the file's stem)",
    "description": "free text",
    "domain": "a shipped world spec name or a spec file",
    "agents": "agent names",
    "novelties": "shipped novelty names or novelty files",
    "seeds": "a seed count or a list of seeds",
    "protocol": "the budgets of the four phases",
    "workers": "runs at a time",
    "backend": "local or ray",
}
REQUIRED = ("domain", "agents", "novelties", "seeds")
PROTOCOL_MINIMUM = {"epoch_steps": 1, "eval_episodes": 1, "eta": 1, "max_episode_steps": 1}
"""Protocol fields that make no sense at zero (others may be 0: no pre-novelty training)."""


@dataclass(frozen=True)
class ExperimentConfig:
    """A sweep: the grid agents x novelties x seeds on one domain, under one protocol."""

    name: str
    domain: str
    agents: tuple[str, ...]
    novelties: tuple[str, ...]
    seeds: tuple[int, ...]
    protocol: ProtocolConfig = field(default_factory=ProtocolConfig)
    workers: int | None = None
    """Runs at a time; None: one per CPU (local) or what the cluster offers (ray)."""
    backend: Backend = "local"
    source: str = ""
    """The file the config was read from, for records and messages."""

    def runs(self) -> list[RunSpec]:
        """Every run of the grid, novelty-major so that a partial sweep covers whole novelties
        for all agents first (the table's rows fill in together)."""
        return [RunSpec(agent, self.domain, novelty, seed, self.protocol)
                for novelty in self.novelties for agent in self.agents for seed in self.seeds]

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentConfig:
        """Inverse of `as_dict` (no validation: the dict came from a validated config)."""
        return cls(data["name"], data["domain"], tuple(data["agents"]),
                   tuple(data["novelties"]), tuple(int(s) for s in data["seeds"]),
                   ProtocolConfig(**data.get("protocol", {})), data.get("workers"),
                   data.get("backend", "local"), data.get("source", ""))


T = TypeVar("T")

CONFIG_KINDS = (("scenarios", "matrix"), ("tasks", "continual"))
"""The configs beside ours that other commands run, by the top-level key that marks them
(`nesyworld matrix`, `nesyworld continual`); every other file is a protocol experiment."""


def config_kind(path: Path) -> str:
    """'matrix', 'continual' or 'experiment': which command a config file is for."""
    text = "\n" + path.read_text(encoding="utf-8")
    return next((kind for key, kind in CONFIG_KINDS if f"\n{key}:" in text), "experiment")


def shipped_of_kind(kind: str) -> dict[str, Path]:
    """Shipped configs of one kind by name."""
    return {p.stem: p for p in sorted(CONFIGS_DIR.glob("*.yaml")) if config_kind(p) == kind}


def shipped_configs() -> dict[str, Path]:
    """Shipped experiment configs by name (not the matrix and continual configs beside them)."""
    return shipped_of_kind("experiment")


def read_top(rd: Reader, data: Any, keys: dict[str, str], required: tuple[str, ...],
             default_name: str) -> tuple[dict[str, Any], str]:
    """A config's top level, checked against `keys` and `required`, and its name (the file's
    stem unless given); the `description`, if any, must be text."""
    top = rd.mapping(data, (), keys)
    for key in required:
        if key not in top:
            raise rd.fail((), f"missing key '{key}'", expected=keys[key])
    name = rd.string(top["name"], ("name",)) if "name" in top else default_name
    if "description" in top:
        rd.string(top["description"], ("description",))
    return top, name


def load_config(source: str | Path, kind: str, listing: str, build: Callable[..., T],
                default_name: str) -> T:
    """A config of `kind` from a file path, a shipped config's name, or YAML text, built by
    `build(data, smap, default_name=..., base=...)`; relative files resolve from `base`."""
    shipped = shipped_of_kind(kind)
    path = resolve_source(source, shipped.get, f"{kind} config",
                          f"{listing} (" + ", ".join(shipped) + ")")
    if path is not None:
        data, smap = load_yaml_file(path)
        return build(data, smap, default_name=path.stem, base=path.parent)
    data, smap = load_yaml_text(str(source), "<string>")
    return build(data, smap, default_name=default_name, base=Path.cwd())


def find_config(name: str) -> Path | None:
    return shipped_configs().get(name)


def load_experiment(source: str | Path) -> ExperimentConfig:
    """A config from a file path, a shipped config name, or YAML text."""
    return load_config(source, "experiment", "the shipped configs", build_experiment,
                       "experiment")


def build_experiment(data: Any, smap: SourceMap, *, default_name: str = "experiment",
                     base: Path | None = None) -> ExperimentConfig:
    """Validate a loaded document; `base` is where relative domain/novelty files are found."""
    rd = Reader(smap)
    base = base or Path.cwd()
    top, name = read_top(rd, data, TOP_KEYS, REQUIRED, default_name)
    domain = _domain(rd, top["domain"], base)
    agents = _names(rd, top["agents"], ("agents",), "agent")
    for i, agent in enumerate(agents):
        if agent not in AGENTS:
            raise rd.fail(("agents", i), f"unknown agent '{agent}'", found=agent,
                          expected="one of " + ", ".join(AGENTS))
    novelties = tuple(_novelty(rd, n, ("novelties", i), base) for i, n in
                      enumerate(_names(rd, top["novelties"], ("novelties",), "novelty")))
    workers = None
    if top.get("workers") is not None:
        workers = rd.integer(top["workers"], ("workers",), minimum=1)
    backend = rd.string(top.get("backend", "local"), ("backend",))
    if backend not in BACKENDS:
        raise rd.fail(("backend",), f"unknown backend '{backend}'", found=backend,
                      expected="one of " + ", ".join(BACKENDS))
    return ExperimentConfig(name, domain, agents, novelties, read_seeds(rd, top["seeds"]),
                            _protocol(rd, top.get("protocol")), workers, backend, smap.file)


def _names(rd: Reader, value: Any, path: KeyPath, what: str) -> tuple[str, ...]:
    """A non-empty list of distinct names (a single name is accepted as a list of one)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise rd.fail(path, "wrong type", found=value, expected=f"a non-empty list of {what} "
                      "names")
    names = tuple(rd.string(v, path if isinstance(value, str) else (*path, i))
                  for i, v in enumerate(items))
    for i, n in enumerate(names):
        if n in names[:i]:
            raise rd.fail((*path, i), f"{what} '{n}' listed twice", found=n,
                          expected=f"each {what} once")
    return names


def read_seeds(rd: Reader, value: Any) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return tuple(range(rd.integer(value, ("seeds",), minimum=1)))
    if not isinstance(value, list) or not value:
        raise rd.fail(("seeds",), "wrong type", found=value,
                      expected="a seed count (seeds 0..n-1) or a non-empty list of seeds")
    seeds = tuple(rd.integer(s, ("seeds", i)) for i, s in enumerate(value))
    for i, s in enumerate(seeds):
        if s in seeds[:i]:
            raise rd.fail(("seeds", i), f"seed {s} listed twice", found=s,
                          expected="distinct seeds")
    return seeds


def _protocol(rd: Reader, value: Any) -> ProtocolConfig:
    fields = {f.name: f for f in dataclasses.fields(ProtocolConfig)}
    raw = rd.mapping(value, ("protocol",), {k: "" for k in fields}, nullable=True)
    values: dict[str, Any] = {}
    for key, v in raw.items():
        path = ("protocol", key)
        kind = str(fields[key].type)
        if kind == "int":
            values[key] = rd.integer(v, path, minimum=PROTOCOL_MINIMUM.get(key, 0))
        elif kind == "float":
            values[key] = rd.number(v, path)
        elif kind == "str":
            values[key] = "" if v is None else rd.string(v, path)
        elif kind == "bool":
            values[key] = rd.boolean(v, path)
        else:
            values[key] = v
    threshold = values.get("success_threshold")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise rd.fail(("protocol", "success_threshold"), "value out of range",
                      found=threshold, expected="a success rate between 0 and 1")
    return ProtocolConfig(**values)


def _domain(rd: Reader, value: Any, base: Path) -> str:
    from nesyworld.domains import find_spec, shipped_specs

    name = rd.string(value, ("domain",))
    if find_spec(name) is not None:
        return name
    found = _file(name, base)
    if found is None:
        raise rd.fail(("domain",), f"unknown domain '{name}'", found=name,
                      expected="a shipped spec (" + ", ".join(shipped_specs()) + ") or a spec "
                      "file")
    return found


def _novelty(rd: Reader, name: str, path: KeyPath, base: Path) -> str:
    from nesyworld.domains import find_novelty

    if find_novelty(name) is not None:
        return name
    found = _file(name, base)
    if found is None:
        raise rd.fail(path, f"unknown novelty '{name}'", found=name,
                      expected="a shipped novelty (see `nesyworld novelties`) or a novelty "
                      "file")
    return found


def _file(name: str, base: Path) -> str | None:
    """A file named relative to the config (or the working directory), as an absolute path so
    that workers started elsewhere find it too."""
    for candidate in (base / name, Path(name)):
        if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
            return str(candidate.resolve())
    return None


__all__ = ["BACKENDS", "ExperimentConfig", "SpecError", "build_experiment", "find_config",
           "load_experiment", "shipped_configs"]
