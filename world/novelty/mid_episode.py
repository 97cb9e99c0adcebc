"""What a novelty injected mid-episode (`inject: {step: N}`) may change, checked when it loads.

Such a novelty reaches the running world through `World.transition_to`, which keeps the state:
things stay where they are and agents keep their places, inventories and selections. Changes
to the registries (types, actions, recipes, trades), the goal, the limits, the reward, events,
`map.surround` and the agents' controllers, action sets and parameters take effect; a change
to the layout or to an agent's body would be silently lost, and removing an entity type
fails if things of it are on the map or held. So those are errors located at
the offending key, pointing at `events:` (spawn, remove, move, set) as the way to change the
map mid-episode, or at `inject: {episode: N}` for a change that waits for the next episode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nesyworld.world.errors import SpecError, shown
from nesyworld.world.spec.yaml_source import KeyPath, SourceMap

if TYPE_CHECKING:
    from nesyworld.world.novelty.definition import Novelty
    from nesyworld.world.simulation.world import World
    from nesyworld.world.spec.model import WorldSpec

APPLIED = {"entity_types", "actions", "action_sets", "recipes", "trades", "goal", "max_steps",
           "reward", "events", "name", "description"}
MAP_APPLIED = {"surround"}
AGENT_APPLIED = {"controller", "action_set", "params"}
EXPECTED = ("a change that applies mid-episode (" + ", ".join(sorted(APPLIED))
            + ", map.surround, agents.<name>." + "/".join(sorted(AGENT_APPLIED))
            + "); move, spawn or remove things with events: [...], or inject: {episode: N}")


def check_mid_episode(changes: Mapping[str, Any], transforms: list[tuple[str, Any]],
                      smap: SourceMap, registry: Any) -> None:
    """Raise a located SpecError for the first change a mid-episode injection cannot apply.
    `smap` is the novelty file's map (paths start at `changes`); `transforms` its registered
    transformations in order, each of which must be declared safe mid-episode."""
    for key, value in changes.items():
        if key == "map":
            _only(value, ("changes", "map"), MAP_APPLIED, smap, "the map's layout")
        elif key == "agents":
            for name, body in (value.items() if isinstance(value, dict) else ()):
                path = ("changes", "agents", name)
                if body is None:
                    raise _error(smap, path, f"removing agent {shown(name)}")
                _only(body, path, AGENT_APPLIED, smap, f"agent {shown(name)}'s body")
        elif key == "entity_types":
            for name, body in (value.items() if isinstance(value, dict) else ()):
                if body is None:  # World.transition_to cannot drop a type still in use
                    raise _error(smap, ("changes", key, name),
                                 f"removing entity type {shown(name)}")
        elif key not in APPLIED:
            raise _error(smap, ("changes", key), shown(key))
    for i, (kind, _) in enumerate(transforms):
        if not getattr(registry.get(kind), "MID_EPISODE", False):
            raise _error(smap, ("transforms", i, "kind"), f"transformation '{kind}' (not "
                         "declared safe mid-episode: register_transform(..., mid_episode=True))")


def arrive(world: World, spec: WorldSpec, novelty: Novelty) -> None:
    """Switch the running `world` to `spec`, the spec `novelty` just joined, keeping its state
    (`World.transition_to`). The one way a novelty arrives mid-episode (NoveltyInjector on its
    schedule, a trajectory's replay, the studio), so all fail alike: a state the new spec
    cannot take is a SpecError naming the novelty, as a bad novelty file is."""
    step = world.state.step  # a failed transition leaves the world without a state
    try:
        world.transition_to(spec)
    except SpecError:
        raise
    except ValueError as err:  # the running state cannot take the new spec
        raise SpecError(f"novelty '{novelty.name}' cannot arrive at step {step}: "
                        f"{err}", file=novelty.source,
                        expected="a change the running world can take on") from None


def _only(value: Any, path: KeyPath, allowed: set[str], smap: SourceMap, what: str) -> None:
    for key in value if isinstance(value, dict) else {}:
        if key not in allowed:
            raise _error(smap, (*path, key),
                         f"{what} ({shown('.'.join(map(str, (*path[1:], key))))})")


def _error(smap: SourceMap, path: KeyPath, what: str) -> SpecError:
    return smap.error(path, f"{what} cannot change mid-episode: a novelty injected at a step "
                      "keeps the running world's map and its agents' places and inventories",
                      key=True, expected=EXPECTED)
