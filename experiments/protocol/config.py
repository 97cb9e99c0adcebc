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
    protocol: paper      # NovelGym's protocol; or a mapping of records.ProtocolConfig fields

A sweep can take hours, so every mistake is caught at load time and reported as
file:line:column with what was expected, using the world layer's located YAML reader.
"""

from __future__ import annotations

import dataclasses
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from nesyworld.experiments.config_files import shipped_of_kind
from nesyworld.experiments.config_reading import (
    MAX_EPISODES,
    MAX_TEXT,
    MAX_WORKERS,
    load_config,
    read_count,
    read_domain,
    read_names,
    read_novelty,
    read_seeds,
    read_top,
)
from nesyworld.experiments.protocol.records import (
    AGENTS,
    PAPER_PROTOCOL,
    ProtocolConfig,
    RunSpec,
)
from nesyworld.hybrid.knowledge.options import KNOWLEDGE_REGIMES, REFUSAL_MODES
from nesyworld.world.errors import SpecError, shown

# The world layer's typed reader of located documents: every check below fails with the
# key's file:line:column, like a world spec's would.
from nesyworld.world.spec.reader import SpecReader as Reader
from nesyworld.world.spec.yaml_source import SourceMap

Backend = Literal["local", "ray"]
BACKENDS: tuple[Backend, ...] = ("local", "ray")

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
    "knowledge": "what the hybrid agents may know: closed (the default) or oracle",
    "refusals": "whether the env says why it refused: explained (the default) or silent",
}
REQUIRED = ("domain", "agents", "novelties", "seeds")
PROTOCOL_MINIMUM = {"epoch_steps": 1, "eval_episodes": 1, "eta": 1, "max_episode_steps": 1,
                    "pre_stop_epochs": 1}
"""Protocol fields that make no sense at zero (others may be 0: no pre-novelty training)."""
PROTOCOL_MAXIMUM = {"eval_episodes": MAX_EPISODES, "post_eval_episodes": MAX_EPISODES,
                    "eta": 10_000, "nu": 10_000, "pre_stop_epochs": 10_000}
"""Protocol fields with a tighter bound than an int32's (the step budgets): episode counts
and convergence windows far beyond any study."""
TEMPLATE_FIELDS = ("agent", "seed")
"""What `protocol.pretrained` may name in braces (experiments/protocol/pretraining.py)."""


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
    knowledge: str = "closed"
    """What the hybrid agents may know of the changed world (docs/KNOWLEDGE.md)."""
    refusals: str = "explained"
    """Whether the env says why it refused an action (docs/KNOWLEDGE.md)."""

    def runs(self) -> list[RunSpec]:
        """Every run of the grid, novelty-major so that a partial sweep covers whole novelties
        for all agents first (the table's rows fill in together)."""
        return [RunSpec(agent, self.domain, novelty, seed, self.protocol, self.knowledge,
                        self.refusals)
                for novelty in self.novelties for agent in self.agents for seed in self.seeds]

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentConfig:
        """Inverse of `as_dict` (no validation: the dict came from a validated config)."""
        return cls(data["name"], data["domain"], tuple(data["agents"]),
                   tuple(data["novelties"]), tuple(int(s) for s in data["seeds"]),
                   ProtocolConfig(**data.get("protocol", {})), data.get("workers"),
                   data.get("backend", "local"), data.get("source", ""),
                   data.get("knowledge", "closed"), data.get("refusals", "explained"))


def shipped_configs() -> dict[str, Path]:
    """Shipped experiment configs by name (not the matrix and continual configs beside them)."""
    return shipped_of_kind("experiment")


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
    domain = read_domain(rd, top["domain"], base)
    agents = read_names(rd, top["agents"], ("agents",), "agent")
    for i, agent in enumerate(agents):
        if agent not in AGENTS:
            raise rd.fail(("agents", i), f"unknown agent '{agent}'", found=agent,
                          expected="one of " + ", ".join(AGENTS))
    novelties = tuple(read_novelty(rd, n, ("novelties", i), base) for i, n in
                      enumerate(read_names(rd, top["novelties"], ("novelties",), "novelty")))
    workers = None
    if top.get("workers") is not None:
        workers = read_count(rd, top["workers"], ("workers",), 1, MAX_WORKERS)
    backend = rd.string(top.get("backend", "local"), ("backend",))
    if backend not in BACKENDS:
        raise rd.fail(("backend",), f"unknown backend '{backend}'", found=backend,
                      expected="one of " + ", ".join(BACKENDS))
    regime = {}
    for key, allowed in (("knowledge", KNOWLEDGE_REGIMES), ("refusals", REFUSAL_MODES)):
        regime[key] = rd.string(top.get(key, allowed[0]), (key,))
        if regime[key] not in allowed:
            raise rd.fail((key,), f"unknown {key} {shown(regime[key])}", found=regime[key],
                          expected="one of " + ", ".join(allowed))
    return ExperimentConfig(name, domain, agents, novelties, read_seeds(rd, top["seeds"]),
                            _protocol(rd, top.get("protocol")), workers, backend, smap.file,
                            regime["knowledge"], regime["refusals"])


def _template(rd: Reader, value: Any, path: tuple[str, ...]) -> str:
    """`protocol.pretrained`: a file name with `{agent}` and `{seed}` filled in per run, so a
    brace it cannot fill fails here rather than hours into a sweep."""
    text = rd.string(value, path)
    expected = ("a file name (at most " f"{MAX_TEXT} characters) with {{agent}} and {{seed}}, "
                "e.g. results/pretrained/{agent}_{seed}.pt")
    if len(text) > MAX_TEXT or not text.isprintable():
        raise rd.fail(path, "invalid file name", found=text, expected=expected)
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
        unknown = [f for f in fields if f not in TEMPLATE_FIELDS]
        if not unknown:
            text.format(agent="agent", seed=0)
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):
        raise rd.fail(path, "invalid file name template", found=text,
                      expected=expected) from None
    if unknown:
        raise rd.fail(path, f"unknown template field {{{shown(unknown[0])}}}", found=text,
                      expected=expected)
    return text


