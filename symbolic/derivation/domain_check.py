"""Checking the declared operator semantics against the simulator.

Every planning operator is derived from an action class's `operators()`, written by hand beside
its `check`/`apply`. If the two disagree, plans fail at execution time and the failure looks
like a novelty. This module tests each derived operator directly: it builds world states where
the operator's preconditions hold, runs the operator's env action in the simulator, abstracts
the result and compares it with what the declared effects promise. Disagreements are reported
with enough detail (seed, binding, both diffs) to reproduce them; they are never filtered.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from nesyworld.symbolic.derivation.abstraction import SymbolicState, abstract
from nesyworld.symbolic.derivation.derive import derive
from nesyworld.symbolic.derivation.domain_check_map import (
    act_own_round,
    door_bounds,
)
from nesyworld.symbolic.derivation.preconditions import LOOKAHEAD, bind, establish
from nesyworld.world import World, WorldSpec, load_spec
from nesyworld.world.actions.interact import pick_up_beside
from nesyworld.world.actions.schema import (
    NO_EFFECT_NOTE,
    REFUSAL_NOTE,
    Distinct,
    OperatorSchema,
)

_PLACEHOLDER = re.compile(r"\{(\?[A-Za-z0-9_\-]+)\}")
MAX_RANDOM_ACTIONS = 4


@dataclass(frozen=True)
class Disagreement:
    """One sample where the simulator did not do what the operator declares."""

    sample: int
    world_seed: int
    binding: dict[str, str]
    action: str
    before: str
    refused: str | None = None
    expected: tuple[str, ...] = ()
    observed: tuple[str, ...] = ()

    def __str__(self) -> str:
        head = f"sample {self.sample} (World seed {self.world_seed}) {self.action}"
        if self.binding:
            head += " with " + ", ".join(f"{k}={v}" for k, v in self.binding.items())
        if self.refused is not None:
            return f"{head}: refused: {self.refused}  [{self.before}]"
        return (
            f"{head}: expected [{'; '.join(self.expected) or 'no change'}] "
            f"but observed [{'; '.join(self.observed) or 'no change'}]  [{self.before}]"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class OperatorCheck:
    """The outcome for one operator over all samples."""

    name: str
    provenance: str
    index: int = 0  # position among the derived operators; seeds the sample edits
    samples: int = 0  # samples whose preconditions held and whose action was run
    agreements: int = 0
    unsatisfiable_samples: int = 0
    unsatisfiable_reasons: list[str] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No disagreement, and at least one sample could be run (an operator whose
        preconditions could never be made true was not checked at all)."""
        return not self.disagreements and self.samples > 0

    @property
    def status(self) -> str:
        if self.disagreements:
            return "MISMATCH"
        return "ok" if self.samples > 0 else "UNCHECKED"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(
            status=self.status, unsatisfiable_reasons=sorted(set(out["unsatisfiable_reasons"]))
        )
        return out


