"""Is a failure worth learning from? How often it recurs on fresh maps decides.

A recovery costs thousands of env steps (a policy trained from the failure's few starts);
a replan costs tens. A novelty that breaks an operator on every map (the Fence novelty's
walled-in trees, the Axe novelty's tree) must be learned from, but the same novelty also
breaks other operators on a few maps only (a trader or crafting table that the fences around
two trees wall into a corner). Those failures had almost no other starts to learn from (0
and 2 of 16 fresh maps), so their recoveries cost the most: 23,141, 8,294 (in vain) and
40,805 env steps on one Fence run, 92% of its T_adapt, for one or two points of success.

Before learning, a recovery already runs the planning agent on fresh maps to meet the same
failure again (starts.py). Their count is also a measurement of how often the failure
recurs, and this module turns it into a decision: learn unless the maps show, with
`confidence`, that the failure recurs on fewer than `bar` of maps. The test errs towards
learning: a failure that would keep the agent under a success threshold of 1 - `bar` on
its own is learned from (at 20% recurrence, 99 times in 100), and only a failure the maps
prove rare is left to replanning. Proving rarity needs more maps than finding starts does
(22 maps without the failure, 52 with two), so a failure that looks rare is sampled on
further maps, up to `max_maps`; a failure met on many maps is decided on the first ones, as
before.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    return sum(comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(min(k, n) + 1))


@dataclass(frozen=True)
class RecurrenceTest:
    """When a failure met on `found` of `maps` fresh maps is rare enough to leave alone.

    `bar` is the recurrence below which a failure is not worth a recovery: 0.1 is 1 - the
    paper's success threshold delta_G (0.9), so a failure left alone cannot by itself keep
    the agent under it. `max_maps` 0 turns the test off (every failure is learned from)."""

    bar: float = 0.1
    confidence: float = 0.9
    max_maps: int = 96
    """Fresh maps sampled at most to prove a failure rare (each costs about one task
    episode, ~40 env steps, since a rare failure rarely ends it early)."""

    @property
    def enabled(self) -> bool:
        return self.max_maps > 0 and self.bar > 0

    def maps_to_prove_rare(self, found: int) -> int | None:
        """The fewest maps on which meeting the failure only `found` times proves it rarer
        than `bar` (one-sided binomial test); None when more than `max_maps`."""
        alpha = 1 - self.confidence
        for n in range(max(found, 1), self.max_maps + 1):
            if binomial_cdf(found, n, self.bar) <= alpha:
                return n
        return None

    def proven_rare(self, found: int, maps: int) -> bool:
        """The failure, met on `found` of `maps` fresh maps, recurs on fewer than `bar` of
        maps with `confidence`."""
        if not self.enabled or maps <= 0:
            return False
        return binomial_cdf(found, maps, self.bar) <= 1 - self.confidence

    def more_maps(self, found: int, maps: int) -> int:
        """How many more maps to sample before deciding (0: decide now). None are sampled
        when the failure already looks frequent (met on at least twice `bar` of the maps so
        far: proving it rare would take many maps and seldom succeed) or cannot be proven
        rare within `max_maps`."""
        if not self.enabled or self.proven_rare(found, maps):
            return 0
        if maps and found / maps >= 2 * self.bar:
            return 0
        needed = self.maps_to_prove_rare(found)
        return 0 if needed is None else max(needed - maps, 0)

    def verdict(self, found: int, maps: int) -> str:
        """One line for logs and the recovery's outcome."""
        rare = self.proven_rare(found, maps)
        return (f"met again on {found} of {maps} fresh maps: "
                + (f"rarer than {self.bar:.0%} of maps with {self.confidence:.0%} confidence"
                   if rare else "not shown to be rare"))