def _protocol(rd: Reader, value: Any) -> ProtocolConfig:
    """`protocol: paper` (NovelGym's, records.PAPER_PROTOCOL), or a mapping of fields; a
    mapping's `name` is "paper" only when the paper's fields keep its values, and without a
    name it is "paper" when they do and "custom" otherwise."""
    if isinstance(value, str):
        if value != "paper":
            raise rd.fail(("protocol",), f"unknown protocol '{value}'", found=value,
                          expected="paper, or a mapping of protocol fields")
        return PAPER_PROTOCOL
    fields = {f.name: f for f in dataclasses.fields(ProtocolConfig)}
    raw = rd.mapping(value, ("protocol",), {k: "" for k in fields}, nullable=True)
    values: dict[str, Any] = {}
    for key, v in raw.items():
        path = ("protocol", key)
        kind = str(fields[key].type)
        if kind == "int":
            values[key] = rd.integer(v, path, minimum=PROTOCOL_MINIMUM.get(key, 0),
                                     **({"maximum": PROTOCOL_MAXIMUM[key]}
                                        if key in PROTOCOL_MAXIMUM else {}))
        elif kind == "float":
            values[key] = rd.number(v, path)
        elif kind == "float | None":
            values[key] = None if v is None else rd.number(v, path)
        elif key == "pretrained":
            values[key] = "" if v is None else _template(rd, v, path)
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
    if values.get("pre_stop_reward") is not None and values.get("pre_full_budget", True):
        raise rd.fail(("protocol", "pre_stop_reward"), "an early stop of a full pre-training",
                      found=values["pre_stop_reward"],
                      expected="pre_full_budget: false beside it, or no pre_stop_reward")
    try:  # ProtocolConfig checks the name, and that "paper" keeps the paper's values
        return ProtocolConfig(**values)
    except ValueError as err:
        raise rd.fail(("protocol", "name"), str(err), found=values.get("name", ""),
                      expected="paper (with the paper's values), light or custom") from None


__all__ = ["BACKENDS", "ExperimentConfig", "SpecError", "build_experiment", "find_config",
           "load_experiment", "shipped_configs"]