@dataclass
class DomainCheckReport:
    """Per-operator results of `check_domain`; `ok` only when every operator agreed."""

    domain: str
    source: str
    samples: int
    seed: int
    operators: list[OperatorCheck]
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(op.ok for op in self.operators)

    @property
    def failures(self) -> list[OperatorCheck]:
        return [op for op in self.operators if not op.ok]

    def operator(self, name: str) -> OperatorCheck:
        for op in self.operators:
            if op.name == name:
                return op
        raise KeyError(f"no operator '{name}' in the report")

    def to_table(self, examples: int = 2) -> str:
        """A fixed-width summary, then up to `examples` disagreements per failing operator."""
        width = max([len(op.name) for op in self.operators] + [8])
        lines = [
            f"domain check of '{self.domain}' ({self.source}): "
            f"{'OK' if self.ok else 'FAILED'}, {len(self.operators)} operators, "
            f"{self.samples} samples each, seed {self.seed}, {self.seconds:.2f}s",
            f"{'operator':<{width}}  status     run  agree  disagree  unsat",
        ]
        for op in self.operators:
            lines.append(
                f"{op.name:<{width}}  {op.status:<9} {op.samples:>4}  "
                f"{op.agreements:>5}  {len(op.disagreements):>8}  "
                f"{op.unsatisfiable_samples:>5}"
            )
        for op in self.failures:
            lines.append(f"\n{op.name}  [{op.provenance}]")
            if not op.samples:
                reasons = ", ".join(sorted(set(op.unsatisfiable_reasons))) or "unknown"
                lines.append(f"  preconditions could never be made true: {reasons}")
            for d in op.disagreements[:examples]:
                lines.append(f"  {d}")
            if len(op.disagreements) > examples:
                lines.append(f"  ... and {len(op.disagreements) - examples} more")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_table()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (the CLI's --json output, experiment logs)."""
        return {**asdict(self), "ok": self.ok, "operators": [op.to_dict() for op in self.operators]}


def check_domain(
    spec_or_world: World | WorldSpec | str | Path,
    samples: int = 20,
    seed: int = 0,
    operators: Collection[str] | None = None,
) -> DomainCheckReport:
    """Check every derived operator (or those named in `operators`) on `samples` states.

    Sample k starts from ``World(spec, seed=seed + k)`` after up to MAX_RANDOM_ACTIONS random
    main-agent actions; each operator then gets that state (restored from a snapshot) edited
    so its preconditions hold. Only the main agent acts: no NPC turns and no clock tick, so
    any change is the action's own.
    """
    start = time.perf_counter()
    spec = _spec_of(spec_or_world)
    worlds = [World(spec, seed=seed + k) for k in range(samples)]
    ops = derive(worlds[0] if worlds else World(spec, seed=seed)).operators
    if operators is not None:
        ops = [op for op in ops if op.name in operators]
    results = [OperatorCheck(op.name, op.provenance, i) for i, op in enumerate(ops)]
    for k, world in enumerate(worlds):
        _random_prelude(world, np.random.default_rng([seed, k]))
        snap = world.snapshot()
        for op, result in zip(ops, results, strict=True):
            world.restore(snap)
            _check_one(world, op, result, k, seed)
    return DomainCheckReport(
        spec.name, spec.source, samples, seed, results, time.perf_counter() - start
    )


def _spec_of(source: World | WorldSpec | str | Path) -> WorldSpec:
    if isinstance(source, World):
        return source.spec
    return source if isinstance(source, WorldSpec) else load_spec(source)


def _random_prelude(world: World, rng: np.random.Generator) -> None:
    """A few legal random main-agent actions, so samples do not all start at reset."""
    names = world.action_names()
    for _ in range(int(rng.integers(0, MAX_RANDOM_ACTIONS + 1))):
        legal = [i for i in np.flatnonzero(world.action_mask()) if names[i] != "give_up"]
        if not legal:
            return
        world.act(world.main, int(legal[rng.integers(len(legal))]))


def check_operator(
    world: World,
    op: OperatorSchema,
    binding: dict[str, str] | None = None,
    *,
    sample: int = -1,
    world_seed: int = -1,
) -> Disagreement | None:
    """Run `op`'s env action once in the world's current state (which must satisfy the
    preconditions under `binding`) and return how the outcome disagrees with the declared
    effects, or None when it agrees. The world is changed by the action."""
    binding = dict(binding if binding is not None else bind(world, op))
    z0 = abstract(world)
    failing = [_describe(c, binding) for c in op.preconditions if not _satisfied(z0, c, binding)]
    if failing:
        raise ValueError(f"{op.name}: preconditions do not hold: {'; '.join(failing)}")
    action = _PLACEHOLDER.sub(lambda m: binding.get(m.group(1), m.group(0)), op.action)
    before = world.describe()
    try:
        outcome = act_own_round(world, action, op)
        for _ in range(op.repeat - 1):  # as the executor: up to `repeat` times, until it shows
            if not outcome.ok or abstract(world) != z0:
                break
            outcome = act_own_round(world, action, op)
    except KeyError:
        outcome = None
    where = (sample, world_seed, binding, action, before)
    if outcome is None:
        return Disagreement(*where, refused=f"the main agent has no env action '{action}'")
    if not outcome.ok:
        if any(n.startswith(REFUSAL_NOTE) and n[len(REFUSAL_NOTE):] in outcome.reason
               for n in op.notes):
            return None  # a refusal the operator declares it cannot model (counted apart)
        return Disagreement(*where, refused=outcome.reason)
    expected, observed = z0.apply(op.effects, binding), abstract(world)
    mentioned = {getattr(x, "predicate", None) for x in (*op.preconditions, *op.effects)}
    expected, observed = _without_lookahead(expected, mentioned), _without_lookahead(
        observed, mentioned)
    expected, observed = door_bounds(expected, observed)
    if expected == observed:
        return None
    if NO_EFFECT_NOTE in op.notes and observed == _without_lookahead(z0, mentioned):
        return None
    return Disagreement(*where, expected=_changes(expected, z0), observed=_changes(observed, z0))


def _without_lookahead(z: SymbolicState, mentioned: set[str | None]) -> SymbolicState:
    """Drop `facing_<d>` facts the operator does not mention: they follow the agent's position,
    which no operator's effects describe (moving changes what is two cells ahead)."""
    props = frozenset(p for p in z.props if p[0] in mentioned or not LOOKAHEAD.match(p[0]))
    return replace(z, props=props) if props != z.props else z


def _check_one(world: World, op: OperatorSchema, result: OperatorCheck, k: int, seed: int) -> None:
    """Sample k of one operator: establish its preconditions, run it, record the outcome."""
    binding, problems = establish(world, op, np.random.default_rng([seed, k, result.index]))
    if world.types.automatic:
        # standing beside an automatically collected thing lasts no step: the step that led
        # here took it, so the sample starts after that
        pick_up_beside(world, world.main)
    try:
        found = None
        if not problems:
            found = check_operator(world, op, binding, sample=k, world_seed=seed + k)
    except ValueError as exc:
        problems = [str(exc).split(": ", 2)[-1]]
    if problems:
        result.unsatisfiable_samples += 1
        result.unsatisfiable_reasons.extend(problems)
        return
    result.samples += 1
    if found is None:
        result.agreements += 1
    else:
        result.disagreements.append(found)


def _satisfied(z: SymbolicState, cond: Any, binding: dict[str, str]) -> bool:
    try:
        return z.satisfies((cond,), binding)
    except (ValueError, IndexError):  # an unbound variable or a type the world lacks
        return False


def _describe(cond: Any, binding: dict[str, str]) -> str:
    if isinstance(cond, Distinct):
        return f"{binding.get(cond.left, cond.left)} != {binding.get(cond.right, cond.right)}"
    return str(cond)


# ------------------------------------------------------------------------------- reporting
def _changes(after: SymbolicState, before: SymbolicState) -> tuple[str, ...]:
    return tuple(after.diff(before, include_air=True))
