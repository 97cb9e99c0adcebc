"""RL pre-training once per (agent, seed), shared by every novelty of a sweep.

The paper pre-trains each RL agent for 4M env steps per seed (section 7) and measures every
novelty from that one policy. A sweep runs novelty-major on several workers, so the first run
of an (agent, seed) to start pre-trains and saves the checkpoint, and every later run of that
pair loads it and only evaluates it before the novelty. `protocol.pretrained` names the file,
e.g. `results/pretrained/{agent}_{seed}.pt`.

An exclusive lock on `<file>.lock` is held while a run decides and, if needed, pre-trains. A
second worker that reaches the same pair waits for the checkpoint instead of training it
again. The lock is `fcntl.flock`, and it also works across hosts on a shared POSIX
filesystem. Where `fcntl` is missing (Windows), runs do not wait, and two of them may
pre-train the same pair; the second save then replaces the first.
`RLAgent.save` writes through `save_checkpoint`, which renames a finished temporary file
into place, so a killed run never leaves a half-written checkpoint for the next to load.
"""

from __future__ import annotations

import contextlib
import string
from collections.abc import Iterator
from pathlib import Path

from nesyworld.experiments.protocol.records import UNMASKED

__all__ = ["checkpoint_path", "pretraining_lock"]


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
