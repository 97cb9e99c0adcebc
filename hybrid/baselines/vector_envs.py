"""Training envs for the RL baselines on the batched core: N copies of a task in one
`NesyVectorEnv`, with the plan-shaped reward and the forbidden actions of the single-env path.

Why: the single-env path steps each copy through Python (`NesyGridEnv` in a tianshou
`DummyVectorEnv` or a subprocess per env), and pays an abstraction of the world at every step
for the shaping. Here all copies step in one compiled call, and a copy is abstracted only
when its episode starts (to plan) — subgoals are inventory gains, which the wrapper reads off
the stacked inventories. Same rewards, same masks: tests run both side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper

from nesyworld.hybrid.baselines.shaping import ShapingConfig, SubgoalTracker, plan_tracker
from nesyworld.symbolic.derivation.abstraction import abstract
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.symbolic.planning.planners import PlanCache, Planner
from nesyworld.world.envs.vector_env import NesyVectorEnv
from nesyworld.world.observations.builder import ObservationConfig
from nesyworld.world.simulation.world import World
from nesyworld.world.spec.model import WorldSpec

SHAPING_KEYS = ("shaping_reward", "subgoals_done", "subgoals_total")
DEFAULT_SHAPING = ShapingConfig()


class VectorPlanShapedReward(VectorWrapper):
    """`PlanShapedReward` for every copy of a `NesyVectorEnv` (NEXT_STEP autoreset, partial
    resets). Infos gain ``shaping_reward``, ``subgoals_done`` and ``subgoals_total`` arrays;
    `trackers[i]` is copy i's episode."""

    def __init__(self, env: VectorEnv, kb: KnowledgeBase | None = None,
                 config: ShapingConfig = DEFAULT_SHAPING,
                 planner: Planner | None = None) -> None:
        super().__init__(env)
        inner = env.unwrapped
        if not isinstance(inner, NesyVectorEnv):
            raise TypeError(f"VectorPlanShapedReward wraps a NesyVectorEnv, not "
                            f"{type(inner).__name__}")
        self.batch = inner.batch
        self.config = config
        self.kb = kb if kb is not None else KnowledgeBase.from_world(self.batch.template)
        self.planner = planner or Planner(config.planner, timeout=config.planner_timeout,
                                          cache=PlanCache())
        self.trackers = [SubgoalTracker([], config) for _ in range(self.num_envs)]
        self._scratch = World(self.batch.spec)  # a copy's state goes here to be abstracted
        self._names = self.batch.template.types.names
        self._inventory = np.zeros(0)
        self._ended = np.zeros(self.num_envs, bool)

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        # a seed per copy, as NesyVectorEnv (and Gymnasium's own vector envs) take them; the
        # VectorEnv base class annotates one int
        obs, info = self.env.reset(seed=seed, options=options)  # type: ignore[arg-type]
        which = np.ones(self.num_envs, bool)
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], bool)
        for n in np.flatnonzero(which).tolist():
            self.trackers[n] = self._plan(n)
        self._ended[which] = False
        self._inventory = self.batch.inventory(self.batch.main).copy()
        return obs, self._annotate(info, np.zeros(self.num_envs))

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        restarted = self._ended  # NEXT_STEP: these copies start a new episode in this step
        obs, reward, terminated, truncated, info = self.env.step(actions)
        after = self.batch.inventory(self.batch.main)
        before = self._inventory
        bonus = np.zeros(self.num_envs)
        changed = (after != before).any(axis=1) & ~restarted
        for n in np.flatnonzero(changed).tolist():  # few: most steps gain nothing
            bonus[n] = self.trackers[n].bonus(self._counts(before[n]), self._counts(after[n]))
        for n in np.flatnonzero(restarted).tolist():
            self.trackers[n] = self._plan(n)
        self._inventory = after.copy()
        self._ended = terminated | truncated
        return obs, reward + bonus, terminated, truncated, self._annotate(info, bonus)

    def _counts(self, row: np.ndarray) -> dict[str, int]:
        return dict(zip(self._names, row.tolist(), strict=True))

    def _plan(self, n: int) -> SubgoalTracker:
        self._scratch.state = self.batch.export(n)
        _, tracker = plan_tracker(abstract(self._scratch), self.kb, self.planner, self.config)
        return tracker

    def _annotate(self, info: dict[str, Any], bonus: np.ndarray) -> dict[str, Any]:
        info["shaping_reward"] = bonus
        info["subgoals_done"] = np.array([t.done for t in self.trackers], np.int64)
        info["subgoals_total"] = np.array([len(t.subgoals) for t in self.trackers], np.int64)
        every = np.ones(self.num_envs, bool)
        info.update({f"_{k}": every for k in SHAPING_KEYS})
        return info


class VectorForbidActions(VectorWrapper):
    """`ForbidActions` for a vector env: the named actions are illegal in every copy's
    ``info["action_mask"]``, except in a copy where nothing else would be legal. With
    `action_masks=False` every copy's mask starts all-legal instead of the world's
    (`nesyworld.hybrid.baselines.legal_actions`)."""

    def __init__(self, env: VectorEnv, names: tuple[str, ...], action_masks: bool = True
                 ) -> None:
        super().__init__(env)
        action_names = env.unwrapped.action_names  # type: ignore[attr-defined]
        self.names = names
        self.action_masks = action_masks
        self.columns = [action_names.index(a) for a in names if a in action_names]

    def _mask(self, info: dict[str, Any]) -> dict[str, Any]:
        if "action_mask" in info and (self.columns or not self.action_masks):
            mask = info["action_mask"]
            if not self.action_masks:  # the paper's plain action space: nothing refused ahead
                mask = np.ones_like(mask, dtype=bool)
            out = mask.copy()
            out[:, self.columns] = False
            empty = ~out.any(axis=1)
            out[empty] = mask[empty]
            info["action_mask"] = out
        return info

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return obs, self._mask(info)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        return obs, reward, terminated, truncated, self._mask(info)


@dataclass(frozen=True)
class VectorTrainingEnvFactory:
    """`train(vector_env_factory=...)` for the RL baselines: n copies of `spec` in one
    `NesyVectorEnv`, shaped (unless `shaping` is None), the forbidden actions masked. The
    envs it makes share one plan cache."""

    spec: WorldSpec
    observation: ObservationConfig
    shaping: ShapingConfig | None
    kb: KnowledgeBase | None
    forbidden: tuple[str, ...]
    cache: PlanCache = field(default_factory=PlanCache, compare=False)
    action_masks: bool = True
    """False: every action but the forbidden ones reported legal (`RLConfig.action_masks`)."""

    def __call__(self, num_envs: int) -> VectorEnv:
        env: VectorEnv = NesyVectorEnv(num_envs, spec=self.spec, observation=self.observation)
        if self.shaping is not None:
            planner = Planner(self.shaping.planner, timeout=self.shaping.planner_timeout,
                              cache=self.cache)
            env = VectorPlanShapedReward(env, self.kb, self.shaping, planner)
        return VectorForbidActions(env, self.forbidden, self.action_masks)
