"""Continual configs: an ordered sequence of tasks one agent meets one after another.

A config is a YAML file (shipped ones live in experiments/configs/, named by their stem):

    name: continual
    tasks:                      # in the order the agent meets them
      - continual_log           # a shipped spec, or a spec file relative to this config
      - {spec: continual_diamond, budget: 6000, name: diamond}
    agent: rl                   # rl (PPO) or rl+icm, the RL baselines of nesyworld.hybrid
    budget: 4000                # training env steps per task (a task may say otherwise)
    eval_episodes: 10           # per task, after every stage
    seeds: 2                    # a count (0..n-1) or a list
    train: {num_envs: 4, epoch_length: 1000, collect_chunk: 500, lr: 0.0003}

Every task must give the agent the same observation and action spaces (same slot and action
names): one policy is carried through the sequence, and it is evaluated on every task after
each stage. Mistakes are reported as file:line:column with what was expected, by the same
located reader as experiment configs and world specs, before any training starts.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.experiments.config_files import shipped_of_kind
from nesyworld.experiments.config_reading import (
    MAX_EPISODES,
    config_file,
    load_config,
    lookup,
    read_count,
    read_label,
    read_seeds,
    read_top,
)
from nesyworld.world.errors import SpecError
from nesyworld.world.spec.bounds import MAX_INT32
from nesyworld.world.spec.reader import SpecReader as Reader
from nesyworld.world.spec.yaml_source import KeyPath, SourceMap

AGENTS: tuple[str, ...] = ("rl", "rl+icm")
TOP_KEYS = {
    "name": "the sequence's name (default: the file's stem)",
    "description": "free text",
    "tasks": "a non-empty list of tasks: spec names/files, or {spec, name, budget}",
    "agent": "one of " + ", ".join(AGENTS),
    "budget": "training env steps per task (0 or more)",
    "eval_episodes": "evaluation episodes per task after every stage (1 or more)",
    "seeds": "a seed count or a list of seeds",
    "train": "training settings: num_envs, epoch_length, collect_chunk, lr",
}
TASK_KEYS = {"spec": "a shipped spec or a spec file", "name": "the task's label",
             "budget": "training env steps on this task"}
TRAIN_KEYS = {"num_envs": (1, 256), "epoch_length": (1, MAX_INT32),
              "collect_chunk": (1, 1_000_000)}
"""Integer training settings and their range (a rollout buffer holds num_envs x
collect_chunk steps); `lr`, a number in (0, MAX_LR], is the other one."""
MAX_LR = 10.0
MAX_TASKS = 64
"""Tasks of one sequence: each is built as an env at load time to compare its spaces."""
MAX_BUDGET = MAX_INT32


@dataclass(frozen=True)
class Task:
    """One task of the sequence: a world spec (shipped name or absolute path) and its budget."""

    name: str
    spec: str
    budget: int


@dataclass(frozen=True)
class ContinualTrainingConfig:
    """The part of the RL training routine a continual config may set."""

    num_envs: int = 4
    epoch_length: int = 1000
    collect_chunk: int = 500
    lr: float = 3e-4


@dataclass(frozen=True)
class ContinualConfig:
    """A task sequence, the agent that meets it, and the evaluation budget."""

    name: str
    tasks: tuple[Task, ...]
    agent: str = "rl"
    eval_episodes: int = 10
    seeds: tuple[int, ...] = (0,)
    train: ContinualTrainingConfig = field(default_factory=ContinualTrainingConfig)
    source: str = ""
    """The file the config was read from, for messages (not part of the fingerprint)."""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def fingerprint(self) -> str:
        """What a resumed run must match: everything that changes the numbers."""
        data = self.as_dict()
        data.pop("source")
        return json.dumps(data, sort_keys=True)


def shipped_continual_configs() -> dict[str, Path]:
    """Shipped continual configs by name: those with a `tasks` list."""
    return shipped_of_kind("continual")


def load_continual(source: str | Path) -> ContinualConfig:
    """A config from a file path, a shipped config name, or YAML text."""
    return load_config(source, "continual", "the shipped continual configs", build_continual,
                       "continual")


def build_continual(data: Any, smap: SourceMap, *, default_name: str = "continual",
                    base: Path | None = None) -> ContinualConfig:
    """Validate a loaded document; `base` is where relative spec files are found."""
    rd = Reader(smap)
    base = base or Path.cwd()
    top, name = read_top(rd, data, TOP_KEYS, ("tasks",), default_name)
    budget = read_count(rd, top.get("budget", 4000), ("budget",), 0, MAX_BUDGET)
    tasks = _tasks(rd, top["tasks"], budget, base)
    agent = rd.string(top.get("agent", "rl"), ("agent",))
    if agent not in AGENTS:
        raise rd.fail(("agent",), f"unknown agent '{agent}'", found=agent,
                      expected="one of " + ", ".join(AGENTS))
    episodes = read_count(rd, top.get("eval_episodes", 10), ("eval_episodes",), 1,
                          MAX_EPISODES)
    config = ContinualConfig(name, tasks, agent, episodes, read_seeds(rd, top.get("seeds", 1)),
                             _train(rd, top.get("train")), smap.file)
    _check_spaces(rd, config)
    return config


def _tasks(rd: Reader, value: Any, budget: int, base: Path) -> tuple[Task, ...]:
    if not isinstance(value, list) or not value:
        raise rd.fail(("tasks",), "empty task sequence" if value in ([], None) else "wrong type",
                      found=value, expected=TOP_KEYS["tasks"])
    if len(value) > MAX_TASKS:
        raise rd.fail(("tasks",), "too many tasks", found=len(value),
                      expected=f"at most {MAX_TASKS}")
    tasks: list[Task] = []
    for i, item in enumerate(value):
        path: KeyPath = ("tasks", i)
        entry = {"spec": item} if isinstance(item, str) else rd.mapping(item, path, TASK_KEYS)
        if "spec" not in entry:
            raise rd.fail(path, "missing key 'spec'", expected=TASK_KEYS["spec"])
        spec_path = path if isinstance(item, str) else (*path, "spec")
        spec = _spec(rd, entry["spec"], spec_path, base)
        label = (read_label(rd, entry["name"], (*path, "name")) if "name" in entry
                 else Path(str(entry["spec"])).stem)
        own = (read_count(rd, entry["budget"], (*path, "budget"), 0, MAX_BUDGET)
               if "budget" in entry else budget)
        if any(t.name == label for t in tasks):
            raise rd.fail(path, f"task '{label}' listed twice", found=label,
                          expected="distinct task names (give a repeated spec a `name`)")
        tasks.append(Task(label, spec, own))
    return tuple(tasks)


def _spec(rd: Reader, value: Any, path: KeyPath, base: Path) -> str:
    from nesyworld.domains import find_spec, shipped_specs

    name = read_label(rd, value, path)
    if lookup(find_spec, name) is not None:
        return name
    found = config_file(name, base)
    if found is not None:
        return found
    raise rd.fail(path, f"unknown task '{name}'", found=name,
                  expected="a shipped spec (" + ", ".join(shipped_specs()) + ") or a spec file")


def _train(rd: Reader, value: Any) -> ContinualTrainingConfig:
    raw = rd.mapping(value, ("train",), {**{k: "" for k in TRAIN_KEYS}, "lr": ""},
                     nullable=True)
    values: dict[str, Any] = {}
    for key, v in raw.items():
        if key == "lr":
            values[key] = rd.number(v, ("train", key))
            if not 0 < values[key] <= MAX_LR:
                raise rd.fail(("train", key), "value out of range", found=v,
                              expected=f"a positive learning rate up to {MAX_LR:g}")
        else:
            values[key] = read_count(rd, v, ("train", key), *TRAIN_KEYS[key])
    return ContinualTrainingConfig(**values)


def _check_spaces(rd: Reader, config: ContinualConfig) -> None:
    """Every task must name the same observation slots and actions as the first: the policy
    is carried from task to task and evaluated on all of them."""
    from nesyworld.world.envs import NesyGridEnv

    first: Any = None
    for i, task in enumerate(config.tasks):
        try:
            names = _spaces(NesyGridEnv(task.spec))
        except SpecError as err:
            raise rd.fail(("tasks", i), f"task '{task.name}': its spec does not load ({err})",
                          found=task.spec, expected="a valid world spec") from err
        if first is None:
            first = names
        elif names[:-1] != first[:-1] and not _same_names(first[-1], names[-1]):
            raise rd.fail(("tasks", i), f"task '{task.name}' has other observation or action "
                          f"spaces than task '{config.tasks[0].name}'", found=task.spec,
                          expected="specs with the same entity types and actions (vary the "
                          "goal or the map, e.g. with `extends:`)")


def _spaces(env: Any) -> tuple[Any, ...]:
    """What the observation slots' and actions' names are made of: the type names, the
    action names, the observation config and space, and the env (for `_same_names`). Equal
    parts give equal names, and comparing them needs no torch, so a config loads fast."""
    inner = env.unwrapped
    return (tuple(inner.world.types.names), tuple(inner.action_names), inner.config,
            inner.observation_space, env)


def _same_names(first: Any, other: Any) -> bool:
    """The exact test, when the parts differ: the slot and action names the transfer code
    uses (it imports torch, hence only here)."""
    from nesyworld.hybrid.baselines.transfer import space_names

    return bool(space_names(first) == space_names(other))


__all__ = [
    "AGENTS",
    "ContinualConfig",
    "ContinualTrainingConfig",
    "Task",
    "build_continual",
    "load_continual",
    "shipped_continual_configs",
]
