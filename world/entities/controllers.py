"""Controllers for NPC agents (traders, the rival pogoist).

A controller picks one action a turn from its agent's action set. The built-in ones draw with
`draw(k)`: the k-th number hashed from the episode key, the step and the agent (see
`nesyworld.world.kernels.keys`), so NPC behaviour is part of the seeded trajectory, repeats
after a snapshot is restored, and is the same in the batched core, which hashes the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from nesyworld.world.errors import SpecError
from nesyworld.world.kernels.keys import npc_uniform
from nesyworld.world.registry import CONTROLLERS

# which draw of a step each choice uses (`Controller.draw`)
DRAW_BREAK, DRAW_ROTATE, DRAW_WHICH_ROTATION, DRAW_MOVE, DRAW_WHICH_MOVE = range(5)
ROTATE_PROB = 0.25  # the rival turns on the spot this often

if TYPE_CHECKING:
    from nesyworld.world.simulation.world import World


class Controller:
    """Base class: stands still."""

    registered_name: str
    # the spec's `params:` this controller reads, checked when the spec loads
    # (spec/agents_section.py): name -> "probability", "number", "count" or allowed values.
    # None lets any plain value through (what a third-party class that declares none gets).
    PARAMS: ClassVar[dict[str, Any] | None] = {}
    # a prefix the controller looks its actions up by; the spec must give it one such action
    NEEDS_PREFIX: ClassVar[str] = ""

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

    def draw(self, k: int) -> float:
        """The k-th uniform number in [0, 1) of this agent at this step of the episode."""
        st = self.world.state
        return npc_uniform(st.key, st.step, self.agent, k)

    def _indices(self, prefix: str) -> tuple[int, ...]:
        # a tuple of ints: indexing it with a drawn number is cheaper than an array's
        return tuple(i for i, n in enumerate(self.names) if n.startswith(prefix))


@CONTROLLERS.register("stationary")
class Stationary(Controller):
    """Never moves: the paper's default traders."""


@CONTROLLERS.register("random_walk")
class RandomWalk(Controller):
    """Each turn, with probability `move_prob` (default 1), a random move_* action."""

    PARAMS: ClassVar[dict[str, Any] | None] = {"move_prob": "probability"}
    NEEDS_PREFIX: ClassVar[str] = "move"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.moves = self._indices("move")
        if len(self.moves) == 0:  # the spec checks names; a move_* that grounds to nothing
            name = self.world.agent_names[self.agent]
            raise SpecError(f"agent '{name}' uses {self.registered_name} but its action set "
                            "has no move_* action", key_path=f"agents.{name}.action_set",
                            file=self.world.spec.source, expected="a move_* action")
        self.move_prob = float(self.params.get("move_prob", 1.0))

    def choose(self) -> int | None:
        if self.draw(DRAW_MOVE) >= self.move_prob:
            return None
        return self.moves[int(self.draw(DRAW_WHICH_MOVE) * len(self.moves))]


@CONTROLLERS.register("rival")
class Rival(RandomWalk):
    """The rival pogoist: wanders, and with probability `break_prob` breaks what it faces,
    competing for the resources the main agent needs."""

    PARAMS: ClassVar[dict[str, Any] | None] = {"move_prob": "probability",
                                               "break_prob": "probability"}

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.break_prob = float(self.params.get("break_prob", 0.0))
        breaks = self._indices("break")
        self.break_action = breaks[0] if breaks else None
        self.rotations = self._indices("rotate")

    def choose(self) -> int | None:
        if self.break_action is not None and self.break_prob > 0 and self.draw(
                DRAW_BREAK) < self.break_prob:
            return self.break_action
        if self.rotations and self.draw(DRAW_ROTATE) < ROTATE_PROB:
            return self.rotations[int(self.draw(DRAW_WHICH_ROTATION) * len(self.rotations))]
        return super().choose()
