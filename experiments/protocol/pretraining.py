"""RL pre-training once per (agent, seed), shared by every novelty of a sweep.

The paper pre-trains its RL agents for 4M env steps (sections 6 and 7) and measures every
novelty from the pre-trained policy. It does not say whether its ten seeds share one
pre-training; NovelGym's code fine-tunes from whichever file its `--checkpoint` names, and its
seed only names a run's log folder. Here each (agent, seed) pre-trains its own, so ten seeds
are ten samples of the whole baseline, pre-training included: on Fire the runs fine-tuned from
one checkpoint mostly ended alike (docs/EXPERIMENTS.md, "One pre-training or ten"). The first run
of a pair to start pre-trains and saves the checkpoint, and every later run of that pair loads
it and only evaluates it before the novelty (a sweep takes those runs first: scheduling.py).
`protocol.pretrained` names the file, e.g. `results/pretrained/{agent}_{seed}.pt`; a template
without `{seed}` makes every seed share one file, pre-trained by the first run with its seed.

An exclusive lock on `<file>.lock` is held while a run decides and, if needed, pre-trains. A
second worker that reaches the same pair waits for the checkpoint instead of training it
again. The lock is `fcntl.flock`, and it also works across hosts on a shared POSIX
filesystem. Where `fcntl` is missing (Windows), runs do not wait, and two of them may
pre-train the same pair; the second save then replaces the first.
`RLAgent.save` writes through `save_checkpoint`, which renames a finished temporary file
into place, so a killed run never leaves a half-written checkpoint for the next to load.

A pre-training can outlast a session: 4M env steps are about half an hour to an hour of one
core. Every `PROGRESS_EVERY` epochs the run saves where it stands beside the checkpoint
(`<file>.partial.pt`, the agent's weights and optimiser, and `<file>.partial.json`, the
counters and the curve so far), and the next run of the pair resumes from there instead of
starting over. The resumed run continues with the saved weights, optimiser moments, counters
and maps, and every learn call seeds its own random streams, so it ends with the checkpoint an
uninterrupted pre-training makes (tests/experiments/test_pretraining_progress.py).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import string
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from nesyworld.experiments.protocol.records import UNMASKED, CurvePoint, ProtocolConfig, RunSpec
from nesyworld.hybrid.baselines.rl_config import FORBIDDEN_BY_DEFAULT

__all__ = ["PRETRAINING_KEY", "PROGRESS_EVERY", "PretrainingProgress", "check_pretraining",
           "checkpoint_path", "ppo_differences", "pretrained_checkpoint", "pretraining_lock",
           "pretraining_of", "pretraining_of_agent", "progress_files"]

PRETRAINING_KEY = "pretraining"
"""Checkpoint metadata: how the protocol pre-trained it (`pretraining_of`)."""

PROGRESS_EVERY = 20
"""Epochs between two saves of an unfinished pre-training (about 100k env steps at the
paper's 4,800-step epochs: a minute or two of training, a few MB written)."""

MAX_PROGRESS_BYTES = 16 * 1024 * 1024
"""A progress file larger than this is not ours: refused (a 4M-step curve is under 1 MB)."""


def checkpoint_path(template: str, agent: str, seed: int) -> Path | None:
    """The pre-trained checkpoint of (agent, seed): `{agent}` and `{seed}` filled in.

    Masked and unmasked agents (records.UNMASKED) never share a file: `{agent}` names them
    apart (transfer_rl_0.pt, transfer_rl_unmasked_0.pt), and a template without `{agent}`
    gets the suffix on its stem for an unmasked agent. Why: a policy pre-trained with the
    world's action masks never learned to act without them (loading one anyway is a
    CheckpointError, hybrid/baselines/legal_actions.py)."""
    if not template:
        return None
    path = Path(template.format(agent=agent.replace("+", "_"), seed=seed))
    fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
    if agent.endswith(UNMASKED) and "agent" not in fields:
        path = path.with_name(path.stem + UNMASKED + path.suffix)
    return path


def pretrained_checkpoint(spec: RunSpec) -> Path | None:
    """The checkpoint a run loads or pre-trains: an RL agent's under `protocol.pretrained`;
    None for an agent that is not pre-trained by RL (the hybrid and planning agents)."""
    if not spec.agent.startswith(("rl", "transfer_rl")):
        return None
    return checkpoint_path(spec.protocol.pretrained, spec.agent, spec.seed)


@contextlib.contextmanager
def pretraining_lock(path: Path) -> Iterator[None]:
    """Hold the (agent, seed)'s lock: one run pre-trains it while the others wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # no POSIX locks: runs may pre-train the same pair twice
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def progress_files(path: Path) -> tuple[Path, Path]:
    """(weights, counters) of the unfinished pre-training whose checkpoint will be `path`."""
    return (path.with_name(path.name + ".partial.pt"),
            path.with_name(path.name + ".partial.json"))


@dataclass(frozen=True)
class PretrainingProgress:
    """Where an unfinished pre-training stood after an epoch: enough to go on from there."""

    epoch: int
    """The next epoch to train."""
    spent: int
    """Env steps spent in the phase so far."""
    env_steps: int
    actions: int
    evaluations: int
    learn_calls: int
    cpu_seconds: float
    curve: tuple[CurvePoint, ...]

    def save(self, file: Path) -> None:
        """Write the counters next to the weights: a temporary file renamed into place, so a
        killed run leaves the previous progress whole."""
        data = {**asdict(self), "curve": [c.as_dict() for c in self.curve]}
        tmp = file.with_name(file.name + ".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, file)

    @classmethod
    def load(cls, file: Path) -> PretrainingProgress | None:
        """The progress in `file`, or None (with one line on stderr) when it is missing,
        not a regular file, too large or not a progress record: the pre-training then
        starts over, as it would have without it."""
        try:
            if not file.is_file():
                return None
            if file.stat().st_size > MAX_PROGRESS_BYTES:
                raise ValueError(f"larger than {MAX_PROGRESS_BYTES} bytes")
            data = json.loads(file.read_text())
            return cls._from_dict(data)
        except (OSError, ValueError, TypeError, KeyError) as err:
            print(f"nesyworld: {file}: not a pre-training progress record ({err}); "
                  "pre-training starts over", file=sys.stderr)
            return None

    @classmethod
    def _from_dict(cls, data: Any) -> PretrainingProgress:
        if not isinstance(data, dict):
            raise ValueError("expected an object")
        counts = {}
        for name in ("epoch", "spent", "env_steps", "actions", "evaluations", "learn_calls"):
            value = data[name]
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name}: expected a non-negative integer")
            counts[name] = value
        cpu = data["cpu_seconds"]
        if not isinstance(cpu, int | float) or not math.isfinite(cpu) or cpu < 0:
            raise ValueError("cpu_seconds: expected a non-negative number")
        names = {f.name for f in fields(CurvePoint)}
        points = data["curve"]
        if not isinstance(points, list) or not all(
                isinstance(p, dict) and set(p) <= names for p in points):
            raise ValueError("curve: expected a list of evaluation points")
        return cls(**counts, cpu_seconds=float(cpu),
                   curve=tuple(CurvePoint(**p) for p in points))


def pretraining_of(protocol: ProtocolConfig, episode_steps: int | None,
                   forbidden: Sequence[str] = FORBIDDEN_BY_DEFAULT,
                   shaped: bool = True) -> dict[str, Any]:
    """How a protocol pre-trains, as a checkpoint keeps it: its budget, whether it trains
    the whole budget or stops where the convergence test first holds, where its training
    episodes were cut (`episode_steps`, the agent's; the paper's table 6: 1,200), and the
    actions it was kept from (`RLConfig.forbidden`) when they are not the default's: a
    policy that never had an action is another baseline; `shaping: false` when it trained
    on the task's reward alone, without the plan shaping; and `stop_reward` when it stopped
    by `ProtocolConfig.pre_stop_reward` (the reward and the run of epochs). The defaults leave no
    entry, as checkpoints made before the entries existed have none."""
    how: dict[str, Any] = {"pre_steps": protocol.pre_steps,
                           "full_budget": protocol.pre_full_budget,
                           "max_episode_steps": episode_steps}
    if tuple(forbidden) != FORBIDDEN_BY_DEFAULT:
        how["forbidden"] = sorted(forbidden)
    if not shaped:
        how["shaping"] = False
    if protocol.pre_stop_reward is not None:
        how["stop_reward"] = [protocol.pre_stop_reward, protocol.pre_stop_epochs]
    return how


def pretraining_of_agent(protocol: ProtocolConfig, agent: Any) -> dict[str, Any]:
    """`pretraining_of` for an RL protocol agent (agents.RLProtocolAgent): its episode cut,
    forbidden actions and shaping, read off the agent as it pre-trains."""
    rl = agent.agent
    return pretraining_of(protocol, rl.config.train.max_episode_steps, rl.config.forbidden,
                          rl.shaping is not None)


def check_pretraining(agent: Any, path: str, protocol: ProtocolConfig) -> None:
    """Refuse a pre-trained checkpoint that a protocol made otherwise than `protocol`
    pre-trains (a policy stopped at convergence where the protocol trains the whole 4M
    steps, say): loaded, it would stand for a pre-training the run never had. One line
    naming the file. A checkpoint with no such record (one a user saved with `RLAgent.save`
    to start from) is taken as given."""
    from nesyworld.learning.training.checkpoint import CheckpointError

    ckpt = agent.agent.checkpoint
    saved = ckpt.metadata.get(PRETRAINING_KEY)
    wanted = pretraining_of_agent(protocol, agent)
    if saved is not None and saved != wanted:
        raise CheckpointError(f"{path}: pre-trained with {saved}; this protocol pre-trains "
                              f"with {wanted}: delete the file (or give the run another "
                              "`pretrained` path) to pre-train it again")
    differ = ppo_differences(ckpt.ppo, agent.agent.config.ppo)
    if saved is not None and differ:
        raise CheckpointError(f"{path}: pre-trained with other PPO settings ({differ}): "
                              "delete the file (or give the run another `pretrained` path) "
                              "to pre-train it again")


def ppo_differences(saved: Any, wanted: Any) -> str:
    """The PPO settings (`PPOConfig` fields) in which a saved pre-training differs from the
    agent's, as `name saved != wanted`, comma-separated; "" when none. Why: a policy
    pre-trained at other settings is another baseline (at our faster default it ends all but
    deterministic; hybrid/baselines/rl_agents.py, PAPER_PRE_NOVELTY_PPO)."""
    def value(ppo: Any, name: str) -> Any:
        got = getattr(ppo, name, None)
        if name == "critic_hidden_sizes" and got is not None and \
                tuple(got) == tuple(getattr(ppo, "hidden_sizes", ())):
            return None  # the actor's sizes written out: the same network as the default
        return got

    return ", ".join(f"{f.name} {value(saved, f.name)!r} != {value(wanted, f.name)!r}"
                     for f in fields(wanted) if value(saved, f.name) != value(wanted, f.name))
