"""Controllers for NPC agents (traders, the rival pogoist).

A controller picks one action a turn from its agent's action set. It draws randomness from the
world's generator only, so NPC behaviour is part of the seeded trajectory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nesyworld.world.registry import CONTROLLERS

if TYPE_CHECKING:
    from nesyworld.world.world import World


class Controller:
    """Base class: stands still."""

    registered_name: str

    def __init__(self, world: World, agent: int, params: Mapping[str, Any]) -> None:
        self.world = world
        self.agent = agent
        self.params = dict(params)
        self.names = world.action_names(agent)

    def reset(self) -> None:
        """Forget per-episode memory."""

    def choose(self) -> int | None:
        """The action index to take this turn, or None to skip the turn."""
        return None

    def _indices(self, prefix: str) -> tuple[int, ...]:
        # a tuple of ints: indexing it with a drawn number is cheaper than an array's
        return tuple(i for i, n in enumerate(self.names) if n.startswith(prefix))


@CONTROLLERS.register("stationary")
class Stationary(Controller):
    """Never moves: the paper's default traders."""


@CONTROLLERS.register("random_walk")
class RandomWalk(Controller):
    """Each turn, with probability `move_prob` (default 1), a random move_* action."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.moves = self._indices("move")
        if len(self.moves) == 0:
            raise ValueError(f"agent '{self.world.agent_names[self.agent]}' uses random_walk "
                             "but its action set has no move_* action")
        self.move_prob = float(self.params.get("move_prob", 1.0))

    def choose(self) -> int | None:
        rng = self.world.rng
        if rng.random() >= self.move_prob:
            return None
        return self.moves[rng.integers(len(self.moves))]


@CONTROLLERS.register("rival")
class Rival(RandomWalk):
    """The rival pogoist: wanders, and with probability `break_prob` breaks what it faces,
    competing for the resources the main agent needs."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.break_prob = float(self.params.get("break_prob", 0.0))
        breaks = self._indices("break")
        self.break_action = breaks[0] if breaks else None
        self.rotations = self._indices("rotate")

    def choose(self) -> int | None:
        rng = self.world.rng
        if self.break_action is not None and self.break_prob > 0 and rng.random() < (
                self.break_prob):
            return self.break_action
        if self.rotations and rng.random() < 0.25:
            return self.rotations[rng.integers(len(self.rotations))]
        return super().choose()
