"""One seeding scheme for every entry point: a run seed decides everything random in a run.

Why one scheme: before it, the CLI, the adaptation study and the protocol each derived
map seeds their own way (`seed + k`, `seed * 1000 + k`, `EVAL_SEED + 100_000 * seed`), the
CLI never seeded the learner, and runs 0, 1 and 2 shared most of their maps, so "ten seeds"
were not ten independent runs. Here a run seed gives

* the learner's seed (`RunSeeds.learner`): torch, numpy and the training envs of every
  recovery or RL training in the run;
* one map seed per episode of each stream (`RunSeeds.map`): adaptation (task episodes with
  learning on), evaluation (episodes with learning off), extra failure maps sampled by a
  recovery, and the learner's own training and evaluation envs.

Map seeds are laid out, not hashed, so disjointness is a fact and not a likelihood:
``seed = ((stream + 1) * RUNS + run) * SPAN + index`` with ``run < RUNS`` and
``index < SPAN``. Two different (stream, run, index) triples never share a map seed, so the
maps of different run seeds, and of different streams of one run, are disjoint.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Literal

__all__ = ["RUNS", "SPAN", "STREAMS", "RunSeeds", "Stream"]

Stream = Literal["adaptation", "evaluation", "extra_maps", "learner_envs", "pretraining"]
STREAMS: tuple[Stream, ...] = ("adaptation", "evaluation", "extra_maps", "learner_envs",
                               "pretraining")
"""The independent uses of maps in a run (their order fixes the layout: append only)."""
RUNS = 1 << 20
"""Run seeds 0 .. RUNS - 1 (about a million)."""
SPAN = 1 << 24
"""Map seeds per stream and run (about 16 million episodes)."""
OPERATOR_SLOTS = 1 << 12
"""extra_maps: each failing operator gets SPAN / OPERATOR_SLOTS consecutive indices, chosen
by a stable hash of its name (two operators of one run share a slot only by hash collision,
and then their maps are still distinct from every other run's)."""


@dataclass(frozen=True)
class RunSeeds:
    """The seeds of one run, from its run seed (see the module docstring)."""

    run: int

    def __post_init__(self) -> None:
        if not isinstance(self.run, int) or isinstance(self.run, bool) or not (
                0 <= self.run < RUNS):
            raise ValueError(f"run seed: expected a whole number in 0..{RUNS - 1}, "
                             f"got {self.run!r}")

    @property
    def learner(self) -> int:
        """The learner's seed (TrainConfig.seed): the run seed itself."""
        return self.run

    def map(self, stream: Stream, index: int) -> int:
        """The map seed of episode `index` of `stream` (reset(seed=...) of that episode)."""
        if stream not in STREAMS:
            raise ValueError(f"seed stream: expected one of {', '.join(STREAMS)}, got "
                             f"{stream!r}")
        if not 0 <= index < SPAN:
            raise ValueError(f"{stream} episode index: expected 0..{SPAN - 1}, got {index}")
        return ((STREAMS.index(stream) + 1) * RUNS + self.run) * SPAN + index

    def adaptation(self, index: int) -> int:
        """Map of the index-th task episode with learning on."""
        return self.map("adaptation", index)

    def evaluation(self, index: int) -> int:
        """Map of the index-th evaluation episode (learning off)."""
        return self.map("evaluation", index)

    def pretraining(self, index: int) -> int:
        """Map of the index-th task episode before the novelty."""
        return self.map("pretraining", index)

    def learner_envs(self) -> int:
        """First map seed of the learner's own envs (training env i takes this + i, its
        evaluation envs further on: see TrainConfig.env_seed)."""
        return self.map("learner_envs", 0)

    def extra_maps(self, operator: str, n: int) -> list[int]:
        """Maps on which a recovery meets the failure of `operator` again."""
        per = SPAN // OPERATOR_SLOTS
        if n > per:
            raise ValueError(f"extra maps: at most {per} per operator, asked {n}")
        base = (zlib.crc32(operator.encode()) % OPERATOR_SLOTS) * per
        return [self.map("extra_maps", base + k) for k in range(n)]

    @staticmethod
    def owner(map_seed: int) -> tuple[Stream, int, int]:
        """(stream, run, index) of a map seed made here: the inverse of `map`."""
        block, index = divmod(map_seed, SPAN)
        stream, run = divmod(block, RUNS)
        if not 1 <= stream <= len(STREAMS):
            raise ValueError(f"{map_seed} is not a map seed of this scheme")
        return STREAMS[stream - 1], run, index
