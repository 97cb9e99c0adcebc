"""The `lifelong:` section of a world spec: a world that never resets (after Jelly Bean World).

A lifelong world differs from an episodic one in three ways, all stated as data here:
- things regrow after they are broken, at the same cell or at a random free cell, so the world
  never runs out (`regrow`);
- rewards come from what the agent gains, and what each item pays changes over time
  (`reward_schedule`), so a good agent has to keep adapting rather than solve once;
- the goal does not end the run and `max_steps` does not truncate it (the envs read
  `WorldSpec.lifelong` for that).

Regrowth reuses the existing `on_break` scheduled spawn (`apply_regrow`): the type spawns
itself where it was broken, marked so that a regrowth due on a taken cell waits rather than
being lost ("same") or goes to a random free cell ("random"); see world/lifelong/regrowth.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from nesyworld.world.spec.bounds import MAX_STEPS

if TYPE_CHECKING:
    from nesyworld.world.spec.model import EntityTypeSpec
    from nesyworld.world.spec.reader import SpecReader
    from nesyworld.world.spec.yaml_source import KeyPath

SCHEDULE_KINDS = {
    "phases": "piecewise phases by step: each phase pays until its `until` step (the last one "
              "may omit it and lasts forever)",
    "cycle": "a periodic cycle: each phase lasts `period` steps, then the next, round and round",
}
LIFELONG_KEYS = {"regrow", "reward_schedule", "step_reward"}
REGROW_KEYS = {"after", "where"}
WHERE = ("same", "random")


@dataclass(frozen=True)
class RegrowRule:
    """A type that comes back `after` steps once broken: where it was (as soon as the cell is
    free), or at a random free cell (which moves resources instead of pinning them)."""

    type: str
    after: int
    where: str = "same"


@dataclass(frozen=True)
class Phase:
    """One stretch of a reward schedule: what each item gained pays while it lasts."""

    name: str
    pays: Mapping[str, float]
    until: int | None = None  # `phases` kind: the first step no longer in this phase


@dataclass(frozen=True)
class RewardSchedule:
    """What items pay as a function of the step: data, so a change of payoff is a spec edit."""

    kind: str
    phases: tuple[Phase, ...]
    period: int = 0  # `cycle` kind: steps per phase

    def phase_index(self, step: int) -> int:
        if self.kind == "cycle":
            return (step // self.period) % len(self.phases)
        for i, phase in enumerate(self.phases):
            if phase.until is None or step < phase.until:
                return i
        return len(self.phases) - 1

    def phase_at(self, step: int) -> Phase:
        return self.phases[self.phase_index(step)]


@dataclass(frozen=True)
class LifelongSpec:
    """The parsed `lifelong:` section. Rewards of the schedules add up."""

    regrow: Mapping[str, RegrowRule] = field(default_factory=lambda: MappingProxyType({}))
    schedules: tuple[RewardSchedule, ...] = ()
    step_reward: float = 0.0

    def reward(self, step: int, gained: Mapping[str, int]) -> float:
        """What gaining `gained` (item -> count, positive) at `step` pays."""
        total = self.step_reward
        for schedule in self.schedules:
            pays = schedule.phase_at(step).pays
            for item, n in gained.items():
                total += pays.get(item, 0.0) * n
        return total

    def phase_name(self, step: int) -> str:
        """The current phase of every schedule, joined with '+' (one name for one schedule)."""
        return "+".join(s.phase_at(step).name for s in self.schedules)

    @property
    def random_regrowth(self) -> tuple[str, ...]:
        return tuple(r.type for r in self.regrow.values() if r.where == "random")


def parse(rd: SpecReader, raw: Any, entity_types: dict[str, EntityTypeSpec]
          ) -> LifelongSpec | None:
    """The spec loader's hook: None without the section; otherwise the parsed section, with
    its regrowth written into `entity_types` as `on_break` spawns."""
    if raw is None:
        return None
    lifelong = parse_lifelong(rd, raw, entity_types)
    apply_regrow(entity_types, lifelong)
    return lifelong


def parse_lifelong(rd: SpecReader, raw: Any, types: Mapping[str, EntityTypeSpec]) -> LifelongSpec:
    """Validate `lifelong:`; every mistake is a located SpecError saying what was expected."""
    path: KeyPath = ("lifelong",)
    raw = rd.mapping(raw, path, LIFELONG_KEYS)
    regrow: dict[str, RegrowRule] = {}
    for tname, rraw in rd.mapping(raw.get("regrow"), (*path, "regrow"), nullable=True).items():
        rpath = (*path, "regrow", tname)
        if tname not in types or types[tname].abstract:
            raise rd.fail(rpath, f"unknown entity type '{tname}'", found=tname, key=True,
                          expected="a concrete type declared under entity_types")
        if not types[tname].breakable:
            raise rd.fail(rpath, f"'{tname}' is not breakable, so it can never need to regrow",
                          found=tname, key=True, expected="a type with breakable: true")
        if types[tname].on_break is not None:
            raise rd.fail(rpath, f"'{tname}' already has on_break", found=tname, key=True,
                          expected="either entity_types.<type>.on_break or lifelong.regrow, "
                                   "not both")
        if isinstance(rraw, int) and not isinstance(rraw, bool):
            rraw = {"after": rraw}
        rraw = rd.mapping(rraw, rpath, REGROW_KEYS)
        if "after" not in rraw:
            raise rd.fail(rpath, "missing 'after'", expected="after: <steps until it regrows>")
        after = rd.integer(rraw["after"], (*rpath, "after"), minimum=1, maximum=MAX_STEPS)
        where = rraw.get("where", "same")
        if not isinstance(where, str) or where not in WHERE:
            raise rd.fail((*rpath, "where"), "invalid value", found=where,
                          expected="same or random")
        regrow[str(tname)] = RegrowRule(str(tname), after, where)

    raw_schedules = raw.get("reward_schedule")
    if raw_schedules is None:
        raise rd.fail(path, "missing 'reward_schedule'",
                      expected="reward_schedule: {kind: phases|cycle, phases: [...]}")
    entries = raw_schedules if isinstance(raw_schedules, list) else [raw_schedules]
    spath: KeyPath = (*path, "reward_schedule")
    if not entries:
        raise rd.fail(spath, "empty reward schedule", found=[],
                      expected="at least one schedule")
    schedules = tuple(
        _schedule(rd, entry, (*spath, i) if isinstance(raw_schedules, list) else spath, types)
        for i, entry in enumerate(entries))
    step_reward = rd.number(raw.get("step_reward", 0.0), (*path, "step_reward"))
    return LifelongSpec(MappingProxyType(regrow), schedules, step_reward)


def _schedule(rd: SpecReader, raw: Any, path: KeyPath, types: Mapping[str, EntityTypeSpec]
              ) -> RewardSchedule:
    raw = rd.mapping(raw, path, {"kind", "period", "phases"})
    if "kind" not in raw:
        raise rd.fail(path, "missing 'kind'", expected="kind: " + " or ".join(SCHEDULE_KINDS))
    kind = raw["kind"]
    if not isinstance(kind, str):
        raise rd.fail((*path, "kind"), "wrong type", found=kind,
                      expected="one of " + ", ".join(SCHEDULE_KINDS))
    if kind not in SCHEDULE_KINDS:
        raise rd.fail((*path, "kind"), f"unknown schedule kind '{kind}'", found=kind,
                      expected="one of " + "; ".join(f"{k} ({v})"
                                                     for k, v in SCHEDULE_KINDS.items()))
    period = 0
    if kind == "cycle":
        if "period" not in raw:
            raise rd.fail(path, "a cycle needs a period", expected="period: <steps per phase>")
        period = rd.integer(raw["period"], (*path, "period"), minimum=1, maximum=MAX_STEPS)
    elif "period" in raw:
        raise rd.fail((*path, "period"), "'period' belongs to kind: cycle", key=True,
                      expected="until: <step> on each phase for kind: phases")
    raw_phases = raw.get("phases")
    if not isinstance(raw_phases, list) or not raw_phases:
        raise rd.fail((*path, "phases") if "phases" in raw else path,
                      "wrong type" if "phases" in raw else "missing 'phases'", found=raw_phases,
                      expected="a non-empty list of {name, pays: {item: reward}}")
    phases: list[Phase] = []
    last_until = 0
    for i, praw in enumerate(raw_phases):
        ppath = (*path, "phases", i)
        praw = rd.mapping(praw, ppath, {"name", "pays", "until"})
        pays: dict[str, float] = {}
        for item, value in rd.mapping(praw.get("pays"), (*ppath, "pays"), nullable=True).items():
            if item not in types or types[item].abstract:
                raise rd.fail((*ppath, "pays", item), f"unknown item '{item}'", found=item,
                              key=True, expected="a concrete type declared under entity_types")
            pays[str(item)] = rd.number(value, (*ppath, "pays", item))
        until = None
        if kind == "cycle" and "until" in praw:
            raise rd.fail((*ppath, "until"), "'until' belongs to kind: phases", key=True,
                          expected="the cycle's period alone (every phase lasts `period` steps)")
        if kind == "phases":
            last = i == len(raw_phases) - 1
            if "until" not in praw and not last:
                raise rd.fail(ppath, "missing 'until'",
                              expected="until: <step> (only the last phase may omit it)")
            if "until" in praw:
                until = rd.integer(praw["until"], (*ppath, "until"), minimum=last_until + 1,
                                   maximum=MAX_STEPS)
                last_until = until
        name = rd.string(praw.get("name", f"phase{i}"), (*ppath, "name"))
        phases.append(Phase(name, MappingProxyType(pays), until))
    return RewardSchedule(str(kind), tuple(phases), period)


def apply_regrow(entity_types: dict[str, EntityTypeSpec], lifelong: LifelongSpec) -> None:
    """Turn each regrow rule into the type's `on_break` spawn of itself (the existing scheduled
    mechanism, marked with its mode: see world/lifelong/regrowth.py), in place."""
    from nesyworld.world.spec.model import ScheduledSpawn

    for name, rule in lifelong.regrow.items():
        entity_types[name] = replace(
            entity_types[name],
            on_break=ScheduledSpawn(name, rule.after, regrow=rule.where))
