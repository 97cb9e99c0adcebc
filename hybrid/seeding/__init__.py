"""nesyworld.hybrid.seeding: one run seed decides the learner's seed and every map of a run,
with the maps of different runs disjoint (scheme.py)."""

from nesyworld.hybrid.seeding.scheme import RUNS, SPAN, STREAMS, RunSeeds, Stream

__all__ = ["RUNS", "SPAN", "STREAMS", "RunSeeds", "Stream"]
