"""How many obstacles an agent breaks before it can approach a target, map by map.

A novelty that walls a target in (Fence surrounds every tree) asks a policy for a loop
whose length depends on the map: approach an obstacle, break it, try the target again. Where
that number is the same on every map, a policy can learn one fixed sequence of actions; where
it varies, the policy must read from its observation when the way is open. This probe plays
that loop with a script from the start of each map and counts the breaks, so two worlds (or a
world and another project's rules) can be compared on it (docs/EXPERIMENTS.md, the RL
baselines on Fence).

    python -m nesyworld.experiments.probe.obstacles --novelty fence --target oak_log \
        --obstacle fence --maps 200
"""

from __future__ import annotations

import argparse
import collections
from dataclasses import dataclass

from nesyworld.world.envs.gym_env import NesyGridEnv
from nesyworld.world.novelty.transforms import apply_novelties

__all__ = ["ObstacleCount", "count_breaks", "main"]


@dataclass(frozen=True)
class ObstacleCount:
    """Maps by the breaks it took before the target could be approached; `blocked`: maps
    where the loop ended without reaching it (no obstacle left to approach or break, the
    episode over, or `limit` breaks)."""

    breaks: dict[int, int]
    blocked: int

    @property
    def maps(self) -> int:
        return sum(self.breaks.values()) + self.blocked


def count_breaks(novelty: str, target: str, obstacle: str, maps: int, seed: int = 0,
                 domain: str = "pogostick", limit: int = 50) -> ObstacleCount:
    """Play `approach_<target>`; while refused, `approach_<obstacle>` then `break`; on the
    maps of seeds `seed`, `seed + 1`, ... Raises ValueError when the world has no such
    actions."""
    env = NesyGridEnv(apply_novelties(domain, [novelty]))
    index = {name: i for i, name in enumerate(env.action_names)}
    wanted = (f"approach_{target}", f"approach_{obstacle}", "break")
    missing = [name for name in wanted if name not in index]
    if missing:
        raise ValueError(f"{domain} under {novelty} has no action {', '.join(missing)}")
    if maps < 1 or limit < 0:
        raise ValueError(f"maps must be at least 1 and limit at least 0, got {maps} and {limit}")
    to_target, to_obstacle, hit = (index[name] for name in wanted)

    def granted(action: int) -> bool | None:
        """True or False as the world took or refused it; None once the episode is over."""
        _, _, terminated, truncated, info = env.step(action)
        return None if terminated or truncated else bool(info["ok"])

    counts: collections.Counter[int] = collections.Counter()
    blocked = 0
    for map_seed in range(seed, seed + maps):
        env.reset(seed=map_seed)
        breaks = 0
        while (reached := granted(to_target)) is False:
            if breaks == limit or not granted(to_obstacle) or not granted(hit):
                break
            breaks += 1
        if reached:
            counts[breaks] += 1
        else:
            blocked += 1
    return ObstacleCount(dict(sorted(counts.items())), blocked)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m nesyworld.experiments.probe.obstacles",
        description="Breaks of an obstacle before a target can be approached, per map.")
    parser.add_argument("--novelty", required=True)
    parser.add_argument("--target", required=True, help="entity type to approach")
    parser.add_argument("--obstacle", required=True, help="entity type to approach and break")
    parser.add_argument("--maps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="first map seed")
    parser.add_argument("--domain", default="pogostick")
    args = parser.parse_args(argv)
    try:
        result = count_breaks(args.novelty, args.target, args.obstacle, args.maps, args.seed,
                              args.domain)
    except ValueError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    for breaks, maps in result.breaks.items():
        print(f"{breaks} break(s): {maps} of {result.maps} maps ({maps / result.maps:.0%})")
    if result.blocked:
        print(f"not reached: {result.blocked} of {result.maps} maps")


if __name__ == "__main__":
    main()
