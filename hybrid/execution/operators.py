"""Ground operators: a planned step bound to its operator schema and to an env action."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nesyworld.symbolic.planning.planners import PlanStep
from nesyworld.world.actions.schema import OperatorSchema

_PLACEHOLDER = re.compile(r"\{(\?[\w-]+)\}")


@dataclass(frozen=True)
class GroundOperator:
    """An operator with its parameters bound, as it appears in a plan."""

    schema: OperatorSchema
    args: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.schema.name

    @property
    def binding(self) -> dict[str, str]:
        return {p.name: a for p, a in zip(self.schema.params, self.args, strict=True)}

    @property
    def env_action(self) -> str:
        """The grounded env action that executes it (placeholders filled from the binding)."""
        binding = self.binding
        return _PLACEHOLDER.sub(lambda m: binding.get(m.group(1), m.group(0)),
                                self.schema.action)

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})" if self.args else self.name


def ground(step: PlanStep, operators: dict[str, OperatorSchema]) -> GroundOperator:
    return GroundOperator(operators[step.operator], tuple(step.args))
